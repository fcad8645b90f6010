import {
  deterministicId,
  type ForgettingRequested,
  type MemoryArchived,
  type MemoryExpired,
  type MemoryRecord,
  newEvent,
} from '@engram/contracts';
import type { Decider } from '../decider';
import { ResolutionDecider, type ResolverState } from '../resolution/resolution.decider';

/**
 * Forgetting: a pure decider from (the user's memories, now, policy, access stats) to
 * MemoryExpired / MemoryArchived decisions. Expiry and archival are events like every other
 * resolver decision, so projections, rebuilds and exports see them; nothing is deleted.
 *
 * - Ephemeral items (one-off requests: weather, opening hours) expire `ephemeralTtlDays` after
 *   they were last said (world time: a backfilled "what's the weather today" from last year is
 *   stale at once).
 * - Low-confidence items (< `archiveConfidence`) that nobody recalled for `archiveAfterDays`
 *   are archived: no longer recalled, still listed with `?status=all` and exported. The clock
 *   starts at the latest of last recall, last mention and when engram learned the item, so a
 *   backfill of old conversations is not archived the moment it lands.
 * - Episodes (the turns themselves) are what was said, not a claim to confirm: confidence never
 *   archives them. They are kept until the user is forgotten, or, with `episodeRetentionDays`,
 *   archived when nobody said or recalled them for that long (the same clock as above).
 * - Pinned facts (profile, budget, deadlines) are never archived: they are few and always wanted.
 * - A zero TTL, archive age or episode retention turns that rule off.
 */
export interface ForgettingPolicy {
  readonly ephemeralTtlDays: number;
  readonly archiveAfterDays: number;
  readonly archiveConfidence: number;
  /** Days an episode nobody said or recalled again is kept; 0 (or absent, as in commands from before it): until forgotten. */
  readonly episodeRetentionDays?: number;
}

/**
 * The bar is 0.8 so that archiving happens at all: every rule confidence is 0.6 or more, so the former
 * 0.5 archived nothing. Below 0.8 is what was said once and never confirmed — a preference, a habit,
 * a task, an assistant's conclusion (0.75), an episode (0.7), a guessed name (0.6, never archived
 * when pinned); from 0.8 up is what was stated as a value (facts 0.8, profile 0.85, budgets and
 * corrections 0.85, "记住" 0.9) or said twice (one reinforcement takes 0.75 to 0.8).
 */
export const DEFAULT_FORGETTING_POLICY: ForgettingPolicy = {
  ephemeralTtlDays: 7,
  archiveAfterDays: 90,
  archiveConfidence: 0.8,
  episodeRetentionDays: 0,
};

export interface ForgettingContext {
  /** memoryId → last recall (ISO), from the access projection. */
  readonly lastAccessAt?: ReadonlyMap<string, string>;
  /** The command that asked for this run, for the decisions' causation. */
  readonly causationId?: string | null;
  readonly correlationId?: string;
}

export type ForgettingDecision = MemoryExpired | MemoryArchived;

const DAY_MS = 86_400_000;

/** The decisions for some memories now: what `ForgettingDecider.decide` runs, and the admin preview (memories, no command). */
export function forgettingDecisions(
  memories: Iterable<MemoryRecord>,
  now: Date | string,
  policy: ForgettingPolicy = DEFAULT_FORGETTING_POLICY,
  context: ForgettingContext = {},
): ForgettingDecision[] {
  const at = typeof now === 'string' ? new Date(now) : now;
  const decisions: ForgettingDecision[] = [];
  const ordered = [...memories].sort((a, b) => (a.memoryId < b.memoryId ? -1 : a.memoryId > b.memoryId ? 1 : 0));
  for (const memory of ordered) {
    const verdict = verdictFor(memory, at, policy, context);
    if (verdict) decisions.push(decision(memory, verdict, at.toISOString(), context));
  }
  return decisions;
}

/**
 * Whether what a memory says still holds at an instant: it set no time scope, or the scope has not
 * ended. Recall asks it at the question's instant, so a memory is out of the answer the moment its
 * scope ends, before a forgetting sweep records the expiry.
 */
export function holdsAt(memory: Pick<MemoryRecord, 'expiresAt'>, at: Date): boolean {
  return memory.expiresAt === undefined || Date.parse(memory.expiresAt) > at.getTime();
}

/** Which rule, if any, applies to one memory now. */
export function verdictFor(
  memory: MemoryRecord,
  now: Date,
  policy: ForgettingPolicy,
  context: ForgettingContext = {},
): 'expired' | 'archived' | null {
  if (memory.status !== 'active') return null;
  // What set its own time scope ("今天", "this week", "这次") expires when the scope ends, pinned or not.
  if (memory.expiresAt !== undefined) return Date.parse(memory.expiresAt) <= now.getTime() ? 'expired' : null;
  if (memory.ephemeral) {
    if (policy.ephemeralTtlDays <= 0) return null;
    const lastSaid = latest(memory.lastSeenAt, memory.validFrom);
    return Number.isFinite(lastSaid) && now.getTime() - lastSaid >= policy.ephemeralTtlDays * DAY_MS ? 'expired' : null;
  }
  const keepDays = archivalAge(memory, policy);
  if (keepDays === null) return null;
  const lastUsed = latest(memory.lastSeenAt, memory.createdAt, context.lastAccessAt?.get(memory.memoryId));
  return Number.isFinite(lastUsed) && now.getTime() - lastUsed >= keepDays * DAY_MS ? 'archived' : null;
}

/**
 * After how many days unused an active, non-ephemeral memory is archived, or null when it never is:
 * pinned facts never; episodes after `episodeRetentionDays` when set; other memories below
 * `archiveConfidence` after `archiveAfterDays`. (Their last recall is what a command must carry.)
 */
export function archivalAge(memory: MemoryRecord, policy: ForgettingPolicy): number | null {
  if (memory.pinned || memory.ephemeral) return null;
  const retention = policy.episodeRetentionDays ?? 0;
  if (memory.kind === 'episode') return retention > 0 ? retention : null;
  return policy.archiveAfterDays > 0 && memory.confidence < policy.archiveConfidence ? policy.archiveAfterDays : null;
}

function decision(memory: MemoryRecord, verdict: 'expired' | 'archived', now: string, context: ForgettingContext): ForgettingDecision {
  const type = verdict === 'expired' ? 'MemoryExpired' : 'MemoryArchived';
  const next: MemoryRecord = { ...memory, status: verdict, revision: memory.revision + 1, updatedAt: now };
  // From the memory's own state: the same memory forgotten by a replayed command gets the same id.
  const eventId = deterministicId('forgetting', type, memory.tenantId, memory.userId, memory.memoryId, next.revision);
  return newEvent<ForgettingDecision>({
    eventId,
    type,
    tenantId: memory.tenantId,
    userId: memory.userId,
    occurredAt: now,
    recordedAt: now,
    causationId: context.causationId ?? null,
    correlationId: context.correlationId ?? eventId,
    payload: { memory: next, itemId: null },
  });
}

function latest(...instants: (string | undefined)[]): number {
  let best = -Infinity;
  for (const instant of instants) {
    const ms = instant === undefined ? NaN : Date.parse(instant);
    if (Number.isFinite(ms) && ms > best) best = ms;
  }
  return best;
}

/**
 * The forgetting sweep's decider, over the resolver's state (a user's memories) and evolved like
 * every resolver decision: a `ForgettingRequested` (its instant, policy and the last recalls it
 * carries) decides the expiries and archivals `forgettingDecisions` finds.
 */
export const ForgettingDecider = {
  initialState: ResolutionDecider.initialState,
  decide(command: ForgettingRequested, state: ResolverState): ForgettingDecision[] {
    const { requestedAt, policy, lastAccess } = command.payload;
    return forgettingDecisions(state.values(), requestedAt, policy, {
      lastAccessAt: new Map(lastAccess.map((a) => [a.memoryId, a.at])),
      causationId: command.eventId,
      correlationId: command.correlationId,
    });
  },
  evolve: ResolutionDecider.evolve,
} as const satisfies Decider<ForgettingRequested, ResolverState, ForgettingDecision>;
