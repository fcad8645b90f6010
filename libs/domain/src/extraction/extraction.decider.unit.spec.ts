import 'reflect-metadata'; // @engram/contracts' validation decorators need it
import { deterministicId, parseEvent } from '@engram/contracts';
import { ExtractionDecider, extractTurn, readTurn, type TurnRead } from './extraction.decider';
import type { ExtractedItemDraft, ExtractionInput, ExtractionStrategy } from './extraction.strategy';
import { RuleExtractor } from '../rules/rule-extractor';
import { defaultScreeningConfig } from '../screening/screening.config';
import { screenTurn } from '../screening/screening.decider';
import { deciderSpec } from '../testing/decider-spec';
import { draft, turnScreened } from '../testing/fixtures';

const RECORDED_AT = '2026-11-30T09:00:00.000Z';

describe('ExtractionDecider', () => {
  const rules = new RuleExtractor();

  it('given an accepted turn, then MemoriesExtracted with deterministic ids, versions and causation', async () => {
    const screened = turnScreened('我叫老周，数据库用 PostgreSQL');
    const event = await extractTurn(screened, rules, RECORDED_AT);
    const eventId = deterministicId('extracted', screened.eventId, 'rules-10');
    expect(event).toMatchObject({
      eventId,
      type: 'MemoriesExtracted',
      causationId: screened.eventId,
      correlationId: screened.correlationId,
      occurredAt: screened.occurredAt,
      recordedAt: RECORDED_AT,
      payload: { sessionId: 's-1', turnId: screened.payload.turnId, extractorVersion: 'rules-10' },
    });
    expect(event?.payload.items.map((i) => i.itemId)).toEqual([
      deterministicId(eventId, 0),
      deterministicId(eventId, 1),
      deterministicId(eventId, 2),
    ]);
    expect(event?.payload.items.every((i) => i.extractorVersion === 'rules-10')).toBe(true);
  });

  it('given the produced event, then it passes the contract schema', async () => {
    const event = await extractTurn(turnScreened('我喜欢用 VS Code'), rules, RECORDED_AT);
    expect(() => parseEvent(event)).not.toThrow();
  });

  it('given a rejected turn, then null and the strategy is not asked', async () => {
    const strategy: ExtractionStrategy = { version: 'spy', extract: jest.fn() };
    expect(await extractTurn(turnScreened('我喜欢用 VS Code', { verdict: 'rejected' }), strategy, RECORDED_AT)).toBeNull();
    expect(strategy.extract).not.toHaveBeenCalled();
  });

  it('given a statement, then the turn is also kept whole as an episode keyed by the turn, with no value', async () => {
    for (const text of ['她 10 月 18 号生日，预算两千左右', 'I shoot with a Sony A7 IV']) {
      const screened = turnScreened(text);
      const items = (await extractTurn(screened, rules, RECORDED_AT))?.payload.items ?? [];
      expect(items[items.length - 1]).toMatchObject({
        kind: 'episode',
        subject: 'user',
        attribute: `episode:s-1:${screened.payload.turnId}`,
        value: '',
        content: text,
        sourceTurnIds: [screened.payload.turnId],
      });
    }
  });

  it('given a one-off request and a lasting statement in one turn, then the preference, profile fact or procedure outlives the request', async () => {
    for (const text of [
      '今天天气怎么样？以后回答我都用中文',
      "what's the weather today? I prefer window seats",
      "What's the weather in Berlin? I live in Berlin now.",
    ]) {
      // Screening tags each of these turns a one-off request.
      const { ephemeral } = screenTurn({ role: 'user', text }, defaultScreeningConfig);
      expect(ephemeral).toBe(true);
      const screened = turnScreened(text, { ephemeral });
      const items = (await extractTurn(screened, rules, RECORDED_AT))?.payload.items ?? [];
      const lasting = items.filter((i) => i.kind !== 'episode');
      expect(lasting.map((i) => i.kind)).toEqual([expect.stringMatching(/^(preference|profile|procedure)$/)]);
      expect(lasting[0].ephemeral).toBe(false);
      // The turn's own words (the request among them) still expire with it.
      expect(items.find((i) => i.kind === 'episode')).toMatchObject({ ephemeral: true, content: text });
    }
  });

  /** What a strategy reads from the turn: one item of this kind, carrying the turn's ephemeral flag as strategies do. */
  const read = (input: ExtractionInput, kind: 'task' | 'preference', attribute: string, value: string): ExtractedItemDraft => ({
    kind,
    subject: 'user',
    attribute,
    value,
    content: input.text,
    entities: [],
    confidence: 0.8,
    importance: 0.5,
    ephemeral: input.ephemeral,
    operation: 'assert',
    validFrom: input.occurredAt,
    sourceTurnIds: [input.turnId],
  });

  it('given a one-off turn, then what the strategy reads as a task and everything the assistant said stay ephemeral', async () => {
    const strategy: ExtractionStrategy = {
      version: 'stub',
      extract: async (input) => [
        read(input, 'task', 'task:lookup', 'opening hours'),
        read(input, 'preference', 'preference:spicy', 'like'),
      ],
    };
    const user =
      (await extractTurn(turnScreened('帮我看看这家店的营业时间，我喜欢吃辣', { ephemeral: true }), strategy, RECORDED_AT))?.payload
        .items ?? [];
    expect(user.map((i) => [i.kind, i.ephemeral])).toEqual([
      ['task', true],
      ['preference', false],
      ['episode', true],
    ]);
    const assistant =
      (
        await extractTurn(
          turnScreened('这家店营业到晚上十点，你喜欢吃辣的话可以试试', { role: 'assistant', ephemeral: true }),
          strategy,
          RECORDED_AT,
        )
      )?.payload.items ?? [];
    expect(assistant.filter((i) => i.kind !== 'episode').every((i) => i.ephemeral)).toBe(true);
  });

  it('given an assistant turn that states something, then its episode belongs to the assistant', async () => {
    const event = await extractTurn(turnScreened('不辣的川菜可以去松云泽，主打清淡的河鲜', { role: 'assistant' }), rules, RECORDED_AT);
    expect(event?.payload.items.find((i) => i.kind === 'episode')).toMatchObject({ subject: 'assistant' });
  });

  it('given an accepted question in either language, then it is kept as an episode: questions are evidence too', async () => {
    for (const text of ['What car do I drive?', '上次你给我推荐的那家店叫什么']) {
      const items = (await extractTurn(turnScreened(text), rules, RECORDED_AT))?.payload.items ?? [];
      expect(items.map((i) => [i.kind, i.content])).toEqual([['episode', text]]);
    }
  });

  it('given a turn without signals, then the strategy is not asked and only the episode is kept', async () => {
    const extract = jest.fn().mockResolvedValue([]);
    const event = await extractTurn(turnScreened('Wow! Did you see that band?', { signals: [] }), { version: 'spy', extract }, RECORDED_AT);
    expect(extract).not.toHaveBeenCalled();
    expect(event?.payload.items.map((i) => i.kind)).toEqual(['episode']);
  });

  it('given a named speaker, then every item carries it, and the episode is also found by the facts read from its turn', async () => {
    const screened = turnScreened('我叫老周，数据库用 PostgreSQL');
    const event = await extractTurn({ ...screened, payload: { ...screened.payload, speaker: '老周' } }, rules, RECORDED_AT);
    const items = event?.payload.items ?? [];
    expect(items.every((i) => i.speaker === '老周')).toBe(true);
    expect(items.find((i) => i.kind === 'episode')?.keys).toEqual(expect.arrayContaining(['database PostgreSQL']));
  });

  it('given the same turn twice, then the same event (replay-safe)', async () => {
    const screened = turnScreened('预算控制在三万以内');
    expect(await extractTurn(screened, rules, RECORDED_AT)).toEqual(await extractTurn(screened, rules, RECORDED_AT));
  });

  it('given the strategy sees the turn, then it receives role, text, time, ephemeral flag and signals', async () => {
    const extract = jest.fn().mockResolvedValue([]);
    await extractTurn(turnScreened('帮我查下天气', { ephemeral: true, signals: ['task'] }), { version: 'spy', extract }, RECORDED_AT);
    expect(extract).toHaveBeenCalledWith(
      expect.objectContaining({ role: 'user', text: '帮我查下天气', ephemeral: true, signals: ['task'], tenantId: 'acme' }),
    );
  });
});

describe('ExtractionDecider (deciderSpec): a screened turn, as the strategy read it, decided alone', () => {
  const extraction = deciderSpec(ExtractionDecider, { recordedAt: RECORDED_AT });
  const readAs = (event: TurnRead['event'], facts: TurnRead['facts'], extractorVersion = 'stub'): TurnRead => ({
    event,
    facts,
    extractorVersion,
  });

  it('given a rejected turn, when decided, then nothing, whatever was read', () => {
    extraction
      .given([])
      .when(readAs(turnScreened('我喜欢用 VS Code', { verdict: 'rejected' }), [draft()]))
      .thenNothing();
  });

  it('given an accepted turn and one fact read, when decided, then one MemoriesExtracted: the fact, then the episode, ids from the event and the version', () => {
    const screened = turnScreened('我喜欢用 VS Code');
    const eventId = deterministicId('extracted', screened.eventId, 'stub');
    extraction
      .given([])
      .when(readAs(screened, [draft()]))
      .then(([event, ...more]) => {
        expect(more).toEqual([]);
        expect(event).toMatchObject({
          eventId,
          type: 'MemoriesExtracted',
          causationId: screened.eventId,
          recordedAt: RECORDED_AT,
          payload: { sessionId: 's-1', turnId: screened.payload.turnId, extractorVersion: 'stub' },
        });
        expect(event.payload.items.map((i) => [i.kind, i.itemId, i.extractorVersion])).toEqual([
          ['preference', deterministicId(eventId, 0), 'stub'],
          ['episode', deterministicId(eventId, 1), 'stub'],
        ]);
      });
  });

  it('given an accepted turn with nothing read, when decided, then the episode alone', () => {
    const screened = turnScreened('Wow! Did you see that band?', { signals: [] });
    extraction
      .given([])
      .when(readAs(screened, []))
      .then(([event]) => expect(event.payload.items.map((i) => [i.kind, i.content])).toEqual([['episode', 'Wow! Did you see that band?']]));
  });

  it('given a turn whose facts are all forget requests, when decided, then no episode: its words would bring back what it forgets', () => {
    const forget = draft({ operation: 'retract', correction: 'open', attribute: '@last', value: '' });
    extraction
      .given([])
      .when(readAs(turnScreened('忘掉我之前说的喜欢吃榴莲'), [forget]))
      .then(([event]) => expect(event.payload.items.map((i) => [i.kind, i.operation])).toEqual([['preference', 'retract']]));
  });

  it("given a user's one-off turn, when decided, then a preference read from it outlives the turn, a task and the episode do not", () => {
    const screened = turnScreened('帮我看看这家店的营业时间，我喜欢吃辣', { ephemeral: true });
    const task = draft({ kind: 'task', attribute: 'task:lookup', ephemeral: true });
    const preference = draft({ kind: 'preference', attribute: 'preference:spicy', ephemeral: true });
    extraction
      .given([])
      .when(readAs(screened, [task, preference]))
      .then(([event]) =>
        expect(event.payload.items.map((i) => [i.kind, i.ephemeral])).toEqual([
          ['task', true],
          ['preference', false],
          ['episode', true],
        ]),
      );
  });

  it('given a named speaker, when decided, then every item carries it', () => {
    const screened = turnScreened('我喜欢用 VS Code', { speaker: '老周' });
    extraction
      .given([])
      .when(readAs(screened, [draft()]))
      .then(([event]) => expect(event.payload.items.map((i) => i.speaker)).toEqual(['老周', '老周']));
  });

  it('given turns decided before, when the same turn is decided, then the same event: each turn is decided alone', () => {
    const earlier = ExtractionDecider.decide(readAs(turnScreened('预算控制在三万以内'), []), ExtractionDecider.initialState(), {
      recordedAt: RECORDED_AT,
    });
    const turn = readAs(turnScreened('我喜欢用 VS Code'), [draft()]);
    expect(extraction.given(earlier).when(turn).result()).toEqual(extraction.given([]).when(turn).result());
  });

  describe('time scopes', () => {
    const AT = '2026-11-30T08:00:00.000Z';
    const plus = (hours: number) => new Date(Date.parse(AT) + hours * 3_600_000).toISOString();
    const scopedBy =
      (strategy: boolean) =>
      (text: string, facts: TurnRead['facts']): TurnRead => ({
        event: turnScreened(text, { at: AT }),
        facts,
        extractorVersion: 'stub',
        ...(strategy ? { decidesTimeScopes: true } : {}),
      });
    const ends = (read: TurnRead) =>
      ExtractionDecider.decide(read, ExtractionDecider.initialState(), { recordedAt: RECORDED_AT })[0].payload.items.map((i) => [
        i.kind,
        i.expiresAt,
      ]);
    const vegan = draft({ kind: 'profile', attribute: 'diet:吃素', value: '吃素', content: '用户从今天起吃素。' });

    it('given a strategy that does not scope its items (the rules), when an item says "这周", then the words scope it', () => {
      const thisWeek = { ...vegan, content: '用户这周吃素。' };
      expect(ends(scopedBy(false)('这周我吃素', [thisWeek]))).toEqual([
        ['profile', plus(7 * 24)],
        ['episode', plus(7 * 24)],
      ]);
    });

    it('given a strategy that scopes its items, when it left one unscoped, then it holds whatever its words say', () => {
      expect(ends(scopedBy(true)('从今天起我吃素', [vegan]))).toEqual([
        ['profile', undefined],
        ['episode', undefined],
      ]);
    });

    it('given a strategy that scopes its items, when every item is scoped, then the episode ends with the last of them', () => {
      const berlin = draft({ kind: 'fact', attribute: 'whereabouts', value: 'Berlin', content: 'in Berlin', expiresAt: plus(7 * 24) });
      const staging = draft({ kind: 'decision', attribute: 'task_database', value: 'staging', content: 'staging', expiresAt: plus(2) });
      expect(ends(scopedBy(true)("I'm in Berlin next few weeks, and staging it is", [berlin, staging]))).toEqual([
        ['fact', plus(7 * 24)],
        ['decision', plus(2)],
        ['episode', plus(7 * 24)],
      ]);
      expect(ends(scopedBy(true)("I'm in Berlin, and I'm vegetarian", [berlin, vegan]))).toEqual([
        ['fact', plus(7 * 24)],
        ['profile', undefined],
        ['episode', undefined],
      ]);
    });

    it('given a strategy that scopes its items, when it found none, then the words of the turn decide the episode', () => {
      expect(ends(scopedBy(true)('今天很忙', []))).toEqual([['episode', plus(24)]]);
    });
  });

  it('readTurn asks the strategy about an accepted turn with signals only', async () => {
    const extract = jest.fn().mockResolvedValue([draft()]);
    const strategy: ExtractionStrategy = { version: 'spy', extract };
    expect((await readTurn(turnScreened('我喜欢用 VS Code', { verdict: 'rejected' }), strategy)).facts).toEqual([]);
    expect((await readTurn(turnScreened('Wow! Did you see that band?', { signals: [] }), strategy)).facts).toEqual([]);
    expect(extract).not.toHaveBeenCalled();
    const read = await readTurn(turnScreened('我喜欢用 VS Code'), strategy);
    expect(read).toMatchObject({ facts: [draft()], extractorVersion: 'spy' });
    expect(read.decidesTimeScopes).toBeUndefined();
    expect(extract).toHaveBeenCalledTimes(1);
    expect((await readTurn(turnScreened('我喜欢用 VS Code'), { ...strategy, decidesTimeScopes: true })).decidesTimeScopes).toBe(true);
  });
});
