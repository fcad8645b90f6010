/**
 * How a check is scored on recall's context block — what the model would be given. A check passes
 * when every `expect` entry appears somewhere in it and no `reject` string appears on a line that
 * presents it as current, nor any `once` string on more than one current line. A line presents
 * history when it carries one of HISTORY_MARKERS (the way the context block marks what is no longer
 * true, with its date).
 */
const HISTORY_MARKERS: readonly string[] = ['以前：', '以前:', '(history)', '（历史）', 'formerly:', 'previously:'];

export interface CheckVerdict {
  readonly passed: boolean;
  /** `expect` entries not found (alternatives joined with " | "). */
  readonly missing: string[];
  /** `reject` strings found on a current line. */
  readonly stale: string[];
  /** `once` strings found on more than one current line. */
  readonly repeated: string[];
}

const fold = (text: string) => text.normalize('NFKC').toLowerCase();

export function isHistoryLine(line: string): boolean {
  const folded = fold(line);
  return HISTORY_MARKERS.some((marker) => folded.includes(fold(marker)));
}

export function scoreCheck(
  context: string,
  expect: readonly (string | readonly string[])[],
  reject: readonly string[],
  once: readonly string[] = [],
): CheckVerdict {
  const whole = fold(context);
  const current = context
    .split('\n')
    .filter((line) => !isHistoryLine(line))
    .map(fold);
  const missing = expect
    .map((entry) => (typeof entry === 'string' ? [entry] : [...entry]))
    .filter((alternatives) => !alternatives.some((a) => whole.includes(fold(a))))
    .map((alternatives) => alternatives.join(' | '));
  const stale = reject.filter((text) => current.some((line) => line.includes(fold(text))));
  const repeated = once.filter((text) => current.filter((line) => line.includes(fold(text))).length > 1);
  return { passed: missing.length === 0 && stale.length === 0 && repeated.length === 0, missing, stale, repeated };
}
