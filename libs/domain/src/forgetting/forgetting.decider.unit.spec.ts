import { DEFAULT_FORGETTING_POLICY, ForgettingDecider, forgettingDecisions } from './forgetting.decider';
import type { ForgettingRequested } from '@engram/contracts';
import { deciderSpec } from '../testing/decider-spec';
import { memory, memoryAdded, TENANT, USER } from '../testing/fixtures';

const LEARNED = '2026-11-30T08:00:00.000Z';
const days = (n: number) => new Date(Date.parse(LEARNED) + n * 86_400_000);

describe('ForgettingDecider', () => {
  const ephemeral = memory({ attribute: 'opening-hours', ephemeral: true, content: '帮我看看这家店的营业时间' });
  const weak = memory({ attribute: 'seat', confidence: 0.3, content: 'I might prefer window seats' });
  const strong = memory({ attribute: 'editor', confidence: 0.9 });

  it('expires an ephemeral item 7 days after it was last said, not before', () => {
    expect(forgettingDecisions([ephemeral], days(6.9))).toEqual([]);
    const [expired] = forgettingDecisions([ephemeral], days(7));
    expect(expired.type).toBe('MemoryExpired');
    expect(expired.payload.memory).toEqual({ ...ephemeral, status: 'expired', revision: 2, updatedAt: days(7).toISOString() });
    expect(expired.payload.itemId).toBeNull();
  });

  it('expires what set its own time scope when the scope ends, pinned or not; before, it stays', () => {
    const busy = memory({ kind: 'episode', attribute: 'episode:s-1:t-1', content: '今天很忙', expiresAt: days(1).toISOString() });
    const diet = memory({ attribute: 'diet:vegan', pinned: true, expiresAt: days(7).toISOString() });
    expect(forgettingDecisions([busy, diet], days(0.9))).toEqual([]);
    expect(forgettingDecisions([busy, diet], days(1)).map((d) => [d.type, d.payload.memory.attribute])).toEqual([
      ['MemoryExpired', 'episode:s-1:t-1'],
    ]);
    expect(forgettingDecisions([busy, diet], days(7)).map((d) => d.payload.memory.attribute)).toEqual(['diet:vegan', 'episode:s-1:t-1']);
  });

  it('archives a low-confidence item nobody recalled for 90 days; a confident one stays', () => {
    expect(forgettingDecisions([weak, strong], days(89))).toEqual([]);
    const decisions = forgettingDecisions([weak, strong], days(90));
    expect(decisions.map((d) => [d.type, d.payload.memory.attribute, d.payload.memory.status])).toEqual([
      ['MemoryArchived', 'seat', 'archived'],
    ]);
  });

  it('at the default policy, archives what the rules say once (a preference, 0.75), not a stated fact (0.8), one said twice or an episode', () => {
    const preference = memory({ memoryId: 'm-pref', attribute: 'preference:tea', confidence: 0.75 });
    const episode = memory({ memoryId: 'm-episode', kind: 'episode', attribute: 'episode:s1:t1', confidence: 0.7 });
    const fact = memory({ memoryId: 'm-fact', attribute: 'database', confidence: 0.8 });
    const saidTwice = memory({ memoryId: 'm-twice', attribute: 'preference:coffee', confidence: 1 - (1 - 0.75) * 0.8 });
    const archived = forgettingDecisions([preference, episode, fact, saidTwice], days(90)).map((d) => d.payload.memory.memoryId);
    expect(archived.sort()).toEqual(['m-pref']);
    // What was said stays findable however long nobody asked about it.
    expect(forgettingDecisions([episode], days(3650))).toEqual([]);
  });

  it('archives an episode nobody said or recalled for episodeRetentionDays, when set; an ephemeral one still expires', () => {
    const episode = memory({ memoryId: 'm-episode', kind: 'episode', attribute: 'episode:s1:t1', confidence: 0.7 });
    const policy = { ...DEFAULT_FORGETTING_POLICY, episodeRetentionDays: 365 };
    expect(forgettingDecisions([episode], days(364), policy)).toEqual([]);
    expect(forgettingDecisions([episode], days(365), policy).map((d) => [d.type, d.payload.memory.status])).toEqual([
      ['MemoryArchived', 'archived'],
    ]);
    // A recall restarts its clock, as for any archival.
    const lastAccessAt = new Map([[episode.memoryId, days(300).toISOString()]]);
    expect(forgettingDecisions([episode], days(400), policy, { lastAccessAt })).toEqual([]);
    const oneOff = { ...episode, ephemeral: true };
    expect(forgettingDecisions([oneOff], days(7)).map((d) => d.type)).toEqual(['MemoryExpired']);
  });

  it('counts from the last recall when there was one', () => {
    const lastAccessAt = new Map([[weak.memoryId, days(30).toISOString()]]);
    expect(forgettingDecisions([weak], days(100), DEFAULT_FORGETTING_POLICY, { lastAccessAt })).toEqual([]);
    expect(forgettingDecisions([weak], days(120), DEFAULT_FORGETTING_POLICY, { lastAccessAt })).toHaveLength(1);
  });

  it('counts from when engram learned an item, so a backfill of old turns is not archived at once', () => {
    const backfilled = { ...weak, lastSeenAt: '2025-01-01T00:00:00.000Z', validFrom: '2025-01-01T00:00:00.000Z' };
    expect(forgettingDecisions([backfilled], days(10))).toEqual([]);
    expect(forgettingDecisions([backfilled], days(90))).toHaveLength(1);
  });

  it('never archives pinned facts and leaves inactive memories alone', () => {
    const pinned = { ...weak, pinned: true };
    const retracted = { ...ephemeral, status: 'retracted' as const };
    expect(forgettingDecisions([pinned, retracted], days(400))).toEqual([]);
  });

  it('turns a rule off with a zero age', () => {
    const policy = { ephemeralTtlDays: 0, archiveAfterDays: 0, archiveConfidence: 0.5 };
    expect(forgettingDecisions([ephemeral, weak], days(400), policy)).toEqual([]);
  });

  it('is deterministic: same state, same decisions and ids, in memory id order', () => {
    const a = forgettingDecisions([weak, ephemeral], days(200), DEFAULT_FORGETTING_POLICY, {
      causationId: 'cmd-1',
      correlationId: 'cmd-1',
    });
    const b = forgettingDecisions([ephemeral, weak], days(200), DEFAULT_FORGETTING_POLICY, {
      causationId: 'cmd-1',
      correlationId: 'cmd-1',
    });
    expect(a).toEqual(b);
    expect(a.map((d) => d.payload.memory.memoryId)).toEqual([...a.map((d) => d.payload.memory.memoryId)].sort());
    expect(a[0].causationId).toBe('cmd-1');
  });
});

describe("ForgettingDecider (deciderSpec): a ForgettingRequested over the user's memories", () => {
  const forgetting = deciderSpec(ForgettingDecider);
  const ephemeral = memory({ attribute: 'opening-hours', ephemeral: true, content: '帮我看看这家店的营业时间' });
  const weak = memory({ attribute: 'seat', confidence: 0.3, content: 'I might prefer window seats' });
  const strong = memory({ attribute: 'editor', confidence: 0.9 });

  const requested = (
    at: Date,
    lastAccess: { memoryId: string; at: string }[] = [],
    policy = DEFAULT_FORGETTING_POLICY,
  ): ForgettingRequested => ({
    eventId: `forget-${at.toISOString()}`,
    type: 'ForgettingRequested',
    schemaVersion: 1,
    tenantId: TENANT,
    userId: USER,
    occurredAt: at.toISOString(),
    recordedAt: at.toISOString(),
    causationId: null,
    correlationId: 'corr-forget',
    payload: { requestedAt: at.toISOString(), policy, lastAccess },
  });

  it('given memories too young to forget, when a run is requested, then nothing', () => {
    forgetting
      .given([memoryAdded(ephemeral), memoryAdded(weak), memoryAdded(strong)])
      .when(requested(days(6.9)))
      .thenNothing();
  });

  it('given an ephemeral and a weak memory long unused, when a run is requested, then the first expires and the second is archived, caused by the command', () => {
    const command = requested(days(90));
    forgetting
      .given([memoryAdded(ephemeral), memoryAdded(weak), memoryAdded(strong)])
      .when(command)
      .then((events, state) => {
        expect(events).toEqual(
          forgettingDecisions([ephemeral, weak, strong], days(90), DEFAULT_FORGETTING_POLICY, {
            lastAccessAt: new Map(),
            causationId: command.eventId,
            correlationId: command.correlationId,
          }),
        );
        expect(events.map((e) => [e.type, e.payload.memory.attribute]).sort()).toEqual([
          ['MemoryArchived', 'seat'],
          ['MemoryExpired', 'opening-hours'],
        ]);
        expect(events.every((e) => e.causationId === command.eventId && e.correlationId === 'corr-forget')).toBe(true);
        expect(state.get(weak.memoryId)?.status).toBe('archived');
        expect(state.get(ephemeral.memoryId)?.status).toBe('expired');
        expect(state.get(strong.memoryId)?.status).toBe('active');
      });
  });

  it('given a weak memory recalled since, when a run is requested, then it stays: the command carries the last recall', () => {
    forgetting
      .given([memoryAdded(weak)])
      .when(requested(days(100), [{ memoryId: weak.memoryId, at: days(30).toISOString() }]))
      .thenNothing();
  });

  it('given a memory forgotten already, when the same run is requested again, then nothing: a replay decides no more', () => {
    const command = requested(days(90));
    const first = forgetting
      .given([memoryAdded(weak)])
      .when(command)
      .result().events;
    expect(first).toHaveLength(1);
    forgetting
      .given([memoryAdded(weak), ...first])
      .when(command)
      .thenNothing();
  });
});
