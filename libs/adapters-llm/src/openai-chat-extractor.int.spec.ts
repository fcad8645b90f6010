import { loadConfig } from '@engram/config';
import { RuleExtractor, type ExtractionInput } from '@engram/domain';
import { createExtractionStrategy } from './create-extraction-strategy';
import { EXTRACTION_SCHEMA, EXTRACTION_SYSTEM_PROMPT } from './extraction-prompt';
import { chatCompletionsEndpoint, LlmExtractionError, OpenAiChatExtractor, type OpenAiChatExtractorOptions } from './openai-chat-extractor';
import { ChatCompletionsStub, FIXTURE_TURNS, replayFixtures } from './testing/chat-completions-stub';

/*
 * The LLM extraction strategy against a local HTTP stub serving hand-authored chat-completions
 * responses (fixtures/README.md: written by hand, not recorded from a model).
 */

const turn = (text: string, overrides: Partial<ExtractionInput> = {}): ExtractionInput => ({
  tenantId: 'default',
  userId: 'u1',
  sessionId: 's1',
  turnId: 't1',
  role: 'user',
  text,
  occurredAt: '2026-11-30T09:00:00.000Z',
  ephemeral: false,
  signals: [],
  ...overrides,
});

describe('OpenAiChatExtractor', () => {
  const stub = new ChatCompletionsStub();
  let url: string;
  const extractor = (options: Partial<OpenAiChatExtractorOptions> = {}) =>
    new OpenAiChatExtractor({ url, model: 'gpt-4o-mini', backoffMs: 1, ...options });

  beforeAll(async () => {
    url = await stub.start();
  });
  afterAll(() => stub.stop());
  beforeEach(() => stub.reset());

  it('turns a Chinese turn into one fact per item, in Chinese, with English attribute slugs', async () => {
    const items = await extractor().extract(turn(FIXTURE_TURNS.zh.text, { turnId: 'zh-1', ephemeral: true }));
    expect(items).toEqual([
      {
        kind: 'preference',
        subject: 'user',
        attribute: 'editor',
        value: 'VS Code',
        content: '用户喜欢用 VS Code 写 TypeScript。',
        entities: ['VS Code', 'TypeScript'],
        confidence: 0.95,
        importance: 0.6,
        operation: 'assert',
        // The attribute's words in both languages, as the rules give their facts: found by "编辑器".
        keys: ['编辑器 开发工具 IDE editor code editor'],
        ephemeral: true,
        validFrom: '2026-11-30T09:00:00.000Z',
        sourceTurnIds: ['zh-1'],
      },
      {
        kind: 'fact',
        subject: 'user',
        attribute: 'budget',
        value: '三万以内',
        content: '用户的预算控制在三万以内。',
        entities: [],
        confidence: 0.9,
        importance: 0.8,
        operation: 'assert',
        keys: ['预算 经费 budget'],
        ephemeral: true,
        validFrom: '2026-11-30T09:00:00.000Z',
        sourceTurnIds: ['zh-1'],
      },
    ]);
  });

  it('turns an English turn into one fact per item', async () => {
    const items = await extractor().extract(turn(FIXTURE_TURNS.en.text));
    expect(items.map((i) => [i.kind, i.subject, i.attribute, i.value])).toEqual([
      ['profile', 'user', 'role', 'backend engineer'],
      ['profile', 'user', 'employer', 'Stripe'],
      ['decision', 'user', 'database', 'PostgreSQL'],
    ]);
    expect(items.every((i) => /^[A-Za-z]/.test(i.content) && i.ephemeral === false && i.sourceTurnIds[0] === 't1')).toBe(true);
  });

  it('marks corrections: open when they name no attribute ("不对，改成9点", "no, make it 10"), named when they do, none otherwise', async () => {
    const read = async (text: string) => (await extractor().extract(turn(text))).map((i) => [i.attribute, i.value, i.correction]);
    expect(await read(FIXTURE_TURNS.correctionZhBefore.text)).toEqual([['server_time', '8点', 'named']]);
    expect(await read(FIXTURE_TURNS.correctionZh.text)).toEqual([['@last', '9点', 'open']]);
    expect(await read(FIXTURE_TURNS.correctionEnBefore.text)).toEqual([['standup', '9am', undefined]]);
    expect(await read(FIXTURE_TURNS.correctionEn.text)).toEqual([['@last', '10', 'open']]);
    // Answers to prompt 1 carry no "corrects": nothing is a correction.
    expect((await extractor().extract(turn(FIXTURE_TURNS.zh.text))).some((i) => 'correction' in i)).toBe(false);
  });

  it('asks for corrections in the prompt and the strict schema', async () => {
    await extractor().extract(turn(FIXTURE_TURNS.correctionZh.text));
    const body = stub.requests[0].body;
    const system = body.messages.find((m) => m.role === 'system')!.content;
    expect(system).toContain('"corrects" is true');
    expect(system).toContain('不对，改成9点');
    expect(system).toContain('no, make it 10');
    const schema = body.response_format!.json_schema!.schema as {
      properties: { items: { items: { required: string[]; properties: Record<string, { type: string }> } } };
    };
    expect(schema.properties.items.items.required).toContain('corrects');
    expect(schema.properties.items.items.properties.corrects.type).toBe('boolean');
  });

  it('sends the prompt, the strict JSON schema, temperature 0, the model and the key', async () => {
    await extractor({ apiKey: 'sk-test' }).extract(turn(FIXTURE_TURNS.zh.text, { speaker: 'Lin' }));
    expect(stub.requests).toHaveLength(1);
    const { path, headers, body } = stub.requests[0];
    expect(path).toBe('/v1/chat/completions');
    expect(headers.authorization).toBe('Bearer sk-test');
    expect(body.model).toBe('gpt-4o-mini');
    expect(body.temperature).toBe(0);
    expect(body.response_format).toEqual({
      type: 'json_schema',
      json_schema: { name: 'engram_memory_items', strict: true, schema: EXTRACTION_SCHEMA },
    });
    expect(body.messages[0]).toEqual({ role: 'system', content: EXTRACTION_SYSTEM_PROMPT });
    expect(body.messages[1].role).toBe('user');
    expect(body.messages[1].content).toContain(FIXTURE_TURNS.zh.text);
    expect(body.messages[1].content).toContain('Role: user (Lin)');
    // The prompt's rules: one fact per item, the user's language, no temporary states.
    expect(EXTRACTION_SYSTEM_PROMPT).toMatch(/One fact per item/);
    expect(EXTRACTION_SYSTEM_PROMPT).toMatch(/language the user wrote in/);
    expect(EXTRACTION_SYSTEM_PROMPT).toMatch(/Drop temporary states and one-off requests/);
    // Strict structured outputs: every property required, no others.
    const item = EXTRACTION_SCHEMA.properties.items.items;
    expect([...item.required].sort()).toEqual(Object.keys(item.properties).sort());
    expect(item.additionalProperties).toBe(false);
  });

  it('reads procedures, rules for how the assistant should act, with the topic as their attribute (English)', async () => {
    const items = await extractor().extract(turn(FIXTURE_TURNS.procedureEn.text));
    expect(items.map((i) => [i.kind, i.subject, i.attribute, i.value])).toEqual([
      ['procedure', 'user', 'procedure:response_language', 'always answer in English'],
      ['procedure', 'user', 'procedure:code_examples', 'use TypeScript for code examples'],
    ]);
  });

  it('reads procedures in Chinese, content kept in Chinese, topics as English slugs', async () => {
    const items = await extractor().extract(turn(FIXTURE_TURNS.procedureZh.text));
    expect(items.map((i) => [i.kind, i.attribute, i.content])).toEqual([
      ['procedure', 'procedure:response_language', '用户要求以后都用中文回答。'],
      ['procedure', 'procedure:quote', '用户要求报价时先给价格区间，再给明细。'],
      ['procedure', 'procedure:emoji', '用户要求回复里不要用表情包。'],
    ]);
  });

  it("keeps a procedure's topic as procedure:<slug> whatever spelling the model uses, and drops one without a topic", async () => {
    const answer = (attribute: string) => ({
      kind: 'procedure',
      subject: 'user',
      attribute,
      value: 'v',
      content: 'c',
      entities: [],
      confidence: 0.9,
      importance: 0.8,
      operation: 'assert',
    });
    const content = JSON.stringify({
      items: [answer('procedure:Response Language'), answer('emoji'), answer('procedure_code_examples'), answer('procedure:')],
    });
    stub.reset(() => ({ body: { choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }] } }));
    expect((await extractor().extract(turn('x'))).map((i) => i.attribute)).toEqual([
      'procedure:response_language',
      'procedure:emoji',
      'procedure:code_examples',
    ]);
    expect(EXTRACTION_SCHEMA.properties.items.items.properties.kind.enum).toContain('procedure');
    expect(EXTRACTION_SYSTEM_PROMPT).toMatch(/procedure \(a standing rule/);
  });

  it('drops malformed items, keeps the valid one, clamps its numbers and normalises it', async () => {
    const items = await extractor().extract(turn(FIXTURE_TURNS.malformed.text));
    expect(items).toEqual([
      {
        kind: 'task',
        subject: 'user',
        attribute: 'weekly_meeting',
        value: 'every Wednesday 14:00',
        content: 'The user has a weekly meeting every Wednesday at 14:00.',
        entities: ['Wednesday'],
        confidence: 1,
        importance: 0,
        operation: 'assert',
        keys: ['例会 周会 weekly meeting weekly sync team meeting'],
        ephemeral: false,
        validFrom: '2026-11-30T09:00:00.000Z',
        sourceTurnIds: ['t1'],
      },
    ]);
  });

  it('throws a clear, final error when the model answers prose instead of JSON', async () => {
    const failure = extractor({ retries: 3 }).extract(turn(FIXTURE_TURNS.notJson.text));
    await expect(failure).rejects.toThrow(LlmExtractionError);
    await expect(extractor().extract(turn(FIXTURE_TURNS.notJson.text))).rejects.toThrow(
      /the model's answer is not JSON: Sure! Here is what I would remember/,
    );
    // Not retried by the client: the stage's retries and dead letters handle it.
    expect(stub.requests).toHaveLength(2);
  });

  it('throws on a response that is not a chat completion, or JSON without "items"', async () => {
    stub.reset(() => ({ body: '<html>bad gateway</html>' }));
    await expect(extractor().extract(turn('x'))).rejects.toThrow(/the response is not JSON/);
    stub.reset(() => ({
      body: { choices: [{ index: 0, message: { role: 'assistant', content: '{"memories":[]}' }, finish_reason: 'stop' }] },
    }));
    await expect(extractor().extract(turn('x'))).rejects.toThrow(/no "items" array/);
    stub.reset(() => ({
      body: { choices: [{ index: 0, message: { role: 'assistant', content: '{"items":[', refusal: null }, finish_reason: 'length' }] },
    }));
    await expect(extractor().extract(turn('x'))).rejects.toThrow(/cut off/);
    stub.reset(() => ({
      body: {
        choices: [{ index: 0, message: { role: 'assistant', content: null, refusal: 'I cannot help with that.' }, finish_reason: 'stop' }],
      },
    }));
    await expect(extractor().extract(turn('x'))).rejects.toThrow(/refused/);
  });

  it('accepts an answer wrapped in a Markdown code fence', async () => {
    const content =
      '```json\n{"items":[{"kind":"preference","subject":"user","attribute":"drink","value":"咖啡","content":"用户喜欢喝咖啡。","entities":[],"confidence":0.9,"importance":0.4,"operation":"assert"}]}\n```';
    stub.reset(() => ({ body: { choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }] } }));
    expect((await extractor().extract(turn('我喜欢喝咖啡'))).map((i) => i.value)).toEqual(['咖啡']);
  });

  it('retries a 500, then succeeds', async () => {
    stub.reset((request, attempt) =>
      attempt === 1 ? { status: 500, body: { error: { message: 'overloaded' } } } : replayFixtures(request, attempt),
    );
    const items = await extractor({ retries: 2 }).extract(turn(FIXTURE_TURNS.en.text));
    expect(items).toHaveLength(3);
    expect(stub.requests).toHaveLength(2);
  });

  it('retries a 429 honouring Retry-After, and gives up after the configured retries', async () => {
    stub.reset(() => ({ status: 429, headers: { 'retry-after': '0' }, body: { error: { message: 'rate limited' } } }));
    await expect(extractor({ retries: 2 }).extract(turn(FIXTURE_TURNS.en.text))).rejects.toThrow(
      /→ 429: .*rate limited.*\(gave up after 3 attempts\)/,
    );
    expect(stub.requests).toHaveLength(3);
  });

  it('does not retry a 400', async () => {
    stub.reset(() => ({ status: 400, body: { error: { message: "Invalid schema for response_format 'engram_memory_items'" } } }));
    await expect(extractor({ retries: 3 }).extract(turn(FIXTURE_TURNS.en.text))).rejects.toThrow(/→ 400: .*Invalid schema/);
    expect(stub.requests).toHaveLength(1);
  });

  it('times out a request that gets no answer', async () => {
    stub.reset(() => ({ delayMs: 2000, body: FIXTURE_TURNS.en.response }));
    await expect(extractor({ timeoutMs: 150, retries: 1 }).extract(turn(FIXTURE_TURNS.en.text))).rejects.toThrow(
      /no answer within 150 ms \(gave up after 2 attempts\)/,
    );
    expect(stub.requests).toHaveLength(2);
  });

  it('names the endpoint when the server cannot be reached', async () => {
    const closed = new ChatCompletionsStub();
    const closedUrl = await closed.start();
    await closed.stop();
    await expect(new OpenAiChatExtractor({ url: closedUrl, model: '', retries: 0 }).extract(turn('x'))).rejects.toThrow(
      `${closedUrl}/v1/chat/completions`,
    );
  });

  it('asks nothing for system and tool turns, or empty text', async () => {
    expect(await extractor().extract(turn('You are helpful.', { role: 'system' }))).toEqual([]);
    expect(await extractor().extract(turn('{"ok":true}', { role: 'tool' }))).toEqual([]);
    expect(await extractor().extract(turn('   '))).toEqual([]);
    expect(stub.requests).toHaveLength(0);
  });

  it('has a version naming the prompt and the model, and leaves out an empty model', async () => {
    expect(extractor().version).toBe('llm-6:gpt-4o-mini');
    const unnamed = new OpenAiChatExtractor({ url, model: '' });
    expect(unnamed.version).toBe('llm-6:default');
    await unnamed.extract(turn(FIXTURE_TURNS.zh.text));
    expect(stub.requests[0].body).not.toHaveProperty('model');
  });

  it('resolves the endpoint from a base URL, …/v1 or the full URL', () => {
    expect(chatCompletionsEndpoint('http://h:1')).toBe('http://h:1/v1/chat/completions');
    expect(chatCompletionsEndpoint('http://h:1/v1/')).toBe('http://h:1/v1/chat/completions');
    expect(chatCompletionsEndpoint('http://h:1/openai/chat/completions')).toBe('http://h:1/openai/chat/completions');
  });

  describe('createExtractionStrategy', () => {
    const config = (env: Record<string, string>) => loadConfig({ LOG_LEVEL: 'silent', ...env });

    it('is the rule extractor by default', () => {
      expect(createExtractionStrategy(config({}))).toBeInstanceOf(RuleExtractor);
    });

    it('is the chat extractor when ENGRAM_EXTRACTOR=llm, configured from ENGRAM_LLM_*', async () => {
      const strategy = createExtractionStrategy(
        config({
          ENGRAM_EXTRACTOR: 'llm',
          ENGRAM_LLM_URL: `${url}/v1`,
          ENGRAM_LLM_MODEL: 'qwen2.5-7b-instruct',
          ENGRAM_LLM_API_KEY: 'k',
          ENGRAM_LLM_RETRIES: '0',
        }),
      );
      expect(strategy).toBeInstanceOf(OpenAiChatExtractor);
      expect(strategy.version).toBe('llm-6:qwen2.5-7b-instruct');
      await strategy.extract(turn(FIXTURE_TURNS.zh.text));
      expect(stub.requests[0].body.model).toBe('qwen2.5-7b-instruct');
      expect(stub.requests[0].headers.authorization).toBe('Bearer k');
    });

    it('validates its variables, naming each bad one', () => {
      expect(() => config({ ENGRAM_EXTRACTOR: 'gpt' })).toThrow(/ENGRAM_EXTRACTOR/);
      expect(() => config({ ENGRAM_EXTRACTOR: 'llm' })).toThrow(/ENGRAM_LLM_URL: required when ENGRAM_EXTRACTOR=llm/);
      expect(() => config({ ENGRAM_LLM_URL: 'localhost:8000' })).toThrow(
        /ENGRAM_LLM_URL="localhost:8000": ENGRAM_LLM_URL must be an http\(s\) URL/,
      );
      expect(() => config({ ENGRAM_LLM_TIMEOUT_MS: 'soon' })).toThrow(/ENGRAM_LLM_TIMEOUT_MS/);
      expect(() => config({ ENGRAM_LLM_RETRIES: '-1' })).toThrow(/ENGRAM_LLM_RETRIES/);
      const ok = config({ ENGRAM_EXTRACTOR: 'llm', ENGRAM_LLM_URL: 'http://127.0.0.1:8000' });
      expect([ok.ENGRAM_LLM_MODEL, ok.ENGRAM_LLM_TIMEOUT_MS, ok.ENGRAM_LLM_RETRIES]).toEqual(['', 60_000, 3]);
    });
  });
});
