// How the context block shows what a memory said before (docs/memory-model.md §6): history as
// history, with its dates, on a line of its own, and a contradiction still open as such.
import type { MemoryRecord, MemoryVersion } from '@engram/contracts';
import { AVOIDED, NOT_HELD } from '../extraction/constraint-values';
import { normaliseValue } from '../resolution/resolution.matching';
import { countTokens } from '../text/tokenizer';

/** A previous value longer than this (tokens) is left out: the line is a reminder, not a second memory. */
const PAST_MAX_TOKENS = 40;

/** Values that say nothing alone ("以前：like"): the previous statement's words are shown, or nothing. */
const BARE_VALUES: readonly string[] = ['like', 'dislike', 'habit', AVOIDED, NOT_HELD];

/**
 * Kinds whose versions are statements of the user's (not derived text, not a turn). Not procedures:
 * a rule for the assistant that was replaced is no longer a rule, and showing it beside the new one
 * invites the model to follow it.
 */
const STATED_KINDS: ReadonlySet<string> = new Set(['preference', 'fact', 'task', 'decision', 'profile']);

/** Han script: the memory is shown in Chinese, else in English. */
const HAN = /\p{Script=Han}/u;

/**
 * What the memory's line says after its content when its value contradicts an earlier one the user
 * has not confirmed (`MemoryRecord.conflict`): a short marker, never a history marker, so the line
 * still counts as current.
 */
export function conflictMark(memory: MemoryRecord): string {
  if (!memory.conflict) return '';
  return HAN.test(memory.content) ? '（与先前的说法矛盾，待确认）' : ' (contradicts an earlier statement; unconfirmed)';
}

/**
 * The line under a memory that shows its previous value as history, with when it held: "（以前：我喜欢
 * 高热量的饮食方案，12-01 至 12-03）", "(previously: I'm allergic to penicillin, 12-01 to 12-03)". One
 * version back — the one a contradiction names, else the last superseded — and only when it differs
 * from the current value and is short; null otherwise. The words are the previous statement's when
 * short, else its value. `now` decides whether the year is shown (dates of another year show it).
 */
export function pastLine(memory: MemoryRecord, now: Date): string | null {
  if (!STATED_KINDS.has(memory.kind) || memory.history.length === 0) return null;
  const conflict = memory.conflict;
  const previous = (conflict && memory.history.find((v) => v.version === conflict.previousVersion)) ?? memory.history.at(-1)!;
  const said = pastWords(previous, memory);
  if (!said) return null;
  const year = String(now.getUTCFullYear());
  const day = (instant: string) => (instant.startsWith(year) ? instant.slice(5, 10) : instant.slice(0, 10));
  const from = day(previous.validFrom);
  const to = previous.validTo ? day(previous.validTo) : null;
  return HAN.test(memory.content)
    ? `（以前：${said}，${to ? `${from} 至 ${to}` : `${from} 起`}）`
    : `(previously: ${said}, ${to ? `${from} to ${to}` : `from ${from}`})`;
}

/** The previous statement's words when short, else its value when that says something; null when it says what the current one does. */
function pastWords(previous: MemoryVersion, memory: MemoryRecord): string | null {
  if (normaliseValue(previous.content) === normaliseValue(memory.content)) return null;
  if (normaliseValue(previous.value) === normaliseValue(memory.value) && !memory.conflict) return null;
  const content = previous.content.trim();
  if (content && countTokens(content) <= PAST_MAX_TOKENS) return content;
  const value = previous.value.trim();
  if (value && !BARE_VALUES.includes(value) && countTokens(value) <= PAST_MAX_TOKENS) return value;
  return null;
}
