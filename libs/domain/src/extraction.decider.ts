import { causedBy, deterministicId, type MemoriesExtracted, newEvent, type TurnScreened } from '@engram/contracts';
import { episodeOf } from './episodes';
import type { ExtractedItemDraft, ExtractionInput, ExtractionStrategy } from './extraction.strategy';

/**
 * What users say about themselves lasts beyond the one-off request they said it beside: "今天天气怎么样？
 * 以后回答我都用中文" asks about today's weather (stale tomorrow) and sets a standing rule; "what's the
 * weather today? I prefer window seats" states a preference. Screening tags the whole turn ephemeral;
 * a user's preference, profile fact or procedure read from it is not (its episode, which holds the
 * request's words, still is). Other kinds — a task, a decision, a fact about this request, and
 * everything the assistant said in reply to one — expire with the request.
 */
const DURABLE_KINDS: ReadonlySet<ExtractedItemDraft['kind']> = new Set(['preference', 'profile', 'procedure']);

function outlivesTheTurn(item: ExtractedItemDraft, role: TurnScreened['payload']['role']): boolean {
  return item.ephemeral && role === 'user' && DURABLE_KINDS.has(item.kind);
}

/**
 * Turns one screened turn into extracted items. The strategy (rules or an LLM) reads the turns
 * screening found signals in; whatever it finds, every accepted turn is also kept whole as an
 * episode (see `episodes.ts`), so nothing said is unsearchable. The decider owns identity: ids
 * derive from the screened event and the strategy version, so a replay yields the same event and
 * a new extractor version yields new, non-colliding ones.
 */
export const ExtractionDecider = {
  async decide(event: TurnScreened, strategy: ExtractionStrategy, recordedAt: string): Promise<MemoriesExtracted | null> {
    if (event.payload.verdict !== 'accepted') return null;
    const { sessionId, turnId, role, speaker, text, previousText, ephemeral, signals } = event.payload;
    const input: ExtractionInput = {
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
    // Screening decides what is extracted: a turn without signals is kept as an episode only.
    const read = (signals.length > 0 ? await strategy.extract(input) : []).map((fact) =>
      outlivesTheTurn(fact, role) ? { ...fact, ephemeral: false } : fact,
    );
    const facts = speaker === undefined ? read : read.map((fact) => ({ ...fact, speaker }));
    // A forget request ("忘掉我之前说的喜欢吃榴莲") is not kept as an episode: its words would bring back
    // what it asks to forget. The turn stays in the log and the recent window.
    const forgets = facts.length > 0 && facts.every((f) => f.operation === 'retract' && f.correction !== undefined);
    const episode = forgets ? null : episodeOf(input, facts);
    const drafts = episode ? [...facts, episode] : facts;
    if (drafts.length === 0) return null;
    const eventId = deterministicId('extracted', event.eventId, strategy.version);
    return newEvent<MemoriesExtracted>({
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
          extractorVersion: strategy.version,
        })),
        extractorVersion: strategy.version,
      },
    });
  },
} as const;
