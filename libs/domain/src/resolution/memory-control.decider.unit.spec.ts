import type {
  MemoryConfirmRequested,
  MemoryRecord,
  MemoryRetractionRequested,
  MemoryRevertRequested,
  ProfileUpdateRequested,
} from '@engram/contracts';
import { MemoryControlDecider, profileExtraction, revertTarget } from './memory-control.decider';
import { ResolutionDecider, ResolverState } from './resolution.decider';
import { deciderSpec } from '../testing/decider-spec';
import { memory, memoryAdded, TENANT, USER } from '../testing/fixtures';

const REQUESTED = '2026-12-10T09:00:00.000Z';

function envelope<T extends string, P>(type: T, payload: P, eventId = `cmd-${type}`) {
  return {
    eventId,
    type,
    schemaVersion: 1,
    tenantId: TENANT,
    userId: USER,
    occurredAt: REQUESTED,
    recordedAt: REQUESTED,
    causationId: null,
    correlationId: `corr-${eventId}`,
    payload,
  };
}

const retraction = (memoryId: string, reason = 'wrong'): MemoryRetractionRequested =>
  envelope('MemoryRetractionRequested', { memoryId, reason, requestedAt: REQUESTED });
const revert = (memoryId: string, version: number): MemoryRevertRequested =>
  envelope('MemoryRevertRequested', { memoryId, version, requestedAt: REQUESTED });

const confirmation = (memoryId: string): MemoryConfirmRequested => envelope('MemoryConfirmRequested', { memoryId, requestedAt: REQUESTED });

const stateOf = (...memories: MemoryRecord[]): ResolverState => new Map(memories.map((m) => [m.memoryId, m]));

/** 三万 (turn t1) superseded by 五万 (turn t2), with the episodes of both turns. */
const budget = memory({
  kind: 'fact',
  attribute: 'budget',
  value: '五万',
  content: '预算提到五万了',
  version: 2,
  revision: 2,
  sourceTurnIds: ['t2'],
  validFrom: '2026-12-05T08:00:00.000Z',
  updatedAt: '2026-12-05T08:00:00.000Z',
  history: [
    {
      version: 1,
      value: '三万',
      content: '预算控制在三万以内',
      validFrom: '2026-11-30T08:00:00.000Z',
      validTo: '2026-12-05T08:00:00.000Z',
      recordedAt: '2026-11-30T08:00:00.000Z',
      supersededAt: '2026-12-05T08:00:00.000Z',
      sourceTurnIds: ['t1'],
    },
  ],
});
const episodeOf = (turn: string, content: string, status: MemoryRecord['status'] = 'active') =>
  memory({ kind: 'episode', attribute: `episode:s1:${turn}`, value: '', content, sourceTurnIds: [turn], status });

describe('MemoryControlDecider', () => {
  describe('confirming a contradiction', () => {
    const contradicted = memory({
      kind: 'profile',
      attribute: 'allergy:青霉素',
      value: 'none',
      content: '我可以用青霉素',
      pinned: true,
      version: 2,
      revision: 2,
      conflict: {
        previousVersion: 1,
        previousValue: '青霉素',
        previousContent: '我对青霉素过敏',
        previousFrom: '2026-12-01T09:00:00.000Z',
        since: '2026-12-04T09:00:00.000Z',
      },
    });

    it('given a memory in conflict, when the user confirms it, then MemoryReinforced without the note, no longer pinned', () => {
      const [decision] = MemoryControlDecider.decide(confirmation(contradicted.memoryId), stateOf(contradicted));
      expect(decision).toMatchObject({
        type: 'MemoryReinforced',
        occurredAt: REQUESTED,
        payload: { itemId: null, memory: { value: 'none', pinned: false, revision: 3, version: 2, updatedAt: REQUESTED } },
      });
      expect(decision.payload.memory.conflict).toBeUndefined();
    });

    it('given a constraint said again after it was denied, when confirmed, then it stays pinned', () => {
      const restored = memory({ ...contradicted, value: '青霉素', content: '我对青霉素过敏', version: 3, revision: 3 });
      const [decision] = MemoryControlDecider.decide(confirmation(restored.memoryId), stateOf(restored));
      expect(decision.payload.memory).toMatchObject({ value: '青霉素', pinned: true, revision: 4 });
    });

    it('given nothing to confirm (no conflict, not active, unknown), then nothing is decided', () => {
      const { conflict: _none, ...settled } = contradicted;
      expect(MemoryControlDecider.decide(confirmation(settled.memoryId), stateOf(settled))).toEqual([]);
      const retracted = memory({ ...contradicted, status: 'retracted' });
      expect(MemoryControlDecider.decide(confirmation(retracted.memoryId), stateOf(retracted))).toEqual([]);
      expect(MemoryControlDecider.decide(confirmation('no-such-memory'), stateOf(contradicted))).toEqual([]);
    });

    it('given a memory in conflict, when the user reverts it to the contradicted version, then the note goes with it', () => {
      const withHistory = memory({
        ...contradicted,
        history: [
          {
            version: 1,
            value: '青霉素',
            content: '我对青霉素过敏',
            validFrom: '2026-12-01T09:00:00.000Z',
            validTo: '2026-12-04T09:00:00.000Z',
            recordedAt: '2026-12-01T09:00:00.000Z',
            supersededAt: '2026-12-04T09:00:00.000Z',
            sourceTurnIds: ['t1'],
          },
        ],
      });
      const [decision] = MemoryControlDecider.decide(revert(withHistory.memoryId, 1), stateOf(withHistory));
      expect(decision.payload.memory).toMatchObject({ value: '青霉素', version: 3 });
      expect(decision.payload.memory.conflict).toBeUndefined();
    });
  });

  it('retracts an active memory with the reason, and the episode of the turn that said it', () => {
    const durian = memory({ attribute: 'food', value: '榴莲', content: '我喜欢吃榴莲', sourceTurnIds: ['t9'] });
    const said = episodeOf('t9', '我喜欢吃榴莲');
    const other = episodeOf('t8', '我用 VS Code');
    const decisions = MemoryControlDecider.decide(retraction(durian.memoryId, '不想再被提起'), stateOf(durian, said, other));
    expect(decisions.map((d) => [d.type, d.payload.memory.memoryId, d.payload.memory.status])).toEqual([
      ['MemoryRetracted', durian.memoryId, 'retracted'],
      ['MemoryRetracted', said.memoryId, 'retracted'],
    ]);
    expect(decisions[0].payload.memory).toMatchObject({
      statusReason: '不想再被提起',
      validTo: REQUESTED,
      revision: 2,
      updatedAt: REQUESTED,
    });
    expect(decisions[0].causationId).toBe('cmd-MemoryRetractionRequested');
  });

  it('keeps an episode whose turn also said something still true', () => {
    const gift = memory({ attribute: 'budget:gift', value: '两千', sourceTurnIds: ['t1'] });
    const birthday = memory({ attribute: 'birthday', value: '10月18日', sourceTurnIds: ['t1'] });
    const said = episodeOf('t1', '她 10 月 18 号生日，预算两千左右');
    const decisions = MemoryControlDecider.decide(retraction(gift.memoryId), stateOf(gift, birthday, said));
    expect(decisions.map((d) => d.payload.memory.memoryId)).toEqual([gift.memoryId]);
  });

  it('decides nothing for a memory that is gone, already retracted, of another user, or an insight', () => {
    const retracted = memory({ status: 'retracted' });
    const foreign = memory({ userId: 'someone-else', attribute: 'city' });
    const insight = memory({ kind: 'insight', mergeKey: 'insight:low-maintenance', attribute: 'insight' });
    const state = stateOf(retracted, foreign, insight);
    for (const id of ['missing', retracted.memoryId, foreign.memoryId, insight.memoryId]) {
      expect(MemoryControlDecider.decide(retraction(id), state)).toEqual([]);
    }
    // (Reverting a retracted memory restores it: tested below.)
    for (const id of ['missing', foreign.memoryId, insight.memoryId]) {
      expect(MemoryControlDecider.decide(revert(id, 1), state)).toEqual([]);
    }
  });

  it('restores an earlier value as a new version, keeping the one it replaces in history', () => {
    const said = episodeOf('t2', '预算提到五万了');
    const [restored, ...rest] = MemoryControlDecider.decide(
      revert(budget.memoryId, 1),
      stateOf(budget, said, episodeOf('t1', '预算控制在三万以内', 'retracted')),
    );
    expect(restored.type).toBe('MemorySuperseded');
    expect(restored.payload.memory).toMatchObject({
      value: '三万',
      content: '预算控制在三万以内',
      version: 3,
      revision: 3,
      status: 'active',
      validFrom: REQUESTED,
      validTo: null,
      sourceTurnIds: ['t1'],
    });
    expect(restored.payload.memory.history.map((v) => [v.version, v.value, v.validTo, v.supersededAt])).toEqual([
      [1, '三万', '2026-12-05T08:00:00.000Z', '2026-12-05T08:00:00.000Z'],
      [2, '五万', REQUESTED, REQUESTED],
    ]);
    // The turn that said 五万 no longer answers "what is the budget".
    expect(rest.map((d) => [d.type, d.payload.memory.memoryId])).toEqual([['MemoryRetracted', said.memoryId]]);
  });

  it('restores a retracted memory by reverting to its current version, dropping the retraction reason', () => {
    const retracted = {
      ...budget,
      status: 'retracted' as const,
      statusReason: 'oops',
      validTo: '2026-12-06T00:00:00.000Z',
      updatedAt: '2026-12-06T00:00:00.000Z',
      revision: 3,
    };
    const [restored] = MemoryControlDecider.decide(revert(retracted.memoryId, 2), stateOf(retracted));
    expect(restored.payload.memory).toMatchObject({ status: 'active', value: '五万', version: 3, revision: 4 });
    expect(restored.payload.memory.statusReason).toBeUndefined();
    expect(restored.payload.memory.history[1]).toMatchObject({
      version: 2,
      validTo: '2026-12-06T00:00:00.000Z',
      supersededAt: '2026-12-06T00:00:00.000Z',
    });
  });

  it('says which versions cannot be reverted to', () => {
    expect(revertTarget(budget, 3)).toEqual({ error: 'unknown-version' });
    expect(revertTarget(budget, 2)).toEqual({ error: 'current-version' });
    expect(revertTarget(budget, 1)).toMatchObject({ target: { version: 1, value: '三万' } });
  });

  it('decides the same on replay: deterministic ids, and the evolved state takes nothing new', () => {
    const state = stateOf(budget);
    const first = MemoryControlDecider.decide(revert(budget.memoryId, 1), state);
    expect(MemoryControlDecider.decide(revert(budget.memoryId, 1), state)).toEqual(first);
    const after = first.reduce(ResolutionDecider.evolve, state);
    expect(first.reduce(ResolutionDecider.evolve, after)).toBe(after);
  });
});

describe('profileExtraction', () => {
  const update = (attributes: { attribute: string; value: string }[]): ProfileUpdateRequested =>
    envelope('ProfileUpdateRequested', { attributes, requestedAt: REQUESTED }, `profile-${attributes.map((a) => a.value).join()}`);
  const options = { similarityThreshold: 0.85, recordedAt: REQUESTED };

  it('adds certain profile facts under the merge keys conversation uses', () => {
    const decisions = ResolutionDecider.decide(
      profileExtraction(
        update([
          { attribute: 'city', value: '杭州' },
          { attribute: 'name', value: '老周' },
        ]),
      ),
      new Map(),
      options,
    );
    expect(
      decisions.map((d) => [
        d.type,
        d.payload.memory.mergeKey,
        d.payload.memory.kind,
        d.payload.memory.confidence,
        d.payload.memory.pinned,
      ]),
    ).toEqual([
      ['MemoryAdded', 'user/city', 'profile', 1, false],
      ['MemoryAdded', 'user/name', 'profile', 1, true],
    ]);
    expect(decisions[0].payload.memory.content).toBe('city: 杭州');
  });

  it('supersedes what was said in conversation, keeping the old value', () => {
    const said = memory({ kind: 'profile', attribute: 'city', value: '北京', content: '我住在北京', sourceTurnIds: ['t1'] });
    const [decision] = ResolutionDecider.decide(profileExtraction(update([{ attribute: 'city', value: '上海' }])), stateOf(said), options);
    expect(decision.type).toBe('MemorySuperseded');
    expect(decision.payload.memory).toMatchObject({ memoryId: said.memoryId, value: '上海', version: 2 });
    expect(decision.payload.memory.history.map((v) => v.value)).toEqual(['北京']);
  });
});

describe("MemoryControlDecider (deciderSpec): retract and revert over the user's memories", () => {
  const control = deciderSpec(MemoryControlDecider);

  it('given a memory and the episode of its turn, when the application retracts it, then both are retracted', () => {
    const durian = memory({ attribute: 'food', value: '榴莲', content: '我喜欢吃榴莲', sourceTurnIds: ['t9'] });
    const said = episodeOf('t9', '我喜欢吃榴莲');
    control
      .given([memoryAdded(durian), memoryAdded(said)])
      .when(retraction(durian.memoryId, '不想再被提起'))
      .then((events, state) => {
        expect(events.map((d) => [d.type, d.payload.memory.memoryId])).toEqual([
          ['MemoryRetracted', durian.memoryId],
          ['MemoryRetracted', said.memoryId],
        ]);
        expect(state.get(durian.memoryId)).toMatchObject({ status: 'retracted', statusReason: '不想再被提起', revision: 2 });
        expect(state.get(said.memoryId)?.status).toBe('retracted');
      });
  });

  it('given a retracted memory, when it is retracted again, then nothing', () => {
    control
      .given([memoryAdded(memory({ status: 'retracted' }))])
      .when(retraction(memory().memoryId))
      .thenNothing();
  });

  it('given no such memory, when it is retracted or reverted, then nothing', () => {
    control.given([]).when(retraction('missing')).thenNothing();
    control.given([]).when(revert('missing', 1)).thenNothing();
  });

  it('given a superseded budget, when reverted to version 1, then 三万 is version 3 and 五万 moves to history', () => {
    control
      .given([memoryAdded(budget)])
      .when(revert(budget.memoryId, 1))
      .then((events, state) => {
        expect(events.map((d) => d.type)).toEqual(['MemorySuperseded']);
        expect(state.get(budget.memoryId)).toMatchObject({ value: '三万', version: 3, revision: 3, status: 'active' });
        expect(state.get(budget.memoryId)?.history.map((v) => v.value)).toEqual(['三万', '五万']);
      });
  });

  it('given a revert decided and evolved, when the same command comes again, then the same decision, and evolving it changes nothing', () => {
    const command = revert(budget.memoryId, 1);
    const first = control
      .given([memoryAdded(budget)])
      .when(command)
      .result();
    expect(
      control
        .given([memoryAdded(budget)])
        .when(command)
        .then(first.events),
    ).toEqual(first.events);
    expect(first.events.reduce(MemoryControlDecider.evolve, first.state)).toBe(first.state);
  });
});
