import type { MemoryRecord } from '@engram/contracts';

/**
 * What a memory is searched by besides its own words, and never shown: who said it, the day it
 * was said written out (both languages, so "what did she do in May 2023" and "2023年5月发生了什么"
 * meet the turn), and the keys the extractor gave it (for an episode, the facts read from its turn).
 * Derived from the record alone, so every rebuild indexes the same terms.
 */
export function searchKeysOf(memory: Pick<MemoryRecord, 'speaker' | 'keys' | 'validFrom'>): string[] {
  return [...(memory.speaker ? [memory.speaker] : []), ...dateWords(memory.validFrom), ...(memory.keys ?? [])];
}

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const WEEKDAYS_ZH = ['星期日', '星期一', '星期二', '星期三', '星期四', '星期五', '星期六'];

/** "Monday 8 May 2023", "2023年5月8日 星期一" (UTC); nothing for an unreadable date. */
export function dateWords(iso: string): string[] {
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return [];
  const [year, month, day, weekday] = [at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate(), at.getUTCDay()];
  return [`${WEEKDAYS[weekday]} ${day} ${MONTHS[month]} ${year}`, `${year}年${month + 1}月${day}日 ${WEEKDAYS_ZH[weekday]}`];
}
