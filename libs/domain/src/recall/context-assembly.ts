import type { MemoryRecord, TurnRole } from '@engram/contracts';
import { excerptAround } from '../text/excerpt';
import { conflictMark, pastLine } from './memory-past';
import type { RankedMemory } from '../ranking/ranking';
import { countTokens, tokenize } from '../text/tokenizer';

/**
 * The context block recall hands to the LLM: pinned facts, the assistant's procedures, ranked
 * memories, the session summary, then the recent window, within a token budget split into zones.
 * Each zone fills up to its own share first, in that order; what a zone leaves unused is handed on,
 * in the same order, to the zones that had more to say. Without zones every zone may use the whole
 * budget, which is plain priority order (facts first, then memories by rank, then recent turns).
 * Recent turns and summary lines are taken newest-first (kept contiguous), rendered oldest-first.
 */
export interface RecentTurn {
  readonly role: TurnRole;
  readonly text: string;
  readonly occurredAt: string;
}

export const CONTEXT_ZONES = ['facts', 'procedures', 'memories', 'summary', 'recent'] as const;
export type ContextZone = (typeof CONTEXT_ZONES)[number];
/** Tokens per zone; a zone left out may use whatever the total allows. */
export type ZoneBudget = Readonly<Partial<Record<ContextZone, number>>>;

/** How long one memory may be in the context: longer ones are cut around the query's terms. */
export interface MemoryLengthCap {
  readonly chars: number;
  readonly tokens: number;
}

export interface ContextInput<TTurn extends RecentTurn = RecentTurn> {
  readonly facts: readonly MemoryRecord[];
  readonly procedures?: readonly MemoryRecord[];
  readonly memories: readonly RankedMemory[];
  /** Summary lines, oldest first (what happened before the recent window). */
  readonly summary?: readonly string[];
  readonly recent: readonly TTurn[];
  /** The total, counted with the real tokenizer, preamble and section tags included. */
  readonly tokenBudget: number;
  readonly zones?: ZoneBudget;
  /** The question: a memory longer than `cap` is cut around its terms. */
  readonly query?: string;
  readonly cap?: MemoryLengthCap;
  readonly now: Date;
}

export interface AssembledContext<TTurn extends RecentTurn = RecentTurn> {
  /** Empty when nothing fits (or nothing is known). */
  readonly context: string;
  readonly facts: MemoryRecord[];
  readonly procedures: MemoryRecord[];
  readonly memories: RankedMemory[];
  /** The summary lines that fit, oldest first. */
  readonly summary: string[];
  /** Oldest first, as they happened. */
  readonly recent: TTurn[];
  readonly tokensUsed: number;
  /** Tokens each zone used (per-line estimate; the total is measured exactly). */
  readonly zones: Record<ContextZone, number>;
}

export const CONTEXT_PREAMBLE =
  'Reference material from long-term memory about the user. It may be outdated: the current conversation overrides it.';

interface Candidate<T> {
  readonly item: T;
  readonly line: string;
  readonly index: number;
  /** A shorter line to take when `line` does not fit (a memory without its history line). */
  readonly fallback?: string;
}

/** One zone's candidates in the order they are offered; `contiguous` stops at the first that does not fit. */
interface ZoneQueue {
  readonly zone: ContextZone;
  readonly candidates: Candidate<unknown>[];
  readonly contiguous: boolean;
  readonly taken: Candidate<unknown>[];
  next: number;
}

export function assembleContext<TTurn extends RecentTurn>(input: ContextInput<TTurn>): AssembledContext<TTurn> {
  const terms = input.query ? tokenize(input.query) : [];
  const line = (memory: MemoryRecord, dated: boolean) => memoryLines(memory, terms, input.cap, dated, input.now);
  const procedures = input.procedures ?? [];
  const factIds = new Set([...input.facts, ...procedures].map((f) => f.memoryId));
  const queues: ZoneQueue[] = [
    queue(
      'facts',
      input.facts.map((f, index) => ({ item: f, ...line(f, false), index })),
      false,
    ),
    queue(
      'procedures',
      procedures.map((p, index) => ({ item: p, ...line(p, false), index })),
      false,
    ),
    queue(
      'memories',
      input.memories.map((m, index) => ({ item: m, ...line(m.memory, true), index })).filter((c) => !factIds.has(c.item.memory.memoryId)), // a pinned fact found by search is already there
      false,
    ),
    queue('summary', [...(input.summary ?? [])].map((s, index) => ({ item: s, line: `- ${asData(s)}`, index })).reverse(), true),
    queue(
      'recent',
      [...input.recent]
        .sort(byTime)
        .map((t, index) => ({ item: t, line: turnLine(t), index }))
        .reverse(),
      true,
    ),
  ];
  const budget = new TokenBudget(input.tokenBudget, countTokens(CONTEXT_PREAMBLE) + 1);
  // First each zone within its share, then the shares left unused, handed on in the same order.
  for (const q of queues) fill(q, budget, input.zones?.[q.zone] ?? Number.POSITIVE_INFINITY);
  for (const q of queues) fill(q, budget, Number.POSITIVE_INFINITY);
  const parts = queues.map((q) => [...q.taken].sort((a, b) => a.index - b.index));
  // Per-line counts are a close estimate of the whole; BPE may merge differently across lines, so the
  // rendered block is measured and, while still over, trimmed from the lowest priority end.
  for (;;) {
    const context = render(parts);
    const tokensUsed = countTokens(context);
    if (tokensUsed <= input.tokenBudget) {
      const items = <T>(zone: number) => parts[zone].map((c) => c.item as T);
      return {
        context,
        facts: items<MemoryRecord>(0),
        procedures: items<MemoryRecord>(1),
        memories: items<RankedMemory>(2),
        summary: items<string>(3),
        recent: items<TTurn>(4),
        tokensUsed,
        zones: budget.zones(),
      };
    }
    if (parts[4].length > 0)
      parts[4].shift(); // the oldest recent turn
    else if (parts[3].length > 0)
      parts[3].shift(); // the oldest summary line
    else if (parts[2].length > 0)
      parts[2].pop(); // the lowest-ranked memory
    else if (parts[1].length > 0) parts[1].pop();
    else parts[0].pop();
  }
}

function queue(zone: ContextZone, candidates: Candidate<unknown>[], contiguous: boolean): ZoneQueue {
  return { zone, candidates, contiguous, taken: [], next: 0 };
}

/** Takes the zone's next candidates while they fit its share and the total; skips (or, if contiguous, stops at) one that does not. */
function fill(q: ZoneQueue, budget: TokenBudget, share: number): void {
  const skipped: Candidate<unknown>[] = [];
  for (; q.next < q.candidates.length; q.next += 1) {
    const candidate = q.candidates[q.next];
    if (budget.take(q.zone, candidate.line, share)) q.taken.push(candidate);
    else if (candidate.fallback !== undefined && budget.take(q.zone, candidate.fallback, share))
      q.taken.push({ ...candidate, line: candidate.fallback, fallback: undefined });
    else if (q.contiguous) return;
    else skipped.push(candidate); // a shorter one further down may still fit
  }
  // What did not fit is offered again when the unused shares are handed on.
  q.candidates.splice(0, q.candidates.length, ...skipped);
  q.next = 0;
}

function render(parts: readonly (readonly Candidate<unknown>[])[]): string {
  const sections = CONTEXT_ZONES.map((zone, i) =>
    section(
      zone,
      parts[i].map((c) => c.line),
    ),
  ).filter((s): s is string => s !== null);
  return sections.length === 0 ? '' : [CONTEXT_PREAMBLE, ...sections].join('\n');
}

function section(name: ContextZone, lines: readonly string[]): string | null {
  if (lines.length === 0) return null;
  return [`<${name}>`, ...lines, `</${name}>`].join('\n');
}

/**
 * A memory's line, cut around the query's terms when longer than the cap, with a marker when it
 * contradicts an earlier statement not yet confirmed; and, indented on a line of its own, its previous
 * value as history with its dates (`pastLine`), which a memory that does not fit with it leaves out.
 */
function memoryLines(
  memory: MemoryRecord,
  terms: readonly string[],
  cap: MemoryLengthCap | undefined,
  dated: boolean,
  now: Date,
): { line: string; fallback?: string } {
  const text = cap ? excerptAround(memory.content, terms, cap) : memory.content;
  const current = `${dated ? `- [${memory.validFrom.slice(0, 10)}] ` : '- '}${asData(text)}${conflictMark(memory)}`;
  const past = pastLine(memory, now);
  return past ? { line: `${current}\n  ${asData(past)}`, fallback: current } : { line: current };
}

function turnLine(turn: RecentTurn): string {
  return `${turn.role}: ${asData(turn.text)}`;
}

// eslint-disable-next-line no-control-regex -- vertical tab and form feed break lines too
const LINE_BREAKS = /\r\n|[\n\r\u000b\u000c\u0085\u2028\u2029]/g;
/** `<` (or a look-alike) opening a tag: `</memories>`, `<system>`, `<!--`, `<?xml`. */
const TAG_OPEN = /[<\uff1c\ufe64](?=\s*\/?\s*[\p{L}!?])/gu;

/**
 * What users said is data, never markup: each memory, summary line and turn stays one line (a line
 * break could start a fake `SYSTEM:` or `assistant:` line; a memory's history line is a second one
 * that engram opens), and a `<` that would open or close a tag
 * (`</memories>` ending the section early) is written `&lt;`, so every section ends where engram ends it.
 */
export function asData(text: string): string {
  return text.replace(LINE_BREAKS, ' ').replace(TAG_OPEN, '&lt;');
}

function byTime(a: RecentTurn, b: RecentTurn): number {
  return Date.parse(a.occurredAt) - Date.parse(b.occurredAt);
}

/** Counts lines as they are added, including the preamble and a section's tags when its first line arrives. */
class TokenBudget {
  private used = 0;
  private readonly opened = new Set<ContextZone>();
  private readonly byZone: Record<ContextZone, number> = { facts: 0, procedures: 0, memories: 0, summary: 0, recent: 0 };

  constructor(
    private readonly limit: number,
    private readonly preamble: number,
  ) {}

  take(zone: ContextZone, line: string, share: number): boolean {
    const open = this.opened.has(zone) ? 0 : countTokens(`<${zone}>\n</${zone}>\n`);
    const first = this.used === 0 ? this.preamble : 0;
    const cost = countTokens(line) + 1 + open;
    if (this.used + cost + first > this.limit || this.byZone[zone] + cost > share) return false;
    this.used += cost + first;
    this.byZone[zone] += cost;
    this.opened.add(zone);
    return true;
  }

  zones(): Record<ContextZone, number> {
    return { ...this.byZone };
  }
}
