import 'reflect-metadata'; // @engram/contracts' validation decorators need it
import {
  deterministicId,
  type EngramEvent,
  EVENT_SCHEMAS,
  type ForgettingRequested,
  type MemoriesExtracted,
  type MemoriesImportRequested,
  type MemoryDecision,
  type MemoryRecord,
  type MemoryRetractionRequested,
  type MemoryRevertRequested,
  parseEvent,
  type ProfileUpdateRequested,
  STAGES,
  type UserForgotten,
} from '@engram/contracts';
import { extractTurn } from '../extraction/extraction.decider';
import { compileInsightRules } from '../insights/insights';
import { RuleExtractor } from '../rules/rule-extractor';
import { SummaryDecider, summaryMergeKey } from '../summaries/session-summary';
import { defaultAliasTable } from '../text/entity-aliases';
import { deciderSpec } from '../testing/decider-spec';
import { memory, memoryAdded, TENANT, turnScreened, USER } from '../testing/fixtures';
import { ResolutionDecider, type ResolverState } from './resolution.decider';
import {
  isResolverCommand,
  ResolverDecider,
  type ResolverCommand,
  type ResolverDeciderOptions,
  type ResolverEvent,
} from './resolver.decider';

/**
 * The resolver end to end: what each event it consumes decides, and in what order — the decisions
 * of the event's own decider, then the session summary, then the insights. Extractions are the rule
 * extractor's, from screened turns, as the pipeline makes them.
 */
const OPTIONS: ResolverDeciderOptions = {
  similarityThreshold: 0.85,
  entityAliases: defaultAliasTable,
  // A small window, so a few turns make a summary.
  summary: { window: 2, every: 2, maxChars: 2000 },
  insightRules: compileInsightRules(),
};
const spec = deciderSpec(ResolverDecider, OPTIONS);
const rules = new RuleExtractor();

const at = (day: number) => `2026-11-${String(day).padStart(2, '0')}T08:00:00.000Z`;

/** The extraction of one user turn, said on `day` in session s-1. */
async function said(text: string, turn: string, day: number): Promise<MemoriesExtracted> {
  const extracted = await extractTurn(turnScreened(text, { turn, at: at(day) }), rules, at(day));
  if (!extracted) throw new Error(`nothing extracted from ${text}`);
  return extracted;
}

/** What the resolver decides for these events in turn, each on the state the ones before left. */
function decided(...commands: ResolverCommand[]): ResolverEvent[] {
  let state = ResolverDecider.initialState();
  const events: ResolverEvent[] = [];
  for (const command of commands) {
    const made = ResolverDecider.decide(command, state, OPTIONS);
    state = made.reduce(ResolverDecider.evolve, state);
    events.push(...made);
  }
  return events;
}

function command<T extends EngramEvent['type'], P>(type: T, payload: P, day: number, eventId = `cmd-${type}-${day}`) {
  return {
    eventId,
    type,
    schemaVersion: 1,
    tenantId: TENANT,
    userId: USER,
    occurredAt: at(day),
    recordedAt: at(day),
    causationId: null,
    correlationId: `corr-${eventId}`,
    payload,
  };
}

const forgotten = (day: number): UserForgotten => command('UserForgotten', { requestedAt: at(day) }, day);
const memoriesOf = (events: readonly ResolverEvent[]): MemoryRecord[] =>
  events.flatMap((e) => (e.type === 'UserForgotten' ? [] : [e.payload.memory]));
const isSummary = (e: ResolverEvent) => e.type !== 'UserForgotten' && e.payload.memory.kind === 'summary';
const isInsight = (e: ResolverEvent) => e.type !== 'UserForgotten' && e.payload.memory.kind === 'insight';

describe('ResolverDecider: extractions', () => {
  it('given nothing, when an extraction arrives, then its items are resolved, recorded at its instant, caused by it', async () => {
    const extraction = await said('我喜欢用 VS Code', 't1', 1);
    spec
      .given([])
      .when(extraction)
      .then((events) => {
        expect(events.map((e) => e.type)).toEqual(extraction.payload.items.map(() => 'MemoryAdded'));
        expect(memoriesOf(events).map((m) => m.kind)).toEqual(['preference', 'episode']);
        for (const event of events) {
          expect(event).toMatchObject({ recordedAt: extraction.recordedAt, causationId: extraction.eventId });
          expect(() => parseEvent(event)).not.toThrow();
        }
      });
  });

  it('given an extraction mentioning an alias, then its memories carry the canonical name too', async () => {
    const events = spec
      .given([])
      .when(await said('我们的数据库用的是甲骨文数据库', 't1', 1))
      .then(() => undefined);
    expect(memoriesOf(events).every((m) => m.entities.includes('Oracle'))).toBe(true);
  });

  it('given the resolution options (sensitive facts unpinned), then item resolution decides with them', async () => {
    const allergy = await said('我对花生过敏', 't1', 1);
    const pinned = (options: ResolverDeciderOptions) =>
      memoriesOf(ResolverDecider.decide(allergy, ResolverDecider.initialState(), options))
        .filter((m) => m.attribute.startsWith('allergy:'))
        .map((m) => m.pinned);
    expect(pinned(OPTIONS)).toEqual([true]);
    expect(pinned({ ...OPTIONS, sensitiveFacts: 'unpinned' })).toEqual([false]);
  });

  it('given a memory, when the same thing is said again, then it is reinforced (its episode too: the same words)', async () => {
    spec
      .given(decided(await said('我喜欢用 VS Code', 't1', 1)))
      .when(await said('我喜欢用 VS Code', 't2', 2))
      .then((events, state) => {
        expect(events.map((e) => e.type)).toEqual(['MemoryReinforced', 'MemoryReinforced']);
        expect([...state.values()].find((m) => m.kind === 'preference')?.mentionCount).toBe(2);
      });
  });

  it('given an extraction already decided (a redelivered batch), then nothing: no summary, no insight either', async () => {
    const turns = [
      await said('我们团队只有三个人，人手不够', 't1', 1),
      await said('我不想自己运维服务器', 't2', 2),
      await said('云数据库太贵了', 't3', 3),
      await said('我喜欢用 VS Code', 't4', 4),
    ];
    spec
      .given(decided(...turns))
      .when(turns[3])
      .thenNothing();
  });
});

describe('ResolverDecider: summaries and insights, in order', () => {
  it('given two turns in the window, when a fourth pushes two out, then its decisions, then the summary over those two', async () => {
    const history = decided(
      await said('我喜欢用 VS Code', 't1', 1),
      await said('数据库用 PostgreSQL', 't2', 2),
      await said('预算控制在三万以内', 't3', 3),
    );
    expect(history.some(isSummary)).toBe(false);
    const fourth = await said('我住在上海', 't4', 4);
    spec
      .given(history)
      .when(fourth)
      .then((events, state) => {
        const summaryAt = events.findIndex(isSummary);
        expect(summaryAt).toBe(events.length - 1);
        expect(events.slice(0, summaryAt).every((e) => e.type !== 'UserForgotten' && e.causationId === fourth.eventId)).toBe(true);
        const summary = [...state.values()].find((m) => m.mergeKey === summaryMergeKey('s-1'));
        expect(summary).toMatchObject({ kind: 'summary', value: '2', sourceTurnIds: ['t1', 't2'], updatedAt: fourth.recordedAt });
      });
  });

  it('given two consistent statements, when a third arrives, then its decisions and then the insight they support', async () => {
    const third = await said('云数据库太贵了', 't3', 3);
    spec
      .given(decided(await said('我们团队只有三个人，人手不够', 't1', 1), await said('我不想自己运维服务器', 't2', 2)))
      .when(third)
      .then((events) => {
        expect(events.length).toBeGreaterThan(1);
        expect(events.map(isInsight)).toEqual(events.map((_, i) => i === events.length - 1));
        expect(events[events.length - 1]).toMatchObject({
          type: 'MemoryAdded',
          recordedAt: third.recordedAt,
          payload: { memory: { mergeKey: 'insight:low-maintenance' } },
        });
      });
  });

  it('given insights off, then the same decisions without the insight', async () => {
    const history = [await said('我们团队只有三个人，人手不够', 't1', 1), await said('我不想自己运维服务器', 't2', 2)];
    const third = await said('云数据库太贵了', 't3', 3);
    const withInsights = spec
      .given(decided(...history))
      .when(third)
      .result().events;
    deciderSpec(ResolverDecider, { ...OPTIONS, insightRules: null })
      .given(decided(...history))
      .when(third)
      .then(withInsights.filter((e) => !isInsight(e)));
  });

  it('given an insight, when the user says "that\'s no longer true", then it lands on what was said; the insight follows its sources', async () => {
    const history = decided(
      await said('我们团队只有三个人，人手不够', 't1', 1),
      await said('我不想自己运维服务器', 't2', 2),
      await said('云数据库太贵了', 't3', 3),
    );
    expect(memoriesOf(history).filter((m) => m.kind === 'insight')).toHaveLength(1);
    spec
      .given(history)
      .when(await said("that's no longer true", 't4', 4))
      .then((events) => {
        expect(events[0]).toMatchObject({
          type: 'MemoryRetracted',
          payload: { memory: { kind: 'preference', content: '我不想自己运维服务器' } },
        });
        // Retracted by the insight decider, last, because a source went: not by item resolution.
        expect(events.map(isInsight)).toEqual(events.map((_, i) => i === events.length - 1));
        expect(events[events.length - 1]).toMatchObject({ type: 'MemoryRetracted', causationId: events[0].eventId });
      });
  });
});

describe('ResolverDecider: a forgotten user', () => {
  it('given memories, when the user is forgotten, then the request is passed on unchanged and the state starts again', async () => {
    const gone = forgotten(5);
    spec
      .given(decided(await said('我喜欢用 VS Code', 't1', 1)))
      .when(gone)
      .then((events, state) => {
        expect(events).toEqual([gone]);
        expect(events[0]).toBe(gone);
        expect(state.size).toBe(0);
      });
  });

  it('given a forgotten user, when the same extraction comes again, then its memories are added anew', async () => {
    const extraction = await said('我喜欢用 VS Code', 't1', 1);
    spec
      .given([...decided(extraction), forgotten(5)])
      .when(extraction)
      .then((events) => expect(events.map((e) => e.type)).toEqual(['MemoryAdded', 'MemoryAdded']));
  });
});

describe('ResolverDecider: commands', () => {
  it('given an ephemeral memory last said 8 days ago, when forgetting runs, then it expires', () => {
    const weather = memory({
      attribute: 'weather',
      value: '晴',
      content: '今天天气怎么样',
      ephemeral: true,
      validFrom: at(1),
      lastSeenAt: at(1),
    });
    const sweep: ForgettingRequested = command(
      'ForgettingRequested',
      { requestedAt: at(9), policy: { ephemeralTtlDays: 7, archiveAfterDays: 90, archiveConfidence: 0.8 }, lastAccess: [] },
      9,
    );
    spec
      .given([memoryAdded(weather)])
      .when(sweep)
      .then((events) => {
        expect(events).toHaveLength(1);
        expect(events[0]).toMatchObject({
          type: 'MemoryExpired',
          causationId: sweep.eventId,
          payload: { memory: { memoryId: weather.memoryId, status: 'expired' } },
        });
      });
  });

  describe('an import', () => {
    const known = memory({ attribute: 'editor', value: 'Vim', content: '我用 Vim' });
    const bundle = (memories: MemoryRecord[], day = 6): MemoriesImportRequested =>
      command('MemoriesImportRequested', { importId: `import-${day}`, memories }, day);
    const city = memory({
      memoryId: 'imported-city',
      mergeKey: 'user/city',
      attribute: 'city',
      value: '上海',
      content: '我住在上海',
      kind: 'profile',
      validFrom: at(2),
    });

    it('given a memory, when a bundle brings it under another id and a new one, then only the new one is added, as it was', () => {
      const importing = bundle([{ ...known, memoryId: 'imported-editor', value: 'Emacs' }, city]);
      spec
        .given([memoryAdded(known)])
        .when(importing)
        .then([
          {
            eventId: deterministicId('imported', TENANT, USER, city.memoryId, city.revision),
            type: 'MemoryAdded',
            schemaVersion: 1,
            tenantId: TENANT,
            userId: USER,
            occurredAt: city.validFrom,
            recordedAt: importing.recordedAt,
            causationId: importing.eventId,
            correlationId: importing.correlationId,
            payload: { memory: city, itemId: null },
          },
        ]);
    });

    it('given an imported memory, when the same bundle comes again, then nothing', () => {
      spec
        .given(decided(bundle([city])))
        .when(bundle([city], 7))
        .thenNothing();
    });

    it("given a bundle holding another user's memory, then it is left out", () => {
      spec
        .given([])
        .when(bundle([{ ...city, userId: 'someone-else' }]))
        .thenNothing();
    });

    it('given two consistent memories, when an import brings a third, then the insight follows, caused by the import', () => {
      const statements = ['我们团队只有三个人，人手不够', '我不想自己运维服务器', '云数据库太贵了'].map((content, i) =>
        memory({
          memoryId: `m${i}`,
          mergeKey: `user/topic-${i}`,
          attribute: `topic-${i}`,
          kind: 'fact',
          value: content,
          content,
          entities: [],
          sourceTurnIds: [`t${i}`],
        }),
      );
      const importing = bundle([statements[2]]);
      spec
        .given(statements.slice(0, 2).map(memoryAdded))
        .when(importing)
        .then((events) => {
          expect(events.map(isInsight)).toEqual([false, true]);
          expect(events[1].causationId).toBe(events[0].eventId);
        });
    });
  });

  it('given a memory, when the application retracts it, then it is retracted with the reason', () => {
    const editor = memory();
    const retraction: MemoryRetractionRequested = command(
      'MemoryRetractionRequested',
      { memoryId: editor.memoryId, reason: '写错了', requestedAt: at(3) },
      3,
    );
    spec
      .given([memoryAdded(editor)])
      .when(retraction)
      .then((events) => {
        expect(events).toHaveLength(1);
        expect(events[0]).toMatchObject({ type: 'MemoryRetracted', payload: { memory: { status: 'retracted', statusReason: '写错了' } } });
      });
  });

  it('given a memory of two versions, when the application reverts to the first, then its value comes back as version 3', async () => {
    const history = decided(await said('预算控制在三万以内', 't1', 1), await said('预算提到五万了', 't2', 2));
    const budget = memoriesOf(history).find((m) => m.attribute === 'budget' && m.version === 2);
    expect(budget).toBeDefined();
    const revert: MemoryRevertRequested = command(
      'MemoryRevertRequested',
      { memoryId: budget?.memoryId ?? '', version: 1, requestedAt: at(3) },
      3,
    );
    spec
      .given(history)
      .when(revert)
      .then((events, state) => {
        expect(events[0].type).toBe('MemorySuperseded');
        expect(state.get(budget?.memoryId ?? '')).toMatchObject({ version: 3, value: budget?.history[0].value });
      });
  });

  it('given nothing, when the application states profile facts, then they are resolved as said, and pinned', () => {
    const profile: ProfileUpdateRequested = command(
      'ProfileUpdateRequested',
      { attributes: [{ attribute: 'employer', value: 'Stripe' }], requestedAt: at(2) },
      2,
    );
    spec
      .given([])
      .when(profile)
      .then((events) => {
        expect(events.map((e) => e.type)).toEqual(['MemoryAdded']);
        expect(memoriesOf(events)[0]).toMatchObject({ kind: 'profile', mergeKey: 'user/employer', value: 'Stripe', pinned: true });
      });
  });

  it('given nothing, when a command names a memory the user does not have, then nothing', () => {
    spec
      .given([])
      .when(
        command(
          'MemoryRetractionRequested',
          { memoryId: 'no-such-memory', reason: 'x', requestedAt: at(3) },
          3,
        ) as MemoryRetractionRequested,
      )
      .thenNothing();
  });
});

describe('ResolverDecider.begin: a summary a model words', () => {
  async function fourTurns() {
    return {
      history: decided(
        await said('我喜欢用 VS Code', 't1', 1),
        await said('数据库用 PostgreSQL', 't2', 2),
        await said('预算控制在三万以内', 't3', 3),
      ),
      fourth: await said('我住在上海', 't4', 4),
    };
  }
  const stateAfter = (events: readonly ResolverEvent[]) => events.reduce(ResolverDecider.evolve, ResolverDecider.initialState());

  it('given a summary due, then it pauses with what the writer needs, and resumes with the lines written', async () => {
    const { history, fourth } = await fourTurns();
    const step = ResolverDecider.begin(fourth, stateAfter(history), OPTIONS);
    if ('done' in step) throw new Error('expected a summary due');
    expect(step.summaryDue).toMatchObject({ sessionId: 's-1', previous: [] });
    expect(step.summaryDue.turns.map((t) => t.text)).toEqual(['我喜欢用 VS Code', '数据库用 PostgreSQL']);
    const events = step.resume(['用户偏好 VS Code', '数据库选了 PostgreSQL']);
    const extractive = ResolverDecider.decide(fourth, stateAfter(history), OPTIONS);
    // The same decisions, the summary's id and place included; only its words are the writer's.
    expect(events.map((e) => e.eventId)).toEqual(extractive.map((e) => e.eventId));
    expect(memoriesOf(events).find((m) => m.kind === 'summary')?.content).toBe('用户偏好 VS Code\n数据库选了 PostgreSQL');
  });

  it('given no summary due, then it is done at once with what decide decides', async () => {
    const { history, fourth } = await fourTurns();
    // Summarised up to t2 by the fourth turn: the fifth pushes one more out, two are needed.
    const state = stateAfter([...history, ...ResolverDecider.decide(fourth, stateAfter(history), OPTIONS)]);
    const fifth = await said('我喜欢喝咖啡', 't5', 5);
    const step = ResolverDecider.begin(fifth, state, OPTIONS);
    expect('done' in step && step.done.length).toBeGreaterThan(0);
    expect(step).toEqual({ done: ResolverDecider.decide(fifth, state, OPTIONS) });
  });

  it('given an extractive summary, then its lines are the summary decider’s own', async () => {
    const { history, fourth } = await fourTurns();
    const changes = ResolutionDecider.decide(fourth, stateAfter(history), {
      similarityThreshold: OPTIONS.similarityThreshold,
      recordedAt: fourth.recordedAt,
    });
    const expected = SummaryDecider.decide(
      { tenantId: TENANT, userId: USER, sessionId: 's-1', triggerId: fourth.eventId, correlationId: fourth.correlationId },
      changes.reduce(ResolutionDecider.evolve, stateAfter(history)),
      { ...OPTIONS.summary, recordedAt: fourth.recordedAt },
    );
    expect(ResolverDecider.decide(fourth, stateAfter(history), OPTIONS).filter(isSummary)).toEqual(expected);
  });
});

describe('isResolverCommand', () => {
  it('acts on exactly the events the topology declares the resolver handles', () => {
    const types = Object.keys(EVENT_SCHEMAS) as EngramEvent['type'][];
    const handled = new Set<string>(STAGES.resolver.handles);
    expect(types.map((type) => [type, isResolverCommand({ type } as EngramEvent)])).toEqual(types.map((type) => [type, handled.has(type)]));
  });

  it('accepts extractions, forget requests and the memory commands, nothing else on the topic', async () => {
    const extraction = await said('我喜欢用 VS Code', 't1', 1);
    const accepted: EngramEvent[] = [
      extraction,
      forgotten(1),
      command(
        'ForgettingRequested',
        { requestedAt: at(1), policy: { ephemeralTtlDays: 7, archiveAfterDays: 90, archiveConfidence: 0.8 }, lastAccess: [] },
        1,
      ),
      command('MemoriesImportRequested', { importId: 'i', memories: [] }, 1),
      command('MemoryRetractionRequested', { memoryId: 'm', reason: 'r', requestedAt: at(1) }, 1),
      command('MemoryRevertRequested', { memoryId: 'm', version: 1, requestedAt: at(1) }, 1),
      command('ProfileUpdateRequested', { attributes: [], requestedAt: at(1) }, 1),
    ] as EngramEvent[];
    const decision: MemoryDecision = memoryAdded(memory());
    expect(accepted.map(isResolverCommand)).toEqual(accepted.map(() => true));
    expect([decision, turnScreened('我喜欢用 VS Code')].map(isResolverCommand)).toEqual([false, false]);
  });
});

describe('evolving a state by several decisions at once', () => {
  it('given decisions old and new, repeated and after a forgetting, then ResolutionDecider.evolveAll leaves the state reduce(evolve) leaves, in the same order, the given state untouched, and ResolverDecider.evolveOwned the same in place', () => {
    const ids = ['m-a', 'm-b', 'm-c', 'm-d'];
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    let withoutForgetting = 0;
    for (let run = 0; run < 200; run++) {
      const given: ResolverState = new Map(ids.slice(0, 2).map((memoryId) => [memoryId, memory({ memoryId, revision: 2 })]));
      const events: ResolverEvent[] = Array.from({ length: 1 + Math.floor(next() * 8) }, (_, i) =>
        next() < 0.1
          ? forgotten(i)
          : memoryAdded(
              memory({ memoryId: ids[Math.floor(next() * ids.length)], revision: 1 + Math.floor(next() * 4), content: `v${run}-${i}` }),
            ),
      );
      const before = [...given];
      const expected = events.reduce(ResolverDecider.evolve, given);
      const viaResolution = events.some((event) => event.type === 'UserForgotten')
        ? null
        : ResolutionDecider.evolveAll(given, events as MemoryDecision[]);
      if (viaResolution) {
        withoutForgetting += 1;
        expect([...viaResolution]).toEqual([...expected]);
        expect(viaResolution === given).toBe(expected === given);
      }
      expect([...given]).toEqual(before);
      const owned = new Map(given);
      expect([...ResolverDecider.evolveOwned(owned, events)]).toEqual([...expected]);
      expect([...owned]).toEqual([...expected]);
    }
    // Both kinds of sequence were seen: with a forgetting, and without (evolveAll's).
    expect(withoutForgetting).toBeGreaterThan(50);
    expect(withoutForgetting).toBeLessThan(200);
  });
});
