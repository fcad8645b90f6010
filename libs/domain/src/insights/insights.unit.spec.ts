import 'reflect-metadata'; // @engram/contracts' validation decorators need it
import { parseEvent, type MemoriesExtracted, type MemoryDecision } from '@engram/contracts';
import { memoryAsOf } from '../recall/as-of';
import { LAST_MENTIONED, type ExtractedItemDraft } from '../extraction/extraction.strategy';
import { DEFAULT_INSIGHT_RULES, insightRulesWith, parseInsightRules, type InsightRule } from './insights.config';
import { compileInsightRules, InsightDecider, insightMergeKey, withoutInsights, type CompiledInsightRules } from './insights';
import { ResolutionDecider, type ResolverState } from '../resolution/resolution.decider';
import { deciderSpec } from '../testing/decider-spec';
import { extracted } from '../testing/fixtures';

/**
 * The resolver as the stage runs it: item resolution on the state without insights, then the
 * insight decider on the evolved state, caused by the decisions just made.
 */
function resolverWith(rules: CompiledInsightRules) {
  return {
    initialState: ResolutionDecider.initialState,
    evolve: ResolutionDecider.evolve,
    decide(command: MemoriesExtracted, state: ResolverState): MemoryDecision[] {
      const decisions = ResolutionDecider.decide(command, withoutInsights(state), {
        similarityThreshold: 0.85,
        recordedAt: command.recordedAt,
      });
      if (decisions.length === 0) return [];
      const evolved = decisions.reduce(ResolutionDecider.evolve, state);
      const insights = InsightDecider.decide(
        {
          tenantId: command.tenantId,
          userId: command.userId,
          triggerId: command.eventId,
          correlationId: command.correlationId,
          occurredAt: command.occurredAt,
          changes: decisions,
        },
        evolved,
        { rules, recordedAt: command.recordedAt },
      );
      return [...decisions, ...insights];
    },
  };
}

const defaults = resolverWith(compileInsightRules());
const spec = deciderSpec(defaults);

const at = (day: number) => `2026-11-${String(day).padStart(2, '0')}T08:00:00.000Z`;
let turn = 0;
/** One turn saying one thing: a fact or preference, with its own source turn. */
function said(content: string, day: number, extra: Partial<ExtractedItemDraft> = {}): MemoriesExtracted {
  turn++;
  return extracted(
    [
      {
        kind: 'fact',
        attribute: `topic-${turn}`,
        value: content,
        content,
        entities: [],
        validFrom: at(day),
        sourceTurnIds: [`t${turn}`],
        ...extra,
      },
    ],
    {
      eventId: `said-${turn}`,
    },
  );
}

/** The decisions of a sequence of commands, each decided on the state the previous ones left. */
function history(...commands: MemoriesExtracted[]): MemoryDecision[] {
  let state = defaults.initialState();
  const events: MemoryDecision[] = [];
  for (const command of commands) {
    for (const event of defaults.decide(command, state)) {
      events.push(event);
      state = defaults.evolve(state, event);
    }
  }
  return events;
}

const insightsOf = (events: readonly MemoryDecision[]) => events.filter((e) => e.payload.memory.kind === 'insight');
const nonInsights = (events: readonly MemoryDecision[]) => events.filter((e) => e.payload.memory.kind !== 'insight');

describe('InsightDecider — low-maintenance managed services (zh)', () => {
  const smallTeam = () => said('我们团队人少', 1, { attribute: 'team', value: '人少' });
  const noOps = () => said('我不想自己运维数据库', 2, { kind: 'preference', attribute: 'preference:自己运维数据库', value: 'dislike' });
  const cloudCost = () => said('云数据库太贵了', 3, { attribute: 'cloud-database-cost' });

  it('given two consistent statements, when a third arrives, then one insight is derived, linked to all three', () => {
    const given = history(smallTeam(), noOps());
    expect(insightsOf(given)).toEqual([]);
    const third = cloudCost();
    const events = spec
      .given(given)
      .when(third)
      .then((events) => {
        expect(events.map((e) => e.type)).toEqual(['MemoryAdded', 'MemoryAdded']);
      });
    const [insight] = insightsOf(events);
    const sources = [...nonInsights(given), ...nonInsights(events)].map((e) => e.payload.memory);
    expect(insight.payload.memory).toMatchObject({
      kind: 'insight',
      mergeKey: 'insight:low-maintenance',
      subject: 'user',
      status: 'active',
      version: 1,
      revision: 1,
      value: '偏好省心、免运维的托管服务',
      content: '偏好省心、免运维的托管服务（依据：我们团队人少；我不想自己运维数据库；云数据库太贵了）',
      sources: sources.map((m) => m.memoryId),
      sourceTurnIds: sources.flatMap((m) => m.sourceTurnIds),
      pinned: false,
      mentionCount: 3,
      validFrom: at(3),
    });
    // Ranked above its sources: more important than any of them, confidence from three statements at 0.8.
    expect(insight.payload.memory.importance).toBeGreaterThan(Math.max(...sources.map((m) => m.importance)));
    expect(insight.payload.memory.confidence).toBeCloseTo(1 - 0.6 ** 3, 4);
    // Caused by the decision that brought support to the minimum.
    expect(insight.causationId).toBe(nonInsights(events)[0].eventId);
    expect(insight.correlationId).toBe(third.correlationId);
    // A valid event, as every consumer will parse it.
    expect(parseEvent(JSON.parse(JSON.stringify(insight)))).toEqual(insight);
  });

  it('given one statement, when a second arrives, then nothing is derived (below the minimum of 3)', () => {
    spec
      .given(history(smallTeam()))
      .when(noOps())
      .then((events) => expect(insightsOf(events)).toEqual([]));
  });

  it('given three complaints about price, then the budget-conscious insight, not the low-maintenance one (it needs two reasons)', () => {
    const events = history(said('这个太贵了', 1), said('有没有便宜点的', 2), said('我们预算有限', 3));
    expect(insightsOf(events).map((e) => e.payload.memory.mergeKey)).toEqual(['insight:budget-conscious']);
    expect(insightsOf(events)[0].payload.memory.value).toBe('预算敏感，看重性价比');
  });

  it('given a fact and the episode of the same turn, then they count as one statement', () => {
    const episode = (content: string, sourceTurn: string, day: number) =>
      extracted([
        {
          kind: 'episode',
          attribute: `episode:s:${sourceTurn}`,
          value: '',
          content,
          entities: [],
          validFrom: at(day),
          sourceTurnIds: [sourceTurn],
        },
      ]);
    const noOpsFact = said('我不想自己运维数据库', 2, {
      kind: 'preference',
      attribute: 'preference:自己运维数据库',
      value: 'dislike',
      sourceTurnIds: ['same-turn'],
    });
    const events = history(smallTeam(), noOpsFact, episode('我不想自己运维数据库，太麻烦', 'same-turn', 2));
    expect(insightsOf(events)).toEqual([]);
    const derived = insightsOf(history(smallTeam(), noOpsFact, episode('我不想自己运维数据库，太麻烦', 'same-turn', 2), cloudCost()));
    expect(derived).toHaveLength(1);
    expect(derived[0].payload.memory.sources).toHaveLength(4);
    expect(derived[0].payload.memory.mentionCount).toBe(3);
    // The statement is quoted once, in the user's words (the episode).
    expect(derived[0].payload.memory.content).toBe(
      '偏好省心、免运维的托管服务（依据：我们团队人少；我不想自己运维数据库，太麻烦；云数据库太贵了）',
    );
  });

  it("given an insight resting on a turn's episode and fact, when the user corrects that turn, then the episode stops supporting too", () => {
    const episode = (content: string, sourceTurn: string, day: number) =>
      extracted(
        [
          {
            kind: 'episode',
            attribute: `episode:s:${sourceTurn}`,
            value: '',
            content,
            entities: [],
            validFrom: at(day),
            sourceTurnIds: [sourceTurn],
          },
        ],
        {
          eventId: `episode-${sourceTurn}`,
        },
      );
    const pref = (value: string, content: string, sourceTurn: string, day: number) =>
      extracted(
        [
          {
            kind: 'preference',
            attribute: 'preference:自己运维服务器',
            value,
            content,
            entities: [],
            validFrom: at(day),
            sourceTurnIds: [sourceTurn],
          },
        ],
        {
          eventId: `pref-${sourceTurn}`,
        },
      );
    const given = history(
      smallTeam(),
      pref('dislike', '我不想自己运维服务器', 'ops-turn', 2),
      episode('我不想自己运维服务器', 'ops-turn', 2),
      cloudCost(),
    );
    expect(insightsOf(given)).toHaveLength(1);
    const correction = pref('like', '其实我现在挺喜欢自己运维服务器的', 'later-turn', 5);
    spec
      .given(given)
      .when(correction)
      .then((events) => {
        // (The resolver may also retire the corrected turn's episode itself; either way it supports no more.)
        const kinds = events.filter((e) => e.payload.memory.kind !== 'episode').map((e) => [e.type, e.payload.memory.kind]);
        expect(kinds).toEqual([
          ['MemorySuperseded', 'preference'],
          ['MemoryRetracted', 'insight'],
        ]);
      });
  });

  it('given an insight, when a fourth statement arrives, then it is updated: version 2, the old version and its sources in history', () => {
    const given = history(smallTeam(), noOps(), cloudCost());
    const before = insightsOf(given)[0].payload.memory;
    const fourth = said('我们更想用托管服务', 4, { kind: 'preference', attribute: 'preference:托管服务', value: 'like' });
    const events = spec
      .given(given)
      .when(fourth)
      .then((events) => expect(events.map((e) => e.type)).toEqual(['MemoryAdded', 'MemorySuperseded']));
    const after = insightsOf(events)[0];
    expect(after.payload.memory).toMatchObject({
      memoryId: before.memoryId,
      version: 2,
      revision: 2,
      mentionCount: 4,
      status: 'active',
      validFrom: at(4),
    });
    expect(after.payload.memory.sources).toEqual([...before.sources!, nonInsights(events)[0].payload.memory.memoryId]);
    expect(after.payload.memory.history).toEqual([
      expect.objectContaining({ version: 1, content: before.content, sources: before.sources, validFrom: at(3), validTo: at(4) }),
    ]);
    expect(after.payload.memory.confidence).toBeGreaterThan(before.confidence);
    expect(after.causationId).toBe(nonInsights(events)[0].eventId);
  });

  it('given an insight with four statements, when one is retracted, then it is updated (not retracted), starting at the correction', () => {
    const given = history(
      smallTeam(),
      noOps(),
      cloudCost(),
      said('我们更想用托管服务', 4, { kind: 'preference', attribute: 'preference:托管服务', value: 'like' }),
    );
    const before = insightsOf(given).at(-1)!.payload.memory;
    const retract = said('', 9, { attribute: 'cloud-database-cost', value: '', content: '忘掉云数据库太贵这件事', operation: 'retract' });
    const events = spec
      .given(given)
      .when(retract)
      .then((events) => expect(events.map((e) => e.type)).toEqual(['MemoryRetracted', 'MemorySuperseded']));
    const after = insightsOf(events)[0].payload.memory;
    expect(after).toMatchObject({ status: 'active', version: 3, mentionCount: 3, validFrom: at(9) });
    expect(after.sources).toEqual(before.sources!.filter((id) => id !== events[0].payload.memory.memoryId));
    expect(after.history.at(-1)).toMatchObject({ version: 2, validFrom: at(4), validTo: at(9) });
  });

  it('as of before the update, the insight is its first version with its first sources', () => {
    const events = history(
      smallTeam(),
      noOps(),
      cloudCost(),
      said('我们更想用托管服务', 4, { kind: 'preference', attribute: 'preference:托管服务', value: 'like' }),
    );
    const [first, second] = insightsOf(events).map((e) => e.payload.memory);
    const then = memoryAsOf(second, '2026-11-03T12:00:00.000Z'); // recorded at day 3, updated at day 4
    expect(then).toMatchObject({ version: 1, content: first.content, sources: first.sources });
    expect(memoryAsOf(second, second.updatedAt)).toMatchObject({ version: 2, sources: second.sources });
  });

  it('given an insight, when a source is reinforced (said again, same memory), then nothing changes', () => {
    const given = history(smallTeam(), noOps(), cloudCost());
    spec
      .given(given)
      .when(said('云数据库太贵了', 5, { attribute: 'cloud-database-cost' }))
      .then((events) => {
        expect(events.map((e) => e.type)).toEqual(['MemoryReinforced']);
      });
  });

  it('given an insight, when a source is superseded by a value that no longer supports it, then the insight is retracted', () => {
    const given = history(smallTeam(), noOps(), cloudCost());
    const insight = insightsOf(given)[0].payload.memory;
    const grown = said('我们团队现在有二十人了', 6, { attribute: 'team', value: '二十人' });
    const events = spec
      .given(given)
      .when(grown)
      .then((events) => expect(events.map((e) => e.type)).toEqual(['MemorySuperseded', 'MemoryRetracted']));
    const retracted = insightsOf(events)[0];
    expect(retracted.payload.memory).toMatchObject({
      memoryId: insight.memoryId,
      status: 'retracted',
      revision: 2,
      version: 1,
      validTo: at(6),
      sources: insight.sources,
    });
    expect(retracted.causationId).toBe(events[0].eventId);
  });

  it('given an insight, when a source is retracted, then the insight is retracted; when support returns, it is derived again (version 2)', () => {
    const given = history(smallTeam(), noOps(), cloudCost());
    const retract = said('', 7, { attribute: 'cloud-database-cost', value: '', content: '忘掉云数据库太贵这件事', operation: 'retract' });
    const afterRetract = [
      ...given,
      ...spec
        .given(given)
        .when(retract)
        .then((events) => expect(events.map((e) => e.type)).toEqual(['MemoryRetracted', 'MemoryRetracted'])),
    ];
    expect(insightsOf(afterRetract).at(-1)!.payload.memory.status).toBe('retracted');

    const back = said('服务器太贵了，运维成本也高', 8, { attribute: 'server-cost' });
    const events = spec
      .given(afterRetract)
      .when(back)
      .then((events) => expect(events.map((e) => e.type)).toEqual(['MemoryAdded', 'MemorySuperseded']));
    const rederived = insightsOf(events)[0].payload.memory;
    expect(rederived).toMatchObject({ status: 'active', version: 2, revision: 3, validTo: null, validFrom: at(8) });
    expect(rederived.history).toEqual([expect.objectContaining({ version: 1, validTo: at(7) })]);
  });

  it('is idempotent: a replay decides the same events with the same ids, and re-deciding on the result changes nothing', () => {
    const commands = () => {
      turn = 100;
      return [smallTeam(), noOps(), cloudCost(), said('我们团队现在有二十人了', 6, { attribute: 'team', value: '二十人' })];
    };
    const once = history(...commands());
    const twice = history(...commands());
    expect(twice).toEqual(once);
    expect(insightsOf(once).map((e) => e.type)).toEqual(['MemoryAdded', 'MemoryRetracted']);
    // The projection's view: applying the decisions twice holds the same state, and the decider finds nothing to do on it.
    const state = [...once, ...once].reduce(ResolutionDecider.evolve, ResolutionDecider.initialState());
    expect(state).toEqual(once.reduce(ResolutionDecider.evolve, ResolutionDecider.initialState()));
    const review = { tenantId: 'acme', userId: 'u-1', triggerId: 'again', correlationId: 'again', occurredAt: at(9), changes: [] };
    expect(InsightDecider.decide(review, state, { rules: compileInsightRules(), recordedAt: at(9) })).toEqual([]);
  });

  it('decides only the rules an event touches, and that decides exactly what deciding every rule would', () => {
    // The oracle: every memory of the state offered as changed, so every rule with a match or an insight is decided.
    const everyRule = (state: ResolverState, at: string) =>
      InsightDecider.decide(
        {
          tenantId: 'acme',
          userId: 'u-1',
          triggerId: 'oracle',
          correlationId: 'oracle',
          occurredAt: at,
          changes: [...state.values()].map((memory) => ({ type: 'MemoryAdded', payload: { memory, itemId: null } }) as MemoryDecision),
        },
        state,
        { rules: compileInsightRules(), recordedAt: at },
      ).map((d) => [d.type, d.payload.memory.mergeKey, d.payload.memory.sources]);
    const episode = (content: string, sourceTurn: string, day: number) =>
      extracted(
        [
          {
            kind: 'episode',
            attribute: `episode:s:${sourceTurn}`,
            value: '',
            content,
            entities: [],
            validFrom: at(day),
            sourceTurnIds: [sourceTurn],
          },
        ],
        { eventId: `ep-${sourceTurn}` },
      );
    const commands = [
      said('我喜欢吃火锅', 1, { kind: 'preference', attribute: 'preference:火锅', value: 'like' }),
      smallTeam(),
      said('I moved to Berlin last year', 1),
      noOps(),
      episode('我不想自己运维数据库，周末还要值班', 'ops', 2),
      // A fact of the same turn that matches no cue: correcting it takes the turn's episode out of the support.
      extracted(
        [
          {
            kind: 'fact',
            attribute: 'hosting',
            value: 'managed',
            content: 'hosting: managed',
            entities: [],
            validFrom: at(2),
            sourceTurnIds: ['ops'],
          },
        ],
        { eventId: 'hosting-1' },
      ),
      said('我周末去爬山了', 3),
      cloudCost(),
      said('hosting: on-premises', 5, { attribute: 'hosting', value: 'on-premises' }),
      said('我们团队现在有二十人了', 6, { attribute: 'team', value: '二十人' }),
      said('云服务器也太贵了', 7, { attribute: 'server-cost' }),
      said('', 8, { attribute: 'cloud-database-cost', value: '', content: '忘掉云数据库太贵这件事', operation: 'retract' }),
      said('我们团队人又少了', 9, { attribute: 'team', value: '人少' }),
    ];
    let state = defaults.initialState();
    let decidedAlone = 0;
    for (const command of commands) {
      const events = defaults.decide(command, state);
      const itemEvents = nonInsights(events);
      const evolved = itemEvents.reduce(ResolutionDecider.evolve, state);
      const skipped = insightsOf(events).map((d) => [d.type, d.payload.memory.mergeKey, d.payload.memory.sources]);
      if (itemEvents.length > 0) expect(skipped).toEqual(everyRule(evolved, command.recordedAt));
      if (skipped.length > 0) decidedAlone++;
      state = events.reduce(ResolutionDecider.evolve, state);
    }
    expect(decidedAlone).toBeGreaterThanOrEqual(3); // the scenario does derive, update and retract
  });

  it('is never the target of "that\'s no longer true": the anaphora lands on the newest source', () => {
    const given = history(smallTeam(), noOps(), cloudCost());
    const anaphora = extracted([
      {
        kind: 'fact',
        attribute: LAST_MENTIONED,
        value: '',
        content: '这个已经不对了',
        operation: 'retract',
        validFrom: at(9),
        sourceTurnIds: ['t-x'],
      },
    ]);
    spec
      .given(given)
      .when(anaphora)
      .then((events) => {
        expect(events.map((e) => [e.type, e.payload.memory.kind])).toEqual([
          ['MemoryRetracted', 'fact'],
          ['MemoryRetracted', 'insight'],
        ]);
      });
  });
});

describe('InsightDecider (en) and languages', () => {
  it('given three English statements, then the insight is in English', () => {
    const events = history(
      said('Our team is small', 1, { attribute: 'team', value: 'small' }),
      said("I don't want to run my own servers", 2, { kind: 'preference', attribute: 'preference:run-my-own-servers', value: 'dislike' }),
      said('The cloud database bill is too expensive', 3),
    );
    const [insight] = insightsOf(events);
    expect(insight.payload.memory).toMatchObject({
      mergeKey: 'insight:low-maintenance',
      value: 'Prefers low-maintenance managed services',
      content:
        "Prefers low-maintenance managed services (based on: Our team is small; I don't want to run my own servers; The cloud database bill is too expensive)",
    });
  });

  it('given two Chinese statements and one English, then the insight is in Chinese (the majority)', () => {
    const events = history(said('I usually get up at 5am', 1), said('我习惯早起', 2), said('每天早上六点晨跑', 3));
    const [insight] = insightsOf(events);
    expect(insight.payload.memory.mergeKey).toBe('insight:early-riser');
    expect(insight.payload.memory.content).toBe('习惯早起（依据：I usually get up at 5am；我习惯早起；每天早上六点晨跑）');
  });

  it('given an excluded cue, then the memory does not count ("我不熬夜" is not a night owl)', () => {
    expect(insightsOf(history(said('我经常熬夜', 1), said('我不熬夜了', 2), said('I often stay up late', 3)))).toEqual([]);
    expect(insightsOf(history(said('我经常熬夜', 1), said('凌晨两点还在写代码', 2), said('I often stay up late', 3)))).toHaveLength(1);
  });

  it('ignores memories about someone else and episodes of the assistant', () => {
    const events = history(
      said('我老婆总是熬夜', 1, { subject: 'wife' }),
      said('我经常熬夜', 2),
      said('凌晨两点还在写代码', 3),
      extracted([
        {
          kind: 'episode',
          subject: 'assistant',
          attribute: 'episode:s:a1',
          value: '',
          content: '熬夜对身体不好',
          entities: [],
          validFrom: at(4),
          sourceTurnIds: ['a1'],
        },
      ]),
    );
    expect(insightsOf(events)).toEqual([]);
  });
});

describe('insight rules as configuration', () => {
  const custom: InsightRule = {
    id: 'tea-lover',
    label: { zh: '爱喝茶', en: 'Loves tea' },
    minSupport: 2,
    groups: [{ id: 'tea', cues: ['绿茶', '红茶', 'green tea', 'oolong'] }],
  };

  it('a configured rule derives its insight with its own minimum', () => {
    const withTea = resolverWith(compileInsightRules(insightRulesWith([custom])));
    let state = withTea.initialState();
    const events: MemoryDecision[] = [];
    for (const command of [said('我喜欢喝绿茶', 1), said('I drink oolong every afternoon', 2)]) {
      const decided = withTea.decide(command, state);
      events.push(...decided);
      state = decided.reduce(withTea.evolve, state);
    }
    expect(insightsOf(events).map((e) => e.payload.memory.mergeKey)).toEqual([insightMergeKey('tea-lover')]);
  });

  it('a configured rule replaces the default of the same id; other defaults stay', () => {
    const rules = insightRulesWith([{ ...custom, id: 'night-owl' }]);
    expect(rules.map((r) => r.id)).toEqual([...DEFAULT_INSIGHT_RULES.map((r) => r.id).filter((id) => id !== 'night-owl'), 'night-owl']);
    expect(rules.find((r) => r.id === 'night-owl')!.label.en).toBe('Loves tea');
  });

  it('the global minimum applies to rules that set none', () => {
    const two = resolverWith(compileInsightRules(DEFAULT_INSIGHT_RULES, 2));
    let state = two.initialState();
    const events: MemoryDecision[] = [];
    for (const command of [said('我经常熬夜', 1), said('I often stay up late', 2)]) {
      const decided = two.decide(command, state);
      events.push(...decided);
      state = decided.reduce(two.evolve, state);
    }
    expect(insightsOf(events).map((e) => e.payload.memory.mergeKey)).toEqual(['insight:night-owl']);
  });

  it('validation names each bad field', () => {
    expect(parseInsightRules(JSON.stringify([custom]))).toEqual({ rules: [custom] });
    expect(parseInsightRules('{')).toEqual({ problems: [expect.stringContaining('must be JSON')] });
    expect(parseInsightRules('{}')).toEqual({ problems: ['must be a JSON array of rules'] });
    const bad = parseInsightRules(
      JSON.stringify([
        { id: 'Bad Id', label: { zh: '', en: 'x' }, groups: [{ id: 'g', cues: [] }], minSupport: 1, minGroups: 2, importance: 2 },
        { ...custom },
        { ...custom, exclude: [3] },
      ]),
    );
    expect(bad).toEqual({
      problems: [
        '[0].id: a slug of a-z, 0-9 and -',
        '[0].label: needs non-empty zh and en',
        '[0].groups.0.cues: a non-empty array of non-empty strings',
        '[0].minSupport: an integer from 2 to 50',
        '[0].minGroups: an integer from 1 to the number of groups',
        '[0].importance: a number from 0 to 1',
        '[2].id: "tea-lover" appears twice',
        '[2].exclude: an array of non-empty strings',
      ],
    });
  });

  it('the default rules are valid by the same check', () => {
    expect(parseInsightRules(JSON.stringify(DEFAULT_INSIGHT_RULES))).toEqual({ rules: DEFAULT_INSIGHT_RULES });
  });
});
