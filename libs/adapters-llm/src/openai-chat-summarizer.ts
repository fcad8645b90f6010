import { postJson, withRetries } from '@engram/http-json';
import type { SummaryMaterial, SummaryWriter } from '@engram/domain';
import { chatClientSettings, LlmExtractionError, messageContent, type OpenAiChatExtractorOptions } from './openai-chat-extractor';

/** Bumped whenever the prompt or the schema changes: it is part of the summarizer version. */
export const SUMMARY_PROMPT_VERSION = 1;
export const SUMMARY_SCHEMA_NAME = 'engram_session_summary';
const MAX_LINES = 20;
const MAX_LINE = 300;

/**
 * The session summary written by an OpenAI-compatible chat model (docs/memory-model.md §14): the
 * summary so far plus the turns that just left the recent window in, the updated summary out, as
 * lines. Rolling, so each call reads a few turns, not the whole session.
 */
export const SUMMARY_SYSTEM_PROMPT = `You keep the rolling summary of one conversation session for a memory service.
You get the summary so far (possibly empty) and the turns that have just left the recent window, oldest first, each with what was extracted from it.
Return JSON that matches the given schema: {"lines": [...]}: the updated summary of the whole session up to these turns, oldest first, at most ${MAX_LINES} short lines.

Rules:
1. Keep what a later conversation needs: decisions, facts stated, preferences, tasks and their progress, open questions, what the assistant recommended or promised. Drop greetings and small talk.
2. Write in the language the conversation used (Chinese stays Chinese, English stays English). Keep names, numbers, products and dates exactly as written.
3. A later turn that corrects an earlier one replaces it: the summary says only the current value.
4. Text such as [PHONE], [EMAIL] or [CARD] is masked: never guess what it hides.
5. Start each line with the time of the turn it comes from, as given ("[11-27 09:05] …").`;

export const SUMMARY_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['lines'],
  properties: {
    lines: { type: 'array', items: { type: 'string' }, description: 'The updated summary, oldest first, one short line each.' },
  },
} as const;

export class OpenAiChatSummarizer implements SummaryWriter {
  readonly version: string;
  readonly endpoint: string;
  private readonly timeoutMs: number;
  private readonly retries: number;
  private readonly backoffMs: number;

  constructor(private readonly options: OpenAiChatExtractorOptions) {
    ({
      endpoint: this.endpoint,
      timeoutMs: this.timeoutMs,
      retries: this.retries,
      backoffMs: this.backoffMs,
    } = chatClientSettings(options));
    this.version = `llm-summary-${SUMMARY_PROMPT_VERSION}:${options.model || 'default'}`;
  }

  async write(material: SummaryMaterial): Promise<string[]> {
    const body = JSON.stringify(this.requestBody(material));
    const content = await withRetries(() => this.attempt(body), {
      retries: this.retries,
      backoffMs: this.backoffMs,
      errorClass: LlmExtractionError,
      dependency: 'llm',
    });
    return parseLines(content, this.endpoint);
  }

  requestBody(material: SummaryMaterial): Record<string, unknown> {
    return {
      ...(this.options.model ? { model: this.options.model } : {}),
      messages: [
        { role: 'system', content: SUMMARY_SYSTEM_PROMPT },
        { role: 'user', content: summaryUserMessage(material) },
      ],
      temperature: 0,
      response_format: { type: 'json_schema', json_schema: { name: SUMMARY_SCHEMA_NAME, strict: true, schema: SUMMARY_SCHEMA } },
    };
  }

  private async attempt(body: string): Promise<string> {
    const json = await postJson(
      {
        endpoint: this.endpoint,
        apiKey: this.options.apiKey,
        timeoutMs: this.timeoutMs,
        errorClass: LlmExtractionError,
        bodyName: 'response',
      },
      body,
    );
    return messageContent(json, this.endpoint);
  }
}

/** The user message: the summary so far and the turns that left the window. */
export function summaryUserMessage(material: SummaryMaterial): string {
  const turns = material.turns.map((t) => {
    const told = t.memories.length > 0 ? `\n  extracted: ${t.memories.join(' | ')}` : '';
    return `[${t.at.slice(5, 10)} ${t.at.slice(11, 16)}] ${t.who}: ${t.text}${told}`;
  });
  return [
    `Session: ${material.sessionId}`,
    'Summary so far:',
    material.previous.length > 0 ? material.previous.join('\n') : '(none)',
    'Turns that left the recent window:',
    ...turns,
  ].join('\n');
}

/** The answer's lines, trimmed and capped; throws when the answer is not `{"lines": [string…]}`. */
export function parseLines(content: string, endpoint = 'the endpoint'): string[] {
  const bare = content.trim().replace(/^```(?:json)?\s*|\s*```$/g, '');
  let parsed: unknown;
  try {
    parsed = JSON.parse(bare);
  } catch {
    throw new LlmExtractionError(`POST ${endpoint}: the model's summary is not JSON: ${bare.slice(0, 80)}`);
  }
  const lines = (parsed as { lines?: unknown } | null)?.lines;
  if (!Array.isArray(lines)) throw new LlmExtractionError(`POST ${endpoint}: the model's summary has no "lines" array`);
  return lines
    .filter((l): l is string => typeof l === 'string')
    .map((l) => l.replace(/\s+/g, ' ').trim())
    .filter((l) => l !== '')
    .map((l) => (l.length > MAX_LINE ? `${l.slice(0, MAX_LINE - 1)}…` : l))
    .slice(-MAX_LINES);
}
