import { findCue } from '../text/cue-matching';
import { LANGUAGE_PACKS } from '../rules/lang/packs';
import type { ScopeCues } from '../rules/language-pack';
import { mergePacks } from '../rules/merge-packs';
import { SENTENCE, trimClause } from '../rules/clauses';

/**
 * Statements that set their own time scope expire with it: "今天头疼，先别跟我聊工作" holds today, "I'm
 * in Berlin this week" this week, "这次先用蓝色的模板" for the task at hand (the working-memory window).
 * A statement of what happened ("我今天入职了", "I moved today") sets none: it stays true. The scope is
 * read from the words; its end is world time (the turn's `occurredAt` plus the scope's length), so a
 * replay decides the same.
 */
export interface TimeScopes extends ScopeCues {
  /** How long a choice for the task at hand holds, in minutes (`task` cues). */
  readonly workingMemoryMinutes: number;
}

/**
 * The scopes a statement may set for itself, in the order the word cues are tried: the rest of a day,
 * a few days, a week, a trip, the task at hand. The LLM strategy's model names one per item.
 */
export const TIME_SCOPES = ['day', 'days', 'week', 'trip', 'task'] as const;
export type TimeScope = (typeof TIME_SCOPES)[number];

/** How long each scope holds, in hours (a day's rest is taken as a day: the user's time zone is not known). */
const SCOPE_HOURS = { day: 24, days: 72, week: 7 * 24, trip: 14 * 24 } as const;

export const DEFAULT_WORKING_MEMORY_MINUTES = 120;

/**
 * When something said at `occurredAt` with that scope stops holding (world time), or null when
 * `occurredAt` is no instant: the scope's length in hours, or the working-memory window for a task.
 */
export function endOfScope(scope: TimeScope, occurredAt: string, workingMemoryMinutes = DEFAULT_WORKING_MEMORY_MINUTES): string | null {
  const at = Date.parse(occurredAt);
  if (!Number.isFinite(at)) return null;
  const ms = scope === 'task' ? workingMemoryMinutes * 60_000 : SCOPE_HOURS[scope] * 3_600_000;
  return new Date(at + ms).toISOString();
}

export const defaultTimeScopes: TimeScopes = {
  ...mergePacks(LANGUAGE_PACKS.map((pack) => pack.scopes)),
  workingMemoryMinutes: DEFAULT_WORKING_MEMORY_MINUTES,
};

const pastCache = new WeakMap<readonly string[], RegExp>();

/** When one sentence or clause stops holding, or null when it sets no scope (or tells of the past). */
export function scopeEnd(text: string, occurredAt: string, scopes: TimeScopes = defaultTimeScopes): string | null {
  let past = pastCache.get(scopes.past);
  if (!past) {
    past = new RegExp(scopes.past.map((source) => `(?:${source})`).join('|'), 'iu');
    pastCache.set(scopes.past, past);
  }
  if (past.test(text)) return null;
  const scope = TIME_SCOPES.find((s) => findCue(text, scopes[s]));
  return scope ? endOfScope(scope, occurredAt, scopes.workingMemoryMinutes) : null;
}

/**
 * When a whole turn stops holding: only when every sentence that says something sets a scope (a
 * turn that also says something lasting is kept as it is), at the latest of their ends.
 */
export function turnScopeEnd(text: string, occurredAt: string, scopes: TimeScopes = defaultTimeScopes): string | null {
  const all = [...text.matchAll(SENTENCE)].map(([sentence]) => trimClause(sentence)).filter((s) => s.length > 0);
  const stating = all.filter((s) => !isAside(s));
  const sentences = stating.length > 0 ? stating : all;
  if (sentences.length === 0) return null;
  let latest: string | null = null;
  for (const sentence of sentences) {
    const end = scopeEnd(sentence, occurredAt, scopes);
    if (end === null) return null;
    if (latest === null || end > latest) latest = end;
  }
  return latest;
}

/** "好的！", "Of course!", "Thanks!": a sentence of two words or three characters at most says nothing lasting. */
function isAside(sentence: string): boolean {
  const words = sentence.split(/\s+/u).filter(Boolean);
  return /[A-Za-z]/u.test(sentence) ? words.length <= 2 : [...sentence].length <= 3;
}
