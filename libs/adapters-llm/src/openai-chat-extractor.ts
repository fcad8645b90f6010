import { excerpt, postJson, withRetries } from '@engram/http-json';
import { LAST_MENTIONED, type ExtractedItemDraft, type ExtractionInput, type ExtractionStrategy } from '@engram/domain';
import {
  EXTRACTION_SCHEMA,
  EXTRACTION_SCHEMA_NAME,
  EXTRACTION_SYSTEM_PROMPT,
  extractionUserMessage,
  LLM_ITEM_KINDS,
  PROMPT_VERSION,
  type LlmItemKind,
} from './extraction-prompt';

/**
 * An extraction strategy backed by any OpenAI-compatible `POST /v1/chat/completions` endpoint
 * (OpenAI, vLLM, llama.cpp server, Ollama, …) with structured outputs: the request carries the
 * system prompt and a strict JSON schema, at temperature 0.
 *
 * A request that times out, hits a network error or gets 408/429/5xx is retried with exponential
 * backoff (honouring Retry-After). The answer is parsed and every item validated: an invalid item
 * is dropped (never the whole turn), numbers are clamped to [0, 1]. An answer that is not the JSON
 * asked for throws, so the extractor stage retries the batch and finally dead-letters the event.
 */
export interface OpenAiChatExtractorOptions {
  /** Base URL (`http://host:port`, `…/v1`) or the full `…/chat/completions` URL. */
  readonly url: string;
  /** The `model` field of each request; empty: left out (servers that serve one model). */
  readonly model: string;
  /** Per request, including reading the body. Default 60 s. */
  readonly timeoutMs?: number;
  /** Retries after the first attempt. Default 3. */
  readonly retries?: number;
  /** First backoff; doubles per retry, with jitter. Default 500 ms. */
  readonly backoffMs?: number;
  /** Sent as `Authorization: Bearer …`. */
  readonly apiKey?: string;
}

export class LlmExtractionError extends Error {
  constructor(
    message: string,
    /** False for answers that will not change on a retry (4xx, an answer that is not the JSON asked for). */
    readonly retryable = false,
  ) {
    super(message);
    this.name = 'LlmExtractionError';
  }
}

const MAX_ITEMS = 20;
const MAX_TEXT = 1000;
const MAX_ENTITIES = 20;

export class OpenAiChatExtractor implements ExtractionStrategy {
  readonly version: string;
  /** The endpoint actually called. */
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
    this.version = `llm-${PROMPT_VERSION}:${options.model || 'default'}`;
  }

  async extract(input: ExtractionInput): Promise<ExtractedItemDraft[]> {
    if (input.role === 'system' || input.role === 'tool' || input.text.trim() === '') return [];
    const content = await this.request(input);
    return parseItems(content, this.endpoint).map((item) => ({
      ...item,
      ephemeral: input.ephemeral,
      validFrom: input.occurredAt,
      sourceTurnIds: [input.turnId],
    }));
  }

  /** The request body (exposed for tests and logs). */
  requestBody(input: ExtractionInput): Record<string, unknown> {
    return {
      ...(this.options.model ? { model: this.options.model } : {}),
      messages: [
        { role: 'system', content: EXTRACTION_SYSTEM_PROMPT },
        { role: 'user', content: extractionUserMessage(input) },
      ],
      temperature: 0,
      response_format: { type: 'json_schema', json_schema: { name: EXTRACTION_SCHEMA_NAME, strict: true, schema: EXTRACTION_SCHEMA } },
    };
  }

  /** One turn, with retries: the assistant message's content. */
  private request(input: ExtractionInput): Promise<string> {
    const body = JSON.stringify(this.requestBody(input));
    return withRetries(() => this.attempt(body), { retries: this.retries, backoffMs: this.backoffMs, errorClass: LlmExtractionError });
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

/** The endpoint and the client's limits, defaults filled in and checked: shared by every chat-completions adapter. */
export function chatClientSettings(options: OpenAiChatExtractorOptions): {
  endpoint: string;
  timeoutMs: number;
  retries: number;
  backoffMs: number;
} {
  const retries = options.retries ?? 3;
  if (!Number.isInteger(retries) || retries < 0) throw new RangeError(`retries must be a non-negative integer, got ${retries}`);
  return {
    endpoint: chatCompletionsEndpoint(options.url),
    timeoutMs: options.timeoutMs ?? 60_000,
    retries,
    backoffMs: options.backoffMs ?? 500,
  };
}

/** `http://h:1` → `http://h:1/v1/chat/completions`; `…/v1` → `…/v1/chat/completions`; `…/chat/completions` as given. */
export function chatCompletionsEndpoint(url: string): string {
  const trimmed = url.trim().replace(/\/+$/, '');
  if (/\/chat\/completions$/.test(trimmed)) return trimmed;
  if (/\/v1$/.test(trimmed)) return `${trimmed}/chat/completions`;
  return `${trimmed}/v1/chat/completions`;
}

/** The first choice's message content of a chat-completions response; throws on anything else. */
export function messageContent(json: unknown, endpoint = 'the endpoint'): string {
  const bad = (why: string) => new LlmExtractionError(`POST ${endpoint}: unexpected response: ${why}`);
  const choices = (json as { choices?: unknown } | null)?.choices;
  if (!Array.isArray(choices) || choices.length === 0) throw bad('no "choices"');
  const choice = choices[0] as { message?: { content?: unknown; refusal?: unknown }; finish_reason?: unknown } | null;
  const message = choice?.message;
  if (typeof message !== 'object' || message === null) throw bad('choices[0] has no "message"');
  if (typeof message.refusal === 'string' && message.refusal !== '') throw bad(`the model refused: ${excerpt(message.refusal)}`);
  if (choice?.finish_reason === 'length') throw bad('the answer was cut off (finish_reason "length")');
  if (typeof message.content !== 'string') throw bad('choices[0].message.content is not a string');
  return message.content;
}

/** An item as the model may return it, before validation. */
type ValidItem = Omit<ExtractedItemDraft, 'ephemeral' | 'validFrom' | 'sourceTurnIds'> & { kind: LlmItemKind };

/**
 * The model's answer — `{"items": [...]}` — as valid items. Throws when the answer is not JSON
 * of that shape (tolerating a Markdown code fence, which some servers add despite the schema);
 * drops an invalid item and keeps the others.
 */
export function parseItems(content: string, endpoint = 'the endpoint'): ValidItem[] {
  const unfenced = content.trim().replace(/^```(?:json)?\s*([\s\S]*?)\s*```$/i, '$1');
  let json: unknown;
  try {
    json = JSON.parse(unfenced);
  } catch {
    throw new LlmExtractionError(`POST ${endpoint}: the model's answer is not JSON: ${excerpt(content)}`);
  }
  const items = Array.isArray(json) ? json : (json as { items?: unknown } | null)?.items;
  if (!Array.isArray(items)) throw new LlmExtractionError(`POST ${endpoint}: the model's answer has no "items" array: ${excerpt(content)}`);
  const valid: ValidItem[] = [];
  for (const raw of items) {
    const item = validItem(raw);
    if (item) valid.push(item);
    if (valid.length >= MAX_ITEMS) break;
  }
  return valid;
}

/** One item checked and normalised, or null when it cannot be a memory. Never throws. */
export function validItem(raw: unknown): ValidItem | null {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return null;
  const r = raw as Record<string, unknown>;
  if (!(LLM_ITEM_KINDS as readonly unknown[]).includes(r.kind)) return null;
  const kind = r.kind as LlmItemKind;
  const operation = r.operation === undefined ? 'assert' : r.operation;
  if (operation !== 'assert' && operation !== 'retract') return null;
  const subject = text(r.subject);
  const attribute = kind === 'procedure' ? procedureAttribute(r.attribute) : attributeSlug(r.attribute);
  const value = text(r.value) ?? (operation === 'retract' ? '' : null);
  const content = text(r.content);
  if (!subject || !attribute || value === null || !content) return null;
  const confidence = unitNumber(r.confidence);
  const importance = unitNumber(r.importance);
  if (confidence === null || importance === null) return null;
  const entities = Array.isArray(r.entities) ? r.entities : [];
  const seen = new Set<string>();
  const cleanEntities: string[] = [];
  for (const entity of entities) {
    const name = text(entity);
    if (!name || seen.has(name.toLowerCase())) continue;
    seen.add(name.toLowerCase());
    cleanEntities.push(name);
    if (cleanEntities.length >= MAX_ENTITIES) break;
  }
  const normalisedSubject = /^(user|assistant)$/i.test(subject) ? subject.toLowerCase() : subject;
  // A correction may land on the memory it answers (docs/memory-model.md §3); answers of prompt 1 have no "corrects".
  const correction = r.corrects === true ? { correction: attribute === LAST_MENTIONED ? ('open' as const) : ('named' as const) } : {};
  return {
    kind,
    subject: normalisedSubject,
    attribute,
    value,
    content,
    entities: cleanEntities,
    confidence,
    importance,
    operation,
    ...correction,
  };
}

/** A trimmed, non-empty string (capped), or null. */
function text(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const trimmed = value.replace(/\s+/g, ' ').trim();
  if (trimmed === '') return null;
  return trimmed.length > MAX_TEXT ? trimmed.slice(0, MAX_TEXT) : trimmed;
}

/** "Weekly Meeting" → "weekly_meeting"; "@last" kept; null when nothing is left. */
export function attributeSlug(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  if (value.trim() === LAST_MENTIONED) return LAST_MENTIONED;
  const slug = value
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 40)
    .replace(/_+$/, '');
  return slug === '' ? null : slug;
}

/** "procedure:Response Language", "response_language" → "procedure:response_language": the rule's topic is its merge key. */
export function procedureAttribute(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const topic = attributeSlug(value.replace(/^\s*procedure\s*[:_\-\s]\s*/iu, ''));
  return topic && topic !== LAST_MENTIONED ? `procedure:${topic}` : null;
}

/** A number (or numeric string) clamped to [0, 1]; null when it is not a finite number. */
function unitNumber(value: unknown): number | null {
  const n = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN;
  if (!Number.isFinite(n)) return null;
  return Math.min(1, Math.max(0, n));
}
