import 'reflect-metadata'; // @engram/contracts' validation decorators need it
import { deterministicId, parseEvent } from '@engram/contracts';
import { ExtractionDecider } from './extraction.decider';
import type { ExtractedItemDraft, ExtractionInput, ExtractionStrategy } from './extraction.strategy';
import { RuleExtractor } from './rules/rule-extractor';
import { defaultScreeningConfig } from './screening.config';
import { screenTurn } from './screening.decider';
import { turnScreened } from './testing/fixtures';

const RECORDED_AT = '2026-11-30T09:00:00.000Z';

describe('ExtractionDecider', () => {
  const rules = new RuleExtractor();

  it('given an accepted turn, then MemoriesExtracted with deterministic ids, versions and causation', async () => {
    const screened = turnScreened('我叫老周，数据库用 PostgreSQL');
    const event = await ExtractionDecider.decide(screened, rules, RECORDED_AT);
    const eventId = deterministicId('extracted', screened.eventId, 'rules-7');
    expect(event).toMatchObject({
      eventId,
      type: 'MemoriesExtracted',
      causationId: screened.eventId,
      correlationId: screened.correlationId,
      occurredAt: screened.occurredAt,
      recordedAt: RECORDED_AT,
      payload: { sessionId: 's-1', turnId: screened.payload.turnId, extractorVersion: 'rules-7' },
    });
    expect(event?.payload.items.map((i) => i.itemId)).toEqual([
      deterministicId(eventId, 0),
      deterministicId(eventId, 1),
      deterministicId(eventId, 2),
    ]);
    expect(event?.payload.items.every((i) => i.extractorVersion === 'rules-7')).toBe(true);
  });

  it('given the produced event, then it passes the contract schema', async () => {
    const event = await ExtractionDecider.decide(turnScreened('我喜欢用 VS Code'), rules, RECORDED_AT);
    expect(() => parseEvent(event)).not.toThrow();
  });

  it('given a rejected turn, then null and the strategy is not asked', async () => {
    const strategy: ExtractionStrategy = { version: 'spy', extract: jest.fn() };
    expect(await ExtractionDecider.decide(turnScreened('我喜欢用 VS Code', { verdict: 'rejected' }), strategy, RECORDED_AT)).toBeNull();
    expect(strategy.extract).not.toHaveBeenCalled();
  });

  it('given a statement, then the turn is also kept whole as an episode keyed by the turn, with no value', async () => {
    for (const text of ['她 10 月 18 号生日，预算两千左右', 'I shoot with a Sony A7 IV']) {
      const screened = turnScreened(text);
      const items = (await ExtractionDecider.decide(screened, rules, RECORDED_AT))?.payload.items ?? [];
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
      const items = (await ExtractionDecider.decide(screened, rules, RECORDED_AT))?.payload.items ?? [];
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
      (await ExtractionDecider.decide(turnScreened('帮我看看这家店的营业时间，我喜欢吃辣', { ephemeral: true }), strategy, RECORDED_AT))
        ?.payload.items ?? [];
    expect(user.map((i) => [i.kind, i.ephemeral])).toEqual([
      ['task', true],
      ['preference', false],
      ['episode', true],
    ]);
    const assistant =
      (
        await ExtractionDecider.decide(
          turnScreened('这家店营业到晚上十点，你喜欢吃辣的话可以试试', { role: 'assistant', ephemeral: true }),
          strategy,
          RECORDED_AT,
        )
      )?.payload.items ?? [];
    expect(assistant.filter((i) => i.kind !== 'episode').every((i) => i.ephemeral)).toBe(true);
  });

  it('given an assistant turn that states something, then its episode belongs to the assistant', async () => {
    const event = await ExtractionDecider.decide(
      turnScreened('不辣的川菜可以去松云泽，主打清淡的河鲜', { role: 'assistant' }),
      rules,
      RECORDED_AT,
    );
    expect(event?.payload.items.find((i) => i.kind === 'episode')).toMatchObject({ subject: 'assistant' });
  });

  it('given an accepted question in either language, then it is kept as an episode: questions are evidence too', async () => {
    for (const text of ['What car do I drive?', '上次你给我推荐的那家店叫什么']) {
      const items = (await ExtractionDecider.decide(turnScreened(text), rules, RECORDED_AT))?.payload.items ?? [];
      expect(items.map((i) => [i.kind, i.content])).toEqual([['episode', text]]);
    }
  });

  it('given a turn without signals, then the strategy is not asked and only the episode is kept', async () => {
    const extract = jest.fn().mockResolvedValue([]);
    const event = await ExtractionDecider.decide(
      turnScreened('Wow! Did you see that band?', { signals: [] }),
      { version: 'spy', extract },
      RECORDED_AT,
    );
    expect(extract).not.toHaveBeenCalled();
    expect(event?.payload.items.map((i) => i.kind)).toEqual(['episode']);
  });

  it('given a named speaker, then every item carries it, and the episode is also found by the facts read from its turn', async () => {
    const screened = turnScreened('我叫老周，数据库用 PostgreSQL');
    const event = await ExtractionDecider.decide({ ...screened, payload: { ...screened.payload, speaker: '老周' } }, rules, RECORDED_AT);
    const items = event?.payload.items ?? [];
    expect(items.every((i) => i.speaker === '老周')).toBe(true);
    expect(items.find((i) => i.kind === 'episode')?.keys).toEqual(expect.arrayContaining(['database PostgreSQL']));
  });

  it('given the same turn twice, then the same event (replay-safe)', async () => {
    const screened = turnScreened('预算控制在三万以内');
    expect(await ExtractionDecider.decide(screened, rules, RECORDED_AT)).toEqual(
      await ExtractionDecider.decide(screened, rules, RECORDED_AT),
    );
  });

  it('given the strategy sees the turn, then it receives role, text, time, ephemeral flag and signals', async () => {
    const extract = jest.fn().mockResolvedValue([]);
    await ExtractionDecider.decide(
      turnScreened('帮我查下天气', { ephemeral: true, signals: ['task'] }),
      { version: 'spy', extract },
      RECORDED_AT,
    );
    expect(extract).toHaveBeenCalledWith(
      expect.objectContaining({ role: 'user', text: '帮我查下天气', ephemeral: true, signals: ['task'], tenantId: 'acme' }),
    );
  });
});
