import {
  deterministicId,
  type MemoryAdded,
  type MemoryDecision,
  type MemoryRecord,
  type MemorySuperseded,
  newEvent,
} from '@engram/contracts';
import { excerptAround } from '../text/excerpt';
import { ResolutionDecider, type ResolverState } from '../resolution/resolution.decider';

/**
 * The rolling session summary (docs/memory-model.md §14): what a session said before its recent
 * window, so the context keeps it once the turns themselves have left. Extractive: the session's
 * turns that left the window, in order, each told by the memories extracted from it ("决定用
 * PostgreSQL") or, when it gave none, by its own words cut to a line. Re-derived every `every`
 * turns that leave the window (the seeds: every 3–5 turns), by the resolver after the extraction
 * that brought them, so it is a decision on memory.facts.v1 like any other (kind `summary`,
 * merge key `session/summary:<session>`): stored by the facts projection, rebuilt by replay,
 * re-derived by a reprocess. Pure: a function of the user's memories and the options.
 */
export const SUMMARY_KIND = 'summary';
export const SUMMARY_SUBJECT = 'session';

export interface SummaryOptions {
  /** The recent window, in turns kept as episodes: older ones are summarised. */
  readonly window: number;
  /** Re-derive once this many more turns have left the window; 0: no summaries. */
  readonly every: number;
  /** Longest summary kept, in characters: plain turns go first, then the oldest memories. */
  readonly maxChars: number;
  /** Longest line for a turn told by its own words. */
  readonly lineChars?: number;
  readonly recordedAt: string;
}

export interface SummaryReview {
  readonly tenantId: string;
  readonly userId: string;
  readonly sessionId: string;
  /** The event whose decisions brought the turns (an extraction). */
  readonly triggerId: string;
  readonly correlationId: string;
}

/** What a summary is written from: the turns that just left the window, told by their memories, and the summary so far. */
export interface SummaryMaterial {
  readonly sessionId: string;
  /** The summary before these turns left the window (empty for the first). */
  readonly previous: readonly string[];
  /** The turns that left the window since, in order. */
  readonly turns: readonly { readonly at: string; readonly who: string; readonly text: string; readonly memories: readonly string[] }[];
}

/**
 * Who writes the lines: extractive by default (pure, below); an LLM when one is configured
 * (`libs/adapters-llm`). The decider decides when and over which turns; the writer only words it.
 */
export interface SummaryWriter {
  readonly version: string;
  write(material: SummaryMaterial): Promise<string[]>;
}

export function summaryMergeKey(sessionId: string): string {
  return `${SUMMARY_SUBJECT}/summary:${sessionId}`;
}

/** The summary's lines, oldest first (its content is one line per entry). */
export function summaryLines(summary: MemoryRecord): string[] {
  return summary.content.split('\n').filter((line) => line.trim() !== '');
}

/** A summary that is due: the turns it covers, the summary so far, and what a writer needs. */
export interface DueSummary {
  readonly review: SummaryReview;
  readonly covered: readonly MemoryRecord[];
  readonly existing: MemoryRecord | undefined;
  readonly material: SummaryMaterial;
}

export const SummaryDecider = {
  /** Over the resolver's state, evolved like every resolver decision. */
  initialState: ResolutionDecider.initialState,
  evolve: ResolutionDecider.evolve,

  /** The extractive summary, decided at once (pure). */
  decide(review: SummaryReview, state: ResolverState, options: SummaryOptions): MemoryDecision[] {
    const due = SummaryDecider.due(review, state, options);
    return due ? [SummaryDecider.written(due, linesOf(due.covered, state, options), options)] : [];
  },

  /** Whether the session's summary is due (`every` more turns out of the window), and over what. */
  due(review: SummaryReview, state: ResolverState, options: SummaryOptions): DueSummary | null {
    if (options.every <= 0) return null;
    const episodes = sessionEpisodes(state, review.sessionId);
    const covered = episodes.slice(0, Math.max(0, episodes.length - options.window));
    const existing = [...state.values()].find((m) => m.mergeKey === summaryMergeKey(review.sessionId));
    const before = existing ? existing.sourceTurnIds.length : 0;
    if (covered.length < before + options.every) return null;
    const told = memoriesByTurn(covered, state);
    const turns = covered.slice(before).map((episode) => ({
      at: episode.validFrom,
      who: episode.speaker ?? episode.subject,
      text: episode.content,
      memories: (told.get(episode.sourceTurnIds[0]) ?? []).map((m) => m.content),
    }));
    return {
      review,
      covered,
      existing,
      material: { sessionId: review.sessionId, previous: existing ? summaryLines(existing) : [], turns },
    };
  },

  /** The decision for a due summary with the lines a writer wrote (kept within `maxChars`, newest lines first). */
  written(due: DueSummary, lines: readonly string[], options: SummaryOptions): MemoryDecision {
    const { review, covered, existing } = due;
    const content = newestWithin(lines, options.maxChars).join('\n');
    const last = covered[covered.length - 1];
    const memory = record(review, existing, covered, content, last.validFrom, options);
    const type = existing ? 'MemorySuperseded' : 'MemoryAdded';
    const event = newEvent<MemoryAdded | MemorySuperseded>({
      eventId: deterministicId('summary', memory.memoryId, memory.revision),
      type,
      tenantId: review.tenantId,
      userId: review.userId,
      occurredAt: last.validFrom,
      recordedAt: options.recordedAt,
      causationId: review.triggerId,
      correlationId: review.correlationId,
      payload: { memory, itemId: null },
    });
    return event;
  },
};

/** The extractive writer as a SummaryWriter: lines from the material alone (used when an LLM writer fails). */
export const extractiveSummaryWriter: SummaryWriter = {
  version: 'extractive-1',
  async write(material: SummaryMaterial): Promise<string[]> {
    const added = material.turns.map((t) =>
      t.memories.length > 0 ? `[${stamp(t.at)}] ${t.memories.join('；')}` : `[${stamp(t.at)}] ${t.who}: ${oneLine(t.text, 120)}`,
    );
    return [...material.previous, ...added];
  },
};

function newestWithin(lines: readonly string[], maxChars: number): string[] {
  const kept: string[] = [];
  let size = 0;
  for (let i = lines.length - 1; i >= 0; i--) {
    size += lines[i].length + 1;
    if (size > maxChars) break;
    kept.unshift(lines[i]);
  }
  return kept;
}

/** A session's episodes (every status: the turns happened), in the order they were said. */
function sessionEpisodes(state: ResolverState, sessionId: string): MemoryRecord[] {
  const prefix = `episode:${sessionId}:`;
  return [...state.values()]
    .filter((m) => m.kind === 'episode' && m.attribute.startsWith(prefix))
    .sort(
      (a, b) => Date.parse(a.validFrom) - Date.parse(b.validFrom) || (a.attribute < b.attribute ? -1 : a.attribute > b.attribute ? 1 : 0),
    );
}

interface Line {
  readonly text: string;
  /** Told by memories (kept longer when the summary is too long) or by the turn's words. */
  readonly memory: boolean;
}

/**
 * One line per covered turn that is still current: its memories (each said once, at the first turn
 * that said it), or its own words. A turn whose every memory was corrected since says nothing now.
 */
function linesOf(covered: readonly MemoryRecord[], state: ResolverState, options: SummaryOptions): string[] {
  const told = memoriesByTurn(covered, state);
  const lines: Line[] = [];
  for (const episode of covered) {
    const turn = episode.sourceTurnIds[0];
    const memories = told.get(turn) ?? [];
    const at = stamp(episode.validFrom);
    if (memories.length > 0) {
      lines.push({ text: `[${at}] ${memories.map((m) => m.content).join('；')}`, memory: true });
    } else if (episode.status === 'active') {
      const who = episode.speaker ?? episode.subject;
      lines.push({ text: `[${at}] ${who}: ${oneLine(episode.content, options.lineChars ?? 120)}`, memory: false });
    }
  }
  return withinChars(lines, options.maxChars).map((l) => l.text);
}

/** The current memories of the covered turns, each under the first covered turn that said it. */
function memoriesByTurn(covered: readonly MemoryRecord[], state: ResolverState): Map<string, MemoryRecord[]> {
  const turns = new Set(covered.flatMap((e) => e.sourceTurnIds));
  const told = new Map<string, MemoryRecord[]>();
  for (const memory of state.values()) {
    if (memory.status !== 'active' || memory.kind === 'episode' || memory.kind === SUMMARY_KIND || memory.kind === 'insight') continue;
    const first = memory.sourceTurnIds.find((t) => turns.has(t));
    if (first === undefined) continue;
    told.set(first, [...(told.get(first) ?? []), memory]);
  }
  for (const memories of told.values()) memories.sort((a, b) => (a.memoryId < b.memoryId ? -1 : 1));
  return told;
}

/** Drops plain turns oldest first, then the oldest memory lines, until the summary fits. */
function withinChars(lines: Line[], maxChars: number): Line[] {
  const kept = [...lines];
  const size = () => kept.reduce((n, l) => n + l.text.length + 1, 0);
  for (const memory of [false, true]) {
    for (let i = 0; i < kept.length && size() > maxChars;) {
      if (kept[i].memory === memory) kept.splice(i, 1);
      else i += 1;
    }
  }
  return kept;
}

function oneLine(text: string, chars: number): string {
  return excerptAround(text.replace(/\s+/g, ' ').trim(), [], { chars, tokens: chars });
}

/** "11-30 09:05" (UTC): enough to order a session's lines, short enough to cost few tokens. */
function stamp(iso: string): string {
  return `${iso.slice(5, 10)} ${iso.slice(11, 16)}`;
}

function record(
  review: SummaryReview,
  existing: MemoryRecord | undefined,
  covered: readonly MemoryRecord[],
  content: string,
  validFrom: string,
  options: SummaryOptions,
): MemoryRecord {
  const mergeKey = summaryMergeKey(review.sessionId);
  return {
    tenantId: review.tenantId,
    userId: review.userId,
    // Created by the extraction that first brought it: deterministic on replay, new for a user who comes back.
    memoryId: existing?.memoryId ?? deterministicId('memory', review.tenantId, review.userId, mergeKey, 'summary', review.triggerId),
    mergeKey,
    kind: SUMMARY_KIND,
    subject: SUMMARY_SUBJECT,
    attribute: `summary:${review.sessionId}`,
    value: String(covered.length),
    content,
    entities: [],
    confidence: 1,
    importance: 0.5,
    ephemeral: false,
    pinned: false,
    status: 'active',
    version: (existing?.version ?? 0) + 1,
    revision: (existing?.revision ?? 0) + 1,
    mentionCount: 1,
    sourceTurnIds: covered.flatMap((e) => e.sourceTurnIds.slice(0, 1)),
    appliedItemIds: [],
    validFrom: existing?.validFrom ?? covered[0].validFrom,
    validTo: null,
    createdAt: existing?.createdAt ?? options.recordedAt,
    updatedAt: options.recordedAt,
    lastSeenAt: validFrom,
    // Re-derived, not said: its earlier versions are in the log, not in the record (it would grow with every turn).
    history: [],
  };
}
