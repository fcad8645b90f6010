import 'reflect-metadata'; // @engram/contracts' validation decorators need it
import { deterministicId, parseEvent, type MemoriesExtracted, type MemoryDecision } from '@engram/contracts';
import { extractTurn } from '../extraction/extraction.decider';
import { mergeKeyOf, type ExtractedItemDraft } from '../extraction/extraction.strategy';
import { ResolutionDecider, type ResolutionOptions, type ResolverState } from './resolution.decider';
import { sameValue, similarity } from './resolution.matching';
import { memoryIdOf } from './resolution.records';
import { RuleExtractor } from '../rules/rule-extractor';
import { decidedInOrder, deciderSpec } from '../testing/decider-spec';
import { extracted, TENANT, turnScreened, USER } from '../testing/fixtures';

const RECORDED_AT = '2026-12-01T00:00:00.000Z';
const options: ResolutionOptions = { similarityThreshold: 0.8, recordedAt: RECORDED_AT };
const resolver = deciderSpec<MemoriesExtracted, ResolverState, MemoryDecision>({
  initialState: ResolutionDecider.initialState,
  evolve: ResolutionDecider.evolve,
  decide: (command, state) => ResolutionDecider.decide(command, state, options),
});

/** The decisions a sequence of commands makes, each on the state the previous ones left. */
const history = (...commands: MemoriesExtracted[]): MemoryDecision[] =>
  decidedInOrder<MemoriesExtracted, ResolverState, MemoryDecision, ResolutionOptions>(ResolutionDecider, options, commands);

function stateOf(events: readonly MemoryDecision[]): ResolverState {
  return events.reduce(ResolutionDecider.evolve, ResolutionDecider.initialState());
}

const at = (day: number) => `2026-11-${String(day).padStart(2, '0')}T08:00:00.000Z`;
const budget = (value: string, day: number, extra: Partial<ExtractedItemDraft> = {}) =>
  extracted([
    { kind: 'fact', attribute: 'budget', value, content: `预算${value}`, validFrom: at(day), sourceTurnIds: [`t-${day}`], ...extra },
  ]);

describe('ResolutionDecider', () => {
  it('given no memory, when an item arrives, then MemoryAdded with version 1, revision 1, one mention', () => {
    const command = extracted([{ kind: 'profile', attribute: 'name', value: '老周', content: '我叫老周' }]);
    const [event] = resolver
      .given([])
      .when(command)
      .then((events) => expect(events).toHaveLength(1));
    const item = command.payload.items[0];
    expect(event).toMatchObject({
      eventId: deterministicId('decision', command.eventId, item.itemId),
      type: 'MemoryAdded',
      causationId: command.eventId,
      correlationId: command.correlationId,
      occurredAt: item.validFrom,
      recordedAt: RECORDED_AT,
      payload: {
        itemId: item.itemId,
        memory: {
          memoryId: memoryIdOf(TENANT, USER, 'user/name', item.itemId),
          mergeKey: 'user/name',
          value: '老周',
          status: 'active',
          version: 1,
          revision: 1,
          mentionCount: 1,
          pinned: true, // profile
          appliedItemIds: [item.itemId],
          history: [],
        },
      },
    });
    expect(() => parseEvent(event)).not.toThrow();
  });

  it('given the same preference said five times, then one memory reinforced to mentionCount 5', () => {
    const events = history(...[1, 2, 3, 4, 5].map((day) => extracted([{ validFrom: at(day), sourceTurnIds: [`t-${day}`] }])));
    expect(events.map((e) => e.type)).toEqual(['MemoryAdded', ...Array(4).fill('MemoryReinforced')]);
    const memories = [...stateOf(events).values()];
    expect(memories).toHaveLength(1);
    expect(memories[0]).toMatchObject({ mentionCount: 5, version: 1, revision: 5, lastSeenAt: at(5) });
    expect(memories[0].sourceTurnIds).toEqual(['t-1', 't-2', 't-3', 't-4', 't-5']);
    expect(memories[0].confidence).toBeCloseTo(1 - 0.2 * 0.8 ** 4, 3);
  });

  it('given a budget, when a new value arrives, then MemorySuperseded keeps the old value in history with validTo', () => {
    const given = history(budget('三万', 1));
    resolver
      .given(given)
      .when(budget('五万', 3))
      .then(([event]) => {
        expect(event.type).toBe('MemorySuperseded');
        expect(event.payload.memory).toMatchObject({
          value: '五万',
          version: 2,
          revision: 2,
          status: 'active',
          validFrom: at(3),
          validTo: null,
          mentionCount: 1,
          pinned: false, // ranked, not pinned: see DEFAULT_PINNED_ATTRIBUTES
        });
        expect(event.payload.memory.history).toEqual([
          {
            version: 1,
            value: '三万',
            content: '预算三万',
            validFrom: at(1),
            validTo: at(3),
            recordedAt: RECORDED_AT,
            supersededAt: RECORDED_AT,
            sourceTurnIds: ['t-1'],
          },
        ]);
      });
  });

  it('given the same amount written differently ("三万" then "3万"), then it reinforces instead of superseding', () => {
    expect(sameValue('三万', '30000')).toBe(true);
    resolver
      .given(history(budget('三万', 1)))
      .when(budget('3万', 2))
      .then(([event]) => expect(event.type).toBe('MemoryReinforced'));
  });

  it('given an active memory, when retracted, then MemoryRetracted with validTo = the retraction time', () => {
    resolver
      .given(history(budget('三万', 1)))
      .when(budget('', 2, { operation: 'retract' }))
      .then(([event]) => {
        expect(event.type).toBe('MemoryRetracted');
        expect(event.payload.memory).toMatchObject({ status: 'retracted', validTo: at(2), revision: 2, value: '三万' });
      });
  });

  it('given no memory, when a retraction arrives, then nothing', () => {
    resolver
      .given([])
      .when(budget('', 2, { operation: 'retract' }))
      .thenNothing();
  });

  it('given a retraction naming another value ("I no longer use Vim" while the editor is VS Code), then nothing', () => {
    resolver
      .given(history(extracted([{ value: 'VS Code' }])))
      .when(extracted([{ value: 'Vim', operation: 'retract', validFrom: at(30) }]))
      .thenNothing();
  });

  it('given a retracted memory, when asserted again, then it comes back active by superseding', () => {
    const given = history(budget('三万', 1), budget('', 2, { operation: 'retract' }));
    resolver
      .given(given)
      .when(budget('五万', 3))
      .then(([event]) => {
        expect(event.type).toBe('MemorySuperseded');
        expect(event.payload.memory).toMatchObject({ status: 'active', value: '五万', version: 2, revision: 3, validTo: null });
        expect(event.payload.memory.history[0]).toMatchObject({ value: '三万', validTo: at(2) });
      });
  });

  it('given "that\'s no longer true", then the most recently mentioned memory is retracted', () => {
    const given = history(extracted([{ validFrom: at(1) }]), budget('三万', 2));
    resolver
      .given(given)
      .when(extracted([{ kind: 'fact', attribute: '@last', value: '', operation: 'retract', validFrom: at(3) }]))
      .then(([event]) => expect(event.payload.memory).toMatchObject({ mergeKey: 'user/budget', status: 'retracted' }));
  });

  it('given a correction without an attribute, then the last mentioned memory gets the new value', () => {
    const given = history(budget('三万', 2));
    resolver
      .given(given)
      .when(extracted([{ kind: 'fact', attribute: '@last', value: '五万', content: '不是三万，是五万', validFrom: at(3) }]))
      .then(([event]) =>
        expect(event).toMatchObject({ type: 'MemorySuperseded', payload: { memory: { mergeKey: 'user/budget', value: '五万' } } }),
      );
  });

  it('given a command already applied, when decided again on the evolved state, then no events (replay)', () => {
    const command = extracted([{}, { kind: 'fact', attribute: 'budget', value: '三万', content: '预算三万' }]);
    const { state } = resolver.given([]).when(command).result();
    expect(ResolutionDecider.decide(command, state, options)).toEqual([]);
  });

  it('given decisions replayed or reordered, then evolve keeps the newest revision', () => {
    const events = history(budget('三万', 1), budget('五万', 2));
    const forward = stateOf([...events, ...events]);
    const backward = stateOf([...events].reverse());
    expect([...forward.values()]).toEqual([...backward.values()]);
    expect([...forward.values()][0].value).toBe('五万');
  });

  it('given a near-duplicate under another key, then it reinforces the existing memory', () => {
    const given = history(extracted([{ kind: 'fact', attribute: 'note:a', value: 'x', content: '我们的服务部署在阿里云杭州区域' }]));
    const command = extracted([{ kind: 'fact', attribute: 'note:b', value: 'y', content: '我们的服务部署在阿里云杭州区域！' }]);
    resolver
      .given(given)
      .when(command)
      .then(([event]) => {
        expect(event.type).toBe('MemoryReinforced');
        expect(event.payload.memory.mergeKey).toBe('user/note:a');
        expect(event.payload.memory.appliedItemIds).toContain(command.payload.items[0].itemId);
      });
    // and replaying it is still a no-op although it landed away from its own merge key
    const state = stateOf([...given, ...ResolutionDecider.decide(command, stateOf(given), options)]);
    expect(ResolutionDecider.decide(command, state, options)).toEqual([]);
  });

  it('given different content below the threshold, then a new memory is added', () => {
    const given = history(extracted([{ kind: 'preference', attribute: 'preference:辣', value: 'dislike', content: '我不吃辣' }]));
    resolver
      .given(given)
      .when(extracted([{ kind: 'preference', attribute: 'preference:香菜', value: 'dislike', content: '我不吃香菜' }]))
      .then(([event]) => expect(event.type).toBe('MemoryAdded'));
  });

  it('given several items in one command, then each is decided on the state left by the previous one', () => {
    const command = extracted(
      [budget('三万', 1).payload.items[0], { ...budget('五万', 1).payload.items[0] }].map(
        ({ itemId: _i, extractorVersion: _v, ...d }) => d,
      ),
    );
    resolver
      .given([])
      .when(command)
      .then((events) => expect(events.map((e) => e.type)).toEqual(['MemoryAdded', 'MemorySuperseded']));
  });
});

describe('ResolutionDecider: procedures', () => {
  const rule = (attribute: string, value: string, day: number) =>
    extracted([{ kind: 'procedure', attribute, value, content: value, validFrom: at(day), sourceTurnIds: [`t-${day}`] }]);

  it('given a procedure, then it is added pinned (injected whatever the question)', () => {
    const [added] = history(rule('procedure:response_language', 'always answer in English', 1));
    expect(added.type).toBe('MemoryAdded');
    expect(added.payload.memory).toMatchObject({ kind: 'procedure', pinned: true, status: 'active' });
  });

  it('given a later rule on the same topic, then it supersedes the earlier one, which stays in the history', () => {
    const events = history(
      rule('procedure:response_language', 'always answer in English', 1),
      rule('procedure:response_language', '以后用中文回答', 2),
    );
    expect(events.map((e) => e.type)).toEqual(['MemoryAdded', 'MemorySuperseded']);
    const [current] = [...stateOf(events).values()].filter((m) => m.kind === 'procedure');
    expect(current).toMatchObject({ value: '以后用中文回答', version: 2, pinned: true });
    expect(current.history.map((h) => h.value)).toEqual(['always answer in English']);
  });

  it('given rules on two topics, then two procedures', () => {
    const state = stateOf(history(rule('procedure:emoji', '别用表情包', 1), rule('procedure:quote', '以后报价先给区间再给明细', 2)));
    expect(
      [...state.values()]
        .filter((m) => m.status === 'active')
        .map((m) => m.mergeKey)
        .sort(),
    ).toEqual(['user/procedure:emoji', 'user/procedure:quote']);
  });
});

describe('similarity', () => {
  it('is 1 for the same text, 0 for disjoint text, symmetric, and works across scripts', () => {
    expect(similarity('我喜欢用 VS Code', '我喜欢用 VS Code')).toBe(1);
    expect(similarity('预算三万', 'I like tea')).toBe(0);
    expect(similarity('数据库用 PostgreSQL', 'PostgreSQL 数据库')).toBe(similarity('PostgreSQL 数据库', '数据库用 PostgreSQL'));
    expect(similarity('数据库用 PostgreSQL', 'PostgreSQL 数据库')).toBeGreaterThan(0.5);
  });
});

describe('from chat to memory (screened turn → extraction → resolution)', () => {
  const rules = new RuleExtractor();

  const facts = (state: ResolverState) => [...state.values()].filter((m) => m.kind !== 'episode');
  const episodes = (state: ResolverState) => [...state.values()].filter((m) => m.kind === 'episode');

  /** Each text is one turn; "s2|text" says it in session s2 (default s-1); "Maria: text" names its speaker. */
  async function say(texts: string[]): Promise<ResolverState> {
    let state = ResolutionDecider.initialState();
    for (const [i, said] of texts.entries()) {
      const [session, line] = said.includes('|') ? said.split('|') : ['s-1', said];
      const named = /^([A-Z][a-z]+): (.*)$/.exec(line);
      const [speaker, text] = named ? [named[1], named[2]] : [undefined, line];
      const screened = turnScreened(text, { turn: `t-${i}`, at: at(i + 1), session, speaker });
      const command = await extractTurn(screened, rules, RECORDED_AT);
      if (!command) continue;
      for (const event of ResolutionDecider.decide(command, state, options)) state = ResolutionDecider.evolve(state, event);
    }
    return state;
  }

  it('given "预算控制在三万以内" then "预算提到五万了", then one budget memory at 五万 with 三万 in history', async () => {
    const [memory] = [...(await say(['预算控制在三万以内', '预算提到五万了'])).values()];
    expect(memory).toMatchObject({ mergeKey: 'user/budget', value: '五万', version: 2 });
    expect(memory.history.map((h) => h.value)).toEqual(['三万']);
  });

  it('given "我喜欢用 VS Code" five times, then one memory with mentionCount 5', async () => {
    const state = await say(Array(5).fill('我喜欢用 VS Code'));
    expect(facts(state).map((m) => [mergeKeyOf(m), m.mentionCount])).toEqual([['user/editor', 5]]);
    // The turn itself is kept once as an episode, reinforced by the repeats like the fact.
    expect(episodes(state).map((m) => [m.content, m.mentionCount])).toEqual([['我喜欢用 VS Code', 5]]);
  });

  it('given a budget then "不是三万，是五万", then the budget is corrected', async () => {
    const state = await say(['预算三万', '不是三万，是五万']);
    expect(facts(state).map((m) => [m.mergeKey, m.value])).toEqual([['user/budget', '五万']]);
    // The turn that stated 三万 no longer speaks for the budget; the correcting turn does.
    expect(episodes(state).map((m) => [m.content, m.status])).toEqual([
      ['预算三万', 'retracted'],
      ['不是三万，是五万', 'active'],
    ]);
  });

  it('given a superseded budget, then the episode of the old value ends when the correction begins (asOf still sees it)', async () => {
    const state = await say(['预算控制在三万以内', '预算提到五万了']);
    const old = episodes(state).find((m) => m.content === '预算控制在三万以内')!;
    expect(old).toMatchObject({ status: 'retracted', validTo: at(2), updatedAt: RECORDED_AT });
    expect(
      episodes(state)
        .filter((m) => m.status === 'active')
        .map((m) => m.content),
    ).toEqual(['预算提到五万了']);
  });

  it('given "I go swimming every Tuesday" then "actually, make that every Thursday", then only the Thursday turn stays as an episode', async () => {
    const state = await say(['I go swimming every Tuesday', 'actually, make that every Thursday']);
    expect(
      episodes(state)
        .filter((m) => m.status === 'active')
        .map((m) => m.content),
    ).toEqual(['actually, make that every Thursday']);
  });

  it("given two speakers stating the same key, then the second leaves the first speaker's episode searchable", async () => {
    const state = await say(['Maria: The budget is 3000 dollars', 'John: The budget is 5000 dollars']);
    expect(facts(state).map((m) => [m.attribute, m.value])).toEqual([['budget', '5000 dollars']]);
    // What Maria said is still hers to be found: John did not correct her.
    expect(episodes(state).map((m) => [m.speaker, m.status])).toEqual([
      ['Maria', 'active'],
      ['John', 'active'],
    ]);
    // The same speaker correcting themselves still retires the old words.
    const corrected = await say(['Maria: The budget is 3000 dollars', 'Maria: The budget is 5000 dollars']);
    expect(episodes(corrected).map((m) => [m.content, m.status])).toEqual([
      ['The budget is 3000 dollars', 'retracted'],
      ['The budget is 5000 dollars', 'active'],
    ]);
  });

  it('given a retraction, then the episode that stated the retracted value is retired with it', async () => {
    const state = await say(['预算三万', '忘掉我之前说的预算']);
    expect(
      episodes(state)
        .filter((m) => m.status === 'active')
        .map((m) => m.content),
    ).not.toContain('预算三万');
  });

  it('given a turn that also said something still true, then its episode stays when one of its values is corrected', async () => {
    const state = await say(['我叫王芳，预算三万', '预算提到五万了']);
    expect(facts(state).map((m) => [m.attribute, m.value])).toEqual([
      ['name', '王芳'],
      ['budget', '五万'],
    ]);
    expect(episodes(state).map((m) => [m.content, m.status])).toEqual([
      ['我叫王芳，预算三万', 'active'],
      ['预算提到五万了', 'active'],
    ]);
  });

  it('given the same value again, then nothing is retired (reinforcing is not correcting)', async () => {
    const state = await say(['我喜欢用 VS Code', '我喜欢用 VS Code', '预算三万']);
    expect(episodes(state).every((m) => m.status === 'active')).toBe(true);
  });

  it('given episode retirements, when the command is decided again on the evolved state, then no events (replay)', async () => {
    let state = ResolutionDecider.initialState();
    const commands: MemoriesExtracted[] = [];
    for (const [i, text] of ['预算三万', '预算提到五万了'].entries()) {
      const command = (await extractTurn(turnScreened(text, { turn: `t-${i}`, at: at(i + 1) }), rules, RECORDED_AT))!;
      commands.push(command);
      for (const event of ResolutionDecider.decide(command, state, options)) state = ResolutionDecider.evolve(state, event);
    }
    const again = ResolutionDecider.decide(commands[1], state, options);
    expect(again).toEqual([]);
    const first = ResolutionDecider.decide(
      commands[1],
      stateOf(ResolutionDecider.decide(commands[0], ResolutionDecider.initialState(), options)),
      options,
    );
    expect(first.map((e) => e.type).sort()).toEqual(['MemoryAdded', 'MemoryRetracted', 'MemorySuperseded']);
    expect(new Set(first.map((e) => e.eventId)).size).toBe(first.length);
  });

  it('given a schedule then a correction naming no attribute, then the schedule is superseded, not a new pinned task', async () => {
    const state = await say(['每周二、四、六早上跑步', '改成周一三五晚上去健身房跑跑步机']);
    expect(facts(state).map((m) => [m.kind, m.value, m.pinned, m.history.map((h) => h.value)])).toEqual([
      ['fact', '周一三五', false, ['每周二、四、六']],
    ]);
  });

  it('given a schedule in English then "actually, make that every Thursday", then the schedule is superseded', async () => {
    const state = await say(['I go swimming every Tuesday', 'actually, make that every Thursday']);
    expect(facts(state).map((m) => [m.value, m.history.map((h) => h.value)])).toEqual([['every Thursday', ['every Tuesday']]]);
  });

  it('given "把服务器时间改成8点" then "不对，改成9点" in the session, then the time it answers is superseded', async () => {
    const state = await say(['我喜欢喝绿茶', '把服务器时间改成8点', '不对，改成9点']);
    expect(facts(state).map((m) => [m.attribute, m.value, m.history.map((h) => h.value)])).toEqual([
      ['preference:绿茶', 'like', []],
      ['服务器时间', '9点', ['8点']],
    ]);
    // The turn that said 8点 is retired with it; the correcting turn is kept, found by "服务器时间".
    expect(
      episodes(state)
        .filter((e) => e.status === 'active')
        .map((e) => e.content),
    ).toEqual(['我喜欢喝绿茶', '不对，改成9点']);
    // Found by what it is about and by the words it replaced ("服务器时间…"), shown as the new ones.
    expect(facts(state)[1].keys).toEqual(['服务器时间', '把服务器时间改成8点']);
    expect(facts(state)[1].content).toBe('不对，改成9点');
  });

  it('given "set the standup to 9am" then "no, make it 10", then the standup is superseded and keeps its attribute words', async () => {
    const state = await say(['set the standup to 9am', 'no, make it 10']);
    const [standup] = facts(state);
    expect(standup).toMatchObject({ attribute: 'standup', value: '10', content: 'no, make it 10' });
    expect(standup.keys).toEqual(expect.arrayContaining([expect.stringContaining('standup')]));
  });

  it('given "不对，改成9点" in a new session, then only a memory of the same shape is corrected, not the last one said', async () => {
    const state = await say(['s1|站会改到早上8点', 's1|我喜欢喝绿茶', 's2|不对，改成9点']);
    expect(facts(state).map((m) => [m.attribute, m.value])).toEqual([
      ['standup', '9点'],
      ['preference:绿茶', 'like'],
    ]);
  });

  it('given a preference then "我改主意了，我要低卡方案" in the session, then the preference is superseded, not joined by a task', async () => {
    const state = await say(['我喜欢高热量的饮食方案', '我改主意了，我要低卡方案']);
    expect(facts(state).map((m) => [m.kind, m.attribute, m.value, m.history.map((h) => h.value)])).toEqual([
      ['preference', 'preference:高热量的饮食方案', '低卡方案', ['like']],
    ]);
  });

  it('given a task\'s deadline then "the reconciliation deadline moved to November 13", then that deadline is superseded', async () => {
    const state = await say([
      's1|We have to ship the payouts reconciliation service by October 30',
      's2|Update: the reconciliation deadline moved to November 13',
    ]);
    expect(facts(state).map((m) => [m.attribute, m.value, m.history.map((h) => h.value)])).toEqual([
      ['deadline:ship-the-payouts-reconciliation-service', 'November 13', ['October 30']],
    ]);
    // Said plainly, "the deadline is Friday" is a deadline of its own.
    const plain = await say(['s1|We have to ship the payouts reconciliation service by October 30', 's2|the deadline is Friday']);
    expect(
      facts(plain)
        .map((m) => m.attribute)
        .sort(),
    ).toEqual(['deadline', 'deadline:ship-the-payouts-reconciliation-service']);
  });

  it('given a correction in words, then it lands on the memory whose subject it names, not on what was said last', async () => {
    const state = await say(['我喜欢高热量的饮食方案', '我在字节跳动工作', '我改主意了，我要低卡方案']);
    expect(facts(state).map((m) => [m.attribute, m.value, m.version])).toEqual([
      ['preference:高热量的饮食方案', '低卡方案', 2],
      ['employer', '字节跳动', 1],
    ]);
    // Nothing said before shares its subject: a new memory, and the employer is left alone.
    const unrelated = await say(['我喜欢喝绿茶', '我在字节跳动工作', '我改主意了，我要低卡方案']);
    expect(facts(unrelated).map((m) => [m.attribute, m.version])).toEqual([
      ['preference:绿茶', 1],
      ['employer', 1],
      ['task:低卡方案', 1],
    ]);
  });

  it('given a preference in another session, then a change of mind on its subject supersedes it (issue 30: "我改主意了，我要低卡方案" days later)', async () => {
    const apart = await say(['s1|我喜欢高热量的饮食方案', 's2|我改主意了，我要低卡方案']);
    expect(facts(apart).map((m) => [m.attribute, m.value, m.history.map((h) => h.content)])).toEqual([
      ['preference:高热量的饮食方案', '低卡方案', ['我喜欢高热量的饮食方案']],
    ]);
    // The subject is what the statements share that few facts hold: "Python", in three facts, names none of them.
    const common = await say([
      's1|I prefer Python for scripts',
      's1|my favourite Python library is pandas',
      's1|I am learning Python testing',
      's2|actually Python is my weekend hobby now',
    ]);
    expect(facts(common).map((m) => m.version)).toEqual([1, 1, 1, 1]);
    const near = await say(['s1|I like high-calorie meal plans', 's2|actually I prefer low-calorie meal plans']);
    expect(facts(near).map((m) => [m.attribute, m.value, m.history.length])).toEqual([['preference:high-calorie-meal-plans', 'like', 1]]);
  });

  it('given a habit, then "… instead" days later on its subject changes it; a standing constraint it shares words with is not what it changes', async () => {
    const commute = await say(['s1|I usually take the train to work', 's2|These days I drive to work instead']);
    expect(facts(commute).map((m) => [m.attribute, m.content, m.history.map((h) => h.content)])).toEqual([
      ['preference:take-the-train-to-work', 'These days I drive to work instead', ['I usually take the train to work']],
    ]);
    const diet = await say(["s1|I'm lactose intolerant", "s2|since I'm lactose intolerant I'm trying almond milk instead"]);
    expect(facts(diet).find((m) => m.attribute === 'diet:lactose-intolerant')).toMatchObject({
      version: 1,
      content: "I'm lactose intolerant",
    });
  });

  it('given a liking said again in other words, days apart, then one memory reinforced; a different thing liked stays apart', async () => {
    const hiking = await say(['s1|I love hiking', 's2|Hiking is my favourite hobby', 's3|I go hiking most weekends']);
    expect(facts(hiking).map((m) => [m.attribute, m.value, m.mentionCount, m.sourceTurnIds.length])).toEqual([
      ['preference:hiking', 'like', 3, 3],
    ]);
    const running = await say(['s1|我每天早上都去跑步', 's2|早上跑步是我多年的习惯']);
    expect(facts(running).map((m) => [m.attribute, m.sourceTurnIds.length])).toEqual([['schedule:早上都去跑步', 2]]);
    const band = await say(['s1|My favourite band is Radiohead', 's2|I really love Radiohead', 's3|I really love Portishead']);
    expect(facts(band).map((m) => [m.attribute, m.value, m.sourceTurnIds.length])).toEqual([
      ['favorite:band', 'Radiohead', 2],
      ['preference:portishead', 'like', 1],
    ]);
  });

  it('given "我最近在学Go语言" months before "我最近在学Rust语言", then the newer says what is true now; other words about the present stay apart', async () => {
    const state = await say(['s1|我最近在学Go语言', 's1|我最近在做一个记账App', 's2|我最近在学Rust语言']);
    expect(facts(state).map((m) => [m.value, m.history.map((h) => h.value)])).toEqual(expect.arrayContaining([['Rust语言', ['Go语言']]]));
    expect(facts(state).some((m) => m.content.includes('记账App') && m.status === 'active' && m.version === 1)).toBe(true);
    const english = await say(["s1|I'm learning Go these days", "s2|I'm learning Rust these days"]);
    expect(facts(english).map((m) => [m.value, m.history.length])).toEqual([[expect.stringContaining('Rust'), 1]]);
  });

  it('given a circumstance in one session and its change days later, then the change supersedes it by its attribute', async () => {
    const state = await say([
      's1|I live in Manchester',
      's1|我现在开的是一辆本田思域',
      's2|We finally moved to Leeds last weekend!',
      's3|思域卖掉了，换了一辆特斯拉 Model 3',
    ]);
    expect(facts(state).map((m) => [m.attribute, m.value, m.history.map((h) => h.value), m.pinned])).toEqual([
      ['location', 'Leeds', ['Manchester'], true],
      ['car', '特斯拉 Model 3', ['本田思域'], true],
    ]);
  });

  it('given "其实我也喜欢喝红茶" after "我喜欢喝绿茶", then it is an addition: both stay', async () => {
    const state = await say(['我喜欢喝绿茶', '其实我也喜欢喝红茶']);
    expect(facts(state).map((m) => [m.attribute, m.status, m.version])).toEqual([
      ['preference:绿茶', 'active', 1],
      ['preference:红茶', 'active', 1],
    ]);
  });

  it('given a preference then "忘掉我之前说的喜欢吃榴莲", then it is retracted and the forget request is no episode', async () => {
    const state = await say(['我喜欢吃榴莲', '忘掉我之前说的喜欢吃榴莲']);
    expect(facts(state).map((m) => [m.attribute, m.status])).toEqual([['preference:榴莲', 'retracted']]);
    expect(episodes(state).map((e) => [e.content, e.status])).toEqual([['我喜欢吃榴莲', 'retracted']]);
  });

  it('given "forget what I said about durian", then the memory most like it is retracted, and nothing when none is', async () => {
    const state = await say(['I like durian', 'I prefer VS Code', 'forget what I said about durian']);
    expect(facts(state).map((m) => [m.attribute, m.status])).toEqual([
      ['preference:durian', 'retracted'],
      ['editor', 'active'],
    ]);
    const unrelated = await say(['I prefer VS Code', 'forget what I said about durian']);
    expect(facts(unrelated).map((m) => m.status)).toEqual(['active']);
  });

  it('given an allergy then "其实我穿 43.5 更合适", then the allergy is untouched (a free-text correction hits no unrelated key)', async () => {
    const state = await say(['我对芒果过敏', '其实我穿 43.5 更合适']);
    expect(facts(state).map((m) => [m.attribute, m.value, m.version])).toEqual([['allergy:芒果', '芒果', 1]]);
  });

  it('given an allergy then "actually a size 11", then the allergy is untouched', async () => {
    const state = await say(["I'm allergic to peanuts", "actually I'm a size 11 now"]);
    expect(facts(state).find((m) => m.attribute.startsWith('allergy'))).toMatchObject({ value: 'peanuts', version: 1 });
  });

  it('given a name and a budget, then only the name is pinned (facts layer), the budget is ranked', async () => {
    const state = await say(['我叫老周', '预算三万']);
    expect(facts(state).map((m) => [m.attribute, m.pinned])).toEqual([
      ['name', true],
      ['budget', false],
    ]);
  });

  it("given a gift's budget then a purifier's, then two budgets: one does not supersede the other", async () => {
    const state = await say(['想给我老婆挑个生日礼物，预算两千左右', '还想买个空气净化器，预算三千以内']);
    expect(
      facts(state)
        .filter((m) => m.attribute.startsWith('budget'))
        .map((m) => [m.attribute, m.value, m.version]),
    ).toEqual([
      ['budget:生日礼物', '两千', 1],
      ['budget:空气净化器', '三千', 1],
    ]);
    expect(episodes(state).every((m) => m.status === 'active')).toBe(true);
  });

  it('given a scoped budget then "预算提到五万了" (no thing named), then the scoped budget is superseded', async () => {
    const state = await say(['打算买辆车，预算三万', '预算提到五万了']);
    expect(
      facts(state)
        .filter((m) => m.attribute.startsWith('budget'))
        .map((m) => [m.attribute, m.value, m.history.map((h) => h.value)]),
    ).toEqual([['budget:车', '五万', ['三万']]]);
  });

  it('given a budget then "忘掉我之前说的预算", then the budget is retracted', async () => {
    const state = await say(['预算三万', '忘掉我之前说的预算']);
    expect([...state.values()][0]).toMatchObject({ mergeKey: 'user/budget', status: 'retracted' });
  });
});
