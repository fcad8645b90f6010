import { causedBy, deterministicId, type MemoriesExtracted, type MemoryKind, newEvent, type TurnScreened } from '@engram/contracts';
import { type Decider, type NoState, noState, unchanged } from '../decider';
import { episodeOf } from './episodes';
import { defaultTimeScopes, scopeEnd, turnScopeEnd, type TimeScopes } from './time-scope';
import type { ExtractedItemDraft, ExtractionInput, ExtractionStrategy } from './extraction.strategy';

/**
 * What users say about themselves lasts beyond the one-off request they said it beside: "今天天气怎么样？
 * 以后回答我都用中文" asks about today's weather (stale tomorrow) and sets a standing rule; "what's the
 * weather today? I prefer window seats" states a preference. Screening tags the whole turn ephemeral;
 * a user's preference, profile fact or procedure read from it is not (its episode, which holds the
 * request's words, still is). Other kinds — a task, a decision, a fact about this request, and
 * everything the assistant said in reply to one — expire with the request.
 */
const OUTLIVES_ONE_OFF_REQUEST: Readonly<Record<MemoryKind, boolean>> = {
  preference: true,
  profile: true,
  procedure: true,
  fact: false,
  task: false,
  decision: false,
  // Never read from a turn (an episode is the turn itself, and keeps its request's ephemerality).
  episode: false,
  insight: false,
  summary: false,
};

function outlivesTheTurn(item: ExtractedItemDraft, role: TurnScreened['payload']['role']): boolean {
  return item.ephemeral && role === 'user' && OUTLIVES_ONE_OFF_REQUEST[item.kind];
}

/** What the extractor decides on: a screened turn and what the extraction strategy read in it. */
export interface TurnRead {
  readonly event: TurnScreened;
  /** What the strategy found; none when it was not asked (a rejected turn, or one without signals). */
  readonly facts: readonly ExtractedItemDraft[];
  /** The strategy's version: part of every id, so a new extractor's events do not collide with the old. */
  readonly extractorVersion: string;
  /** The strategy set each item's time scope itself (`ExtractionStrategy.decidesTimeScopes`). */
  readonly decidesTimeScopes?: boolean;
}

export interface ExtractionOptions {
  readonly recordedAt: string;
  /** The time scopes statements set for themselves, and the working-memory window (default: the packs', 120 minutes). */
  readonly timeScopes?: TimeScopes;
}

/** The turn as the strategy reads it. */
function extractionInput(event: TurnScreened): ExtractionInput {
  const { sessionId, turnId, role, speaker, text, previousText, ephemeral, signals } = event.payload;
  return {
    tenantId: event.tenantId,
    userId: event.userId,
    sessionId,
    turnId,
    role,
    ...(speaker === undefined ? {} : { speaker }),
    text,
    ...(previousText === undefined ? {} : { previousText }),
    occurredAt: event.occurredAt,
    ephemeral,
    signals,
  };
}

/**
 * Asks the strategy (rules or an LLM: the one step that may wait, so it comes before the decider)
 * about a turn. Screening decides what is extracted: a rejected turn, or one without signals, is
 * not read at all, and an accepted one without signals is kept as an episode only.
 */
export async function readTurn(event: TurnScreened, strategy: ExtractionStrategy): Promise<TurnRead> {
  const asked = event.payload.verdict === 'accepted' && event.payload.signals.length > 0;
  return {
    event,
    facts: asked ? await strategy.extract(extractionInput(event)) : [],
    extractorVersion: strategy.version,
    ...(strategy.decidesTimeScopes ? { decidesTimeScopes: true } : {}),
  };
}

/**
 * Turns one screened turn, as read, into extracted items: none for a rejected turn, else one
 * `MemoriesExtracted`. Whatever the strategy found, every accepted turn is also kept whole as an
 * episode (see `episodes.ts`), so nothing said is unsearchable. The decider owns identity: ids
 * derive from the screened event and the strategy version, so a replay yields the same event and
 * a new extractor version yields new, non-colliding ones. Each turn is decided alone: no state.
 */
export const ExtractionDecider = {
  initialState: noState,
  decide(
    { event, facts: found, extractorVersion, decidesTimeScopes }: TurnRead,
    _state: NoState,
    { recordedAt, timeScopes }: ExtractionOptions,
  ): MemoriesExtracted[] {
    if (event.payload.verdict !== 'accepted') return [];
    const { sessionId, turnId, role, speaker, text } = event.payload;
    const scopes = timeScopes ?? defaultTimeScopes;
    // A statement that sets its own time scope ("今天头疼，先别跟我聊工作") holds until it ends: each item
    // by its own words, else by the turn's when every sentence of the turn is scoped — unless the
    // strategy scoped its items itself (an item it left unscoped holds).
    const turnEnd = turnScopeEnd(text, event.occurredAt, scopes);
    const read = found.map((fact) => {
      const durable = outlivesTheTurn(fact, role) ? { ...fact, ephemeral: false } : fact;
      const expiresAt = fact.expiresAt ?? (decidesTimeScopes ? undefined : (scopeEnd(fact.content, event.occurredAt, scopes) ?? turnEnd));
      return expiresAt ? { ...durable, expiresAt } : durable;
    });
    const facts = speaker === undefined ? read : read.map((fact) => ({ ...fact, speaker }));
    // A forget request ("忘掉我之前说的喜欢吃榴莲") is not kept as an episode: its words would bring back
    // what it asks to forget. The turn stays in the log and the recent window.
    const forgets = facts.length > 0 && facts.every((f) => f.operation === 'retract' && f.correction !== undefined);
    const said = forgets ? null : episodeOf(extractionInput(event), facts);
    // The episode is history once what it said has run out: when the whole turn is scoped and so is every
    // item; for a strategy that scopes its items, when every item it found is scoped, at the latest end.
    const episodeEnd = decidesTimeScopes && facts.length > 0 ? latestEnd(facts) : facts.every((f) => f.expiresAt) ? turnEnd : null;
    const episode = said && episodeEnd ? { ...said, expiresAt: episodeEnd } : said;
    const drafts = episode ? [...facts, episode] : facts;
    if (drafts.length === 0) return [];
    const eventId = deterministicId('extracted', event.eventId, extractorVersion);
    return [
      newEvent<MemoriesExtracted>({
        ...causedBy(event),
        eventId,
        type: 'MemoriesExtracted',
        occurredAt: event.occurredAt,
        recordedAt,
        payload: {
          sessionId,
          turnId,
          items: drafts.map((draft, index) => ({
            ...draft,
            itemId: deterministicId(eventId, index),
            extractorVersion,
          })),
          extractorVersion,
        },
      }),
    ];
  },
  evolve: unchanged,
} as const satisfies Decider<TurnRead, NoState, MemoriesExtracted, ExtractionOptions>;

/** The latest end of the items, or null when one of them holds (has none). */
function latestEnd(items: readonly ExtractedItemDraft[]): string | null {
  let latest: string | null = null;
  for (const { expiresAt } of items) {
    if (!expiresAt) return null;
    if (latest === null || expiresAt > latest) latest = expiresAt;
  }
  return latest;
}

/** The extractor stage's step for one turn: read it with the strategy, then decide; null when nothing is extracted. */
export async function extractTurn(
  event: TurnScreened,
  strategy: ExtractionStrategy,
  recordedAt: string,
  timeScopes?: TimeScopes,
): Promise<MemoriesExtracted | null> {
  const [extracted] = ExtractionDecider.decide(await readTurn(event, strategy), noState(), {
    recordedAt,
    ...(timeScopes ? { timeScopes } : {}),
  });
  return extracted ?? null;
}
