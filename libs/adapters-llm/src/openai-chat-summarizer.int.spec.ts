import { loadConfig } from '@engram/config';
import { extractiveSummaryWriter, type SummaryMaterial } from '@engram/domain';
import { createSummaryWriter } from './create-extraction-strategy';
import { OpenAiChatSummarizer, parseLines, SUMMARY_SCHEMA, SUMMARY_SYSTEM_PROMPT } from './openai-chat-summarizer';
import { ChatCompletionsStub, SUMMARY_FIXTURES } from './testing/chat-completions-stub';

/* The LLM session summary against a local stub serving hand-authored responses (fixtures/README.md). */

const material = (zh: boolean): SummaryMaterial => ({
  sessionId: 'fri',
  previous: [],
  turns: [
    {
      at: '2026-11-30T08:01:00.000Z',
      who: 'user',
      text: zh ? '我们在做订单服务的数据库迁移' : 'We are migrating the order service database',
      memories: [],
    },
    {
      at: '2026-11-30T08:02:00.000Z',
      who: 'user',
      text: zh ? '决定用 PostgreSQL 替换 MySQL' : 'We decided to replace MySQL with PostgreSQL',
      memories: [zh ? '决定用 PostgreSQL 替换 MySQL' : 'We decided to replace MySQL with PostgreSQL'],
    },
  ],
});

describe('OpenAiChatSummarizer', () => {
  const stub = new ChatCompletionsStub();
  let url: string;

  beforeAll(async () => {
    url = await stub.start();
  });
  afterAll(() => stub.stop());

  it.each([
    ['Chinese', true, '用户在做订单服务的数据库迁移'],
    ['English', false, 'migrating the order service database'],
  ])(
    'writes the summary lines the model answers (%s), asking with the prompt, the strict schema and the turns',
    async (_, zh, expected) => {
      stub.reset(() => ({ body: zh ? SUMMARY_FIXTURES.zh : SUMMARY_FIXTURES.en }));
      const lines = await new OpenAiChatSummarizer({ url, model: 'gpt-4o-mini', backoffMs: 1 }).write(material(zh));
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain(expected);
      const { body } = stub.requests[0];
      expect(body.messages[0]).toEqual({ role: 'system', content: SUMMARY_SYSTEM_PROMPT });
      expect(body.messages[1].content).toContain(material(zh).turns[1].text);
      expect(body.messages[1].content).toContain('extracted:');
      expect(body.response_format).toEqual({
        type: 'json_schema',
        json_schema: { name: 'engram_session_summary', strict: true, schema: SUMMARY_SCHEMA },
      });
    },
  );

  it('throws on an answer that is not the JSON asked for, and keeps only non-empty string lines', () => {
    expect(() => parseLines('Sure! Here is a summary.')).toThrow(/not JSON/);
    expect(() => parseLines('{"summary": "x"}')).toThrow(/no "lines"/);
    expect(parseLines('{"lines": ["  a  ", "", 3, "b"]}')).toEqual(['a', 'b']);
  });

  it('refuses a negative or fractional retry count, as the extractor does', () => {
    expect(() => new OpenAiChatSummarizer({ url, model: 'm', retries: -1 })).toThrow(/retries must be a non-negative integer, got -1/);
    expect(() => new OpenAiChatSummarizer({ url, model: 'm', retries: 1.5 })).toThrow(/retries must be a non-negative integer/);
  });

  it('is chosen when an LLM is configured, extractive otherwise', () => {
    const config = (env: Record<string, string>) => loadConfig({ LOG_LEVEL: 'silent', ...env });
    expect(createSummaryWriter(config({}))).toBe(extractiveSummaryWriter);
    expect(createSummaryWriter(config({ ENGRAM_EXTRACTOR: 'llm', ENGRAM_LLM_URL: url, ENGRAM_LLM_MODEL: 'm' })).version).toBe(
      'llm-summary-1:m',
    );
    expect(createSummaryWriter(config({ ENGRAM_EXTRACTOR: 'llm', ENGRAM_LLM_URL: url, ENGRAM_SUMMARIZER: 'extractive' }))).toBe(
      extractiveSummaryWriter,
    );
    expect(() => config({ ENGRAM_SUMMARIZER: 'llm' })).toThrow(/ENGRAM_LLM_URL: required when ENGRAM_SUMMARIZER=llm/);
    expect(() => config({ ENGRAM_SUMMARIZER: 'gpt' })).toThrow(/ENGRAM_SUMMARIZER/);
  });
});
