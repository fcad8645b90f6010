import { excerpt, postJson, withRetries } from '@engram/http-json';
import {
  AVOIDED,
  DEFAULT_WORKING_MEMORY_MINUTES,
  defaultRuleExtractorConfig,
  endOfScope,
  LAST_MENTIONED,
  NOT_HELD,
  PINNED_FAMILIES,
  slugify,
  TIME_SCOPES,
  type ExtractedItemDraft,
  type ExtractionInput,
  type ExtractionStrategy,
  type TimeScope,
} from '@engram/domain';
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
 * is dropped (never the whole turn), numbers are clamped to [0, 1], attributes and subjects put in
 * the shapes the resolver keys and pins by, and an item's time scope becomes its `expiresAt` (an
 * unknown scope is ignored). An answer that is not the JSON asked for throws, so the extractor stage
 * retries the batch and finally dead-letters the event.
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
  /** How long a choice for the task at hand holds (scope `task`), in minutes: ENGRAM_WORKING_MEMORY_MINUTES. Default 120. */
  readonly workingMemoryMinutes?: number;
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
  /** The model says each item's scope; one it left without holds ("从今天起我吃素" is no day's diet). */
  readonly decidesTimeScopes = true;
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
    const minutes = options.workingMemoryMinutes ?? DEFAULT_WORKING_MEMORY_MINUTES;
    if (!Number.isFinite(minutes) || minutes <= 0) throw new RangeError(`workingMemoryMinutes must be a positive number, got ${minutes}`);
  }

  async extract(input: ExtractionInput): Promise<ExtractedItemDraft[]> {
    if (input.role === 'system' || input.role === 'tool' || input.text.trim() === '') return [];
    const content = await this.request(input);
    const minutes = this.options.workingMemoryMinutes ?? DEFAULT_WORKING_MEMORY_MINUTES;
    return parseItems(content, this.endpoint).map(({ scope, ...item }) => {
      // World time, from when the turn was said: a replay or a late batch decides the same end.
      const expiresAt = scope ? endOfScope(scope, input.occurredAt, minutes) : null;
      return {
        ...item,
        ephemeral: input.ephemeral,
        validFrom: input.occurredAt,
        ...(expiresAt ? { expiresAt } : {}),
        sourceTurnIds: [input.turnId],
      };
    });
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
    return withRetries(() => this.attempt(body), {
      retries: this.retries,
      backoffMs: this.backoffMs,
      errorClass: LlmExtractionError,
      dependency: 'llm',
    });
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

/** An item of the model's answer, validated: a draft but for what the turn gives, with the time scope it set, if any. */
type ValidItem = Omit<ExtractedItemDraft, 'ephemeral' | 'validFrom' | 'sourceTurnIds' | 'expiresAt'> & {
  kind: LlmItemKind;
  scope?: TimeScope;
};

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
  const operation = r.operation === undefined ? 'assert' : r.operation;
  if (operation !== 'assert' && operation !== 'retract') return null;
  const saidOf = subjectOf(r.subject);
  const saidAttribute =
    r.kind === 'procedure' ? procedureAttribute(r.attribute) : (familyAttribute(r.attribute) ?? attributeSlug(r.attribute));
  // The name of a person the user names by relation ("用户的女儿叫小美": subject "daughter", attribute
  // "name") is the user's family fact, keyed and pinned as the rules key it (`family:daughter`).
  const relationName = saidOf !== null && saidAttribute === 'name' && RELATION_NAMES.has(saidOf);
  const subject = relationName ? 'user' : saidOf;
  const attribute = relationName ? `family:${saidOf}` : saidAttribute;
  const said = text(r.value);
  const content = text(r.content);
  if (!subject || !attribute || !content) return null;
  const kind = kindOf(r.kind as LlmItemKind, attribute);
  // A family's key names its fact ("allergy:青霉素"): a retraction of it takes the fact back whatever
  // value the model put beside it (the resolver retracts only a matching value when one is given).
  const value = operation === 'retract' ? (attribute.includes(':') ? '' : (said ?? '')) : preferenceValue(attribute, said);
  if (value === null) return null;
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
  // A correction may land on the memory it answers (docs/memory-model.md §3); answers of prompt 1 have no "corrects".
  const correction = r.corrects === true ? { correction: attribute === LAST_MENTIONED ? ('open' as const) : ('named' as const) } : {};
  const scope = scopeOf(r.scope);
  const keys = attributeWords(attribute);
  return {
    kind,
    subject,
    attribute,
    value,
    content,
    entities: cleanEntities,
    confidence,
    importance,
    operation,
    ...correction,
    ...(keys ? { keys: [keys] } : {}),
    ...(scope ? { scope } : {}),
  };
}

/**
 * A known attribute's words in both languages ("公司 单位 employer company"), as the rules give their
 * facts (`words.attributes` of the language packs): "我在哪家公司" or "which city do I live in" finds
 * "用户现在在字节跳动工作。" or "The user moved to Lisbon.", whose words name neither.
 */
function attributeWords(attribute: string): string | null {
  const words = defaultRuleExtractorConfig.words.attributes[attribute.split(':')[0]];
  return words ? words.join(' ') : null;
}

/**
 * The families keyed by the thing they are about, as the rule extractor keys them: the standing
 * constraints the resolver pins (`allergy:`, `diet:`, `health:`, `accessibility:`) and likings
 * (`preference:<thing>`).
 */
const THING_FAMILIES: readonly string[] = [...PINNED_FAMILIES, 'preference'];

/**
 * "allergy:花生", "Preference: Window Seats", "diet：吃素" → "allergy:花生", "preference:window-seats",
 * "diet:吃素": the family lower-cased, the thing slugged the rules' way (`slugify`), so "Window seats are
 * my favourite" said to either strategy is one key. Null when it is no family of these (only a colon
 * separates one: "diet_plan" is a plain attribute), or names no thing.
 */
export function familyAttribute(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const m = /^\s*([a-z]+)\s*:\s*(.+)$/iu.exec(value.normalize('NFKC'));
  if (!m || !THING_FAMILIES.includes(m[1].toLowerCase())) return null;
  const thing = slugify(m[2]);
  return thing ? `${m[1].toLowerCase()}:${thing}` : null;
}

/**
 * The kind a family's fact is: a constraint is a profile fact and a liking a preference, whatever the
 * model called them, for that is what the resolver pins ("我女儿对花生过敏" in every prompt about food).
 */
function kindOf(kind: LlmItemKind, attribute: string): LlmItemKind {
  if (kind === 'procedure') return kind;
  const family = attribute.slice(0, Math.max(0, attribute.indexOf(':')));
  if (PINNED_FAMILIES.includes(family)) return 'profile';
  return family === 'preference' ? 'preference' : kind;
}

const LIKING_VALUES: readonly string[] = ['like', 'dislike', AVOIDED, 'habit'];

/**
 * A family's value in the words the resolver reads: a liking's ("Avoid" → "avoid": a food not taken is
 * pinned), and a constraint said not to hold ("None" → "none", rule 17: it lands on the constraint it
 * denies); others as said.
 */
function preferenceValue(attribute: string, value: string | null): string | null {
  if (value === null || !attribute.includes(':')) return value;
  const word = value.trim().toLowerCase();
  if (word === NOT_HELD) return NOT_HELD;
  return attribute.startsWith('preference:') && LIKING_VALUES.includes(word) ? word : value;
}

/** The relation words of the language packs ("女儿", "mom", "daughter") → the relation ("daughter"), as the rules name them. */
const RELATIONS: ReadonlyMap<string, string> = new Map(
  Object.entries(defaultRuleExtractorConfig.identity.relations).flatMap(([relation, names]) => [
    [relation, relation] as const,
    ...names.map((name) => [name.toLowerCase(), relation] as const),
  ]),
);

const RELATION_NAMES: ReadonlySet<string> = new Set(RELATIONS.values());

/**
 * "user" and "assistant" in any case; a relation however the model wrote it ("女儿", "我女儿", "My
 * Daughter") as the rules name it ("daughter"), so the person's facts share one key; a name as written.
 */
function subjectOf(value: unknown): string | null {
  const subject = text(value);
  if (!subject) return null;
  if (/^(user|assistant)$/i.test(subject)) return subject.toLowerCase();
  const lower = subject.toLowerCase();
  const bare = lower.replace(/^(?:my|our)\s+|^我们?的?/u, '');
  return RELATIONS.get(lower) ?? RELATIONS.get(bare) ?? subject;
}

/** The item's time scope, or none: "none", a missing field (answers before prompt 5) and anything unknown all hold. */
function scopeOf(value: unknown): TimeScope | undefined {
  if (typeof value !== 'string') return undefined;
  const scope = value.trim().toLowerCase();
  return (TIME_SCOPES as readonly string[]).includes(scope) ? (scope as TimeScope) : undefined;
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
