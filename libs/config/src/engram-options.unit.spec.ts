import { DEFAULT_ALIAS_MIN_SEEN, DEFAULT_FORGETTING_POLICY, DEFAULT_INSIGHT_MIN_SUPPORT, defaultRankingConfig } from '@engram/domain';
import { EngramConfig } from './engram-config';
import { ENGRAM_OPTION_TOKENS, engramOptionProviders, engramOptions } from './engram-options';
import { loadConfig } from './load-config';
import { RecallOptions } from './recall-options';
import { IngestLimits } from './service-options';

const optionsOf = (env: Record<string, string> = {}) => engramOptions(loadConfig({ LOG_LEVEL: 'silent', ...env }));

describe('engramOptions: the configuration mapped once into typed options', () => {
  it('given no variables, then ranking is the domain default, every default written once', () => {
    const { recall, forgetting } = optionsOf();
    expect(recall.ranking).toEqual(defaultRankingConfig);
    expect(forgetting.policy).toEqual(DEFAULT_FORGETTING_POLICY);
    // The variables' defaults are read from the domain, not repeated.
    const defaults = new EngramConfig();
    expect(defaults.ENGRAM_HALF_LIFE_FACT_DAYS).toBe(defaultRankingConfig.halfLifeDays.fact);
    expect(defaults.ENGRAM_RECALL_THRESHOLD).toBe(defaultRankingConfig.threshold);
  });

  it('given ranking variables, then they reach the ranking config and nothing else moves', () => {
    const { recall } = optionsOf({ ENGRAM_HALF_LIFE_TASK_DAYS: '3', ENGRAM_PRIOR_WEIGHT: '0.2', ENGRAM_ACCESS_HALF_LIFE_DAYS: '10' });
    expect(recall.ranking.halfLifeDays).toEqual({ ...defaultRankingConfig.halfLifeDays, task: 3 });
    expect(recall.ranking.priors).toEqual({ ...defaultRankingConfig.priors, weight: 0.2 });
    expect(recall.ranking.access).toEqual({ halfLifeDays: 10 });
    expect(recall.ranking.steering).toEqual(defaultRankingConfig.steering);
  });

  it('maps each consumer its slice', () => {
    const options = optionsOf({
      ENGRAM_RECALL_K: '7',
      ENGRAM_BUDGET_FACTS: '100',
      ENGRAM_MAX_TURNS_PER_REQUEST: '10',
      ENGRAM_API_KEYS: 'k1=acme',
      ENGRAM_ADMIN_KEY: 'root',
      ENGRAM_TOPIC_PREFIX: 'test.',
      ENGRAM_DATA_DIR: '/tmp/engram-x',
      KAFKA_BROKERS: ' a:9092, b:9092 ',
    });
    expect(options.recall).toMatchObject({ k: 7, budget: { facts: 100, procedures: 200 }, legs: 'both' });
    expect(options.ingest).toEqual({ maxTurnsPerRequest: 10, maxTextLength: 16_000, maxFutureMs: 86_400_000 });
    expect(options.auth.apiKeys.get('k1')).toBe('acme');
    expect(options.auth.adminKey).toBe('root');
    expect(options.http).toEqual({ port: 3000, host: '0.0.0.0', bodyLimitBytes: 1_048_576 });
    expect(options.pipeline.topicPrefix).toBe('test.');
    expect(options.sqlite).toEqual({ dataDir: '/tmp/engram-x', file: '/tmp/engram-x/engram.db', vectorCacheBytes: 64 * 1024 * 1024 });
    expect(options.kafka.brokers).toEqual(['a:9092', 'b:9092']);
  });

  it('sizes the vector cache of embedded search in MiB (ENGRAM_VECTOR_CACHE_MB; 0 keeps none)', () => {
    expect(optionsOf({ ENGRAM_VECTOR_CACHE_MB: '16' }).sqlite.vectorCacheBytes).toBe(16 * 1024 * 1024);
    expect(optionsOf({ ENGRAM_VECTOR_CACHE_MB: '0' }).sqlite.vectorCacheBytes).toBe(0);
    expect(() => optionsOf({ ENGRAM_VECTOR_CACHE_MB: '-1' })).toThrow(/ENGRAM_VECTOR_CACHE_MB/);
    expect(() => optionsOf({ ENGRAM_VECTOR_CACHE_MB: 'lots' })).toThrow(/ENGRAM_VECTOR_CACHE_MB/);
  });

  it("bounds the V8 heap's growth past what a full collection kept (ENGRAM_HEAP_GROWTH_PERCENT; 0 is V8's own)", () => {
    expect(optionsOf({}).process.heapGrowthPercent).toBe(25);
    expect(optionsOf({ ENGRAM_HEAP_GROWTH_PERCENT: '0' }).process.heapGrowthPercent).toBe(0);
    expect(optionsOf({ ENGRAM_HEAP_GROWTH_PERCENT: '100' }).process.heapGrowthPercent).toBe(100);
    expect(() => optionsOf({ ENGRAM_HEAP_GROWTH_PERCENT: '-5' })).toThrow(/ENGRAM_HEAP_GROWTH_PERCENT/);
    expect(() => optionsOf({ ENGRAM_HEAP_GROWTH_PERCENT: '2.5' })).toThrow(/ENGRAM_HEAP_GROWTH_PERCENT/);
  });

  it('maps the resolver, the replays, the extraction model and the master key their slices', () => {
    const options = optionsOf({
      ENGRAM_SIMILARITY_THRESHOLD: '0.9',
      ENGRAM_RECENT_TURNS: '12',
      ENGRAM_SUMMARY_EVERY: '3',
      ENGRAM_SUMMARY_MAX_CHARS: '900',
      ENGRAM_INSIGHTS: 'false',
      ENGRAM_INSIGHT_MIN_SUPPORT: '4',
      ENGRAM_EXTRACTOR: 'llm',
      ENGRAM_LLM_URL: 'http://127.0.0.1:9/v1',
      ENGRAM_LLM_MODEL: 'm',
      ENGRAM_WORKING_MEMORY_MINUTES: '30',
      ENGRAM_SENSITIVE_FACTS: 'unpinned',
      ENGRAM_SENSITIVE_FACTS_TENANTS: ' clinic = off,acme=pin ',
      ENGRAM_REBUILD_BATCH_SIZE: '100',
      ENGRAM_REBUILD_RATE_LIMIT: '50',
      ENGRAM_REBUILD_GRACE_MS: '10',
      ENGRAM_STAGE_ATTEMPTS: '5',
      ENGRAM_STAGE_RETRY_DELAY_MS: '7',
      ENGRAM_PROJECTION_POINTER_TTL_MS: '20',
      ENGRAM_DATA_DIR: '/tmp/engram-y',
      ENGRAM_MASTER_KEY: 'ab'.repeat(32),
    });
    const model = {
      ENGRAM_EXTRACTOR: 'llm',
      ENGRAM_SUMMARIZER: undefined,
      ENGRAM_LLM_URL: 'http://127.0.0.1:9/v1',
      ENGRAM_LLM_MODEL: 'm',
      ENGRAM_LLM_API_KEY: undefined,
      ENGRAM_LLM_TIMEOUT_MS: 60_000,
      ENGRAM_LLM_RETRIES: 3,
      ENGRAM_WORKING_MEMORY_MINUTES: 30,
    };
    expect(options.extraction).toEqual(model);
    expect(options.resolver).toEqual({
      similarityThreshold: 0.9,
      summary: { window: 12, every: 3, maxChars: 900 },
      summaryModel: model,
      insights: { enabled: false, rules: '', minSupport: 4 },
      sensitiveFacts: 'unpinned',
      sensitiveFactsByTenant: new Map([
        ['clinic', 'off'],
        ['acme', 'pin'],
      ]),
    });
    expect(options.replay).toEqual({ batchSize: 100, rateLimit: 50, graceMs: 10 });
    expect(options.pipeline).toMatchObject({ stageAttempts: 5, stageRetryDelayMs: 7, projectionPointerTtlMs: 20 });
    expect(options.masterKey).toEqual({
      ENGRAM_MASTER_KEY: 'ab'.repeat(32),
      ENGRAM_PREVIOUS_MASTER_KEY: undefined,
      ENGRAM_DATA_DIR: '/tmp/engram-y',
      ENGRAM_MODE: 'embedded',
      ENGRAM_FACT_STORE: undefined,
    });
  });

  it('given no variables, then the resolver and the replays get the defaults', () => {
    const { resolver, replay } = optionsOf();
    expect(resolver).toMatchObject({
      similarityThreshold: 0.85,
      summary: { window: 20, every: 4, maxChars: 2000 },
      insights: { enabled: true, rules: '', minSupport: DEFAULT_INSIGHT_MIN_SUPPORT },
    });
    expect(resolver.summaryModel.ENGRAM_EXTRACTOR).toBe('rules');
    expect(replay).toEqual({ batchSize: 2000, rateLimit: 0, graceMs: 30_000 });
  });

  it('maps the embedder its slice: the variables createEmbedder and createLexicon read', () => {
    expect(optionsOf().embedder).toMatchObject({
      ENGRAM_EMBEDDING_DIMENSIONS: 256,
      ENGRAM_LEXICON: 'cedict+wordnet',
      ENGRAM_EMBEDDINGS_URL: undefined,
      ENGRAM_EMBEDDINGS_BATCH_SIZE: 64,
    });
    expect(optionsOf({ ENGRAM_LEXICON: 'none' }).embedder.ENGRAM_LEXICON).toBe('none');
    expect(optionsOf({ ENGRAM_LEXICON: 'cedict' }).embedder.ENGRAM_LEXICON).toBe('cedict');
    expect(() => optionsOf({ ENGRAM_LEXICON: 'wordnet' })).toThrow(/ENGRAM_LEXICON/);
    const { embedder } = optionsOf({
      ENGRAM_EMBEDDINGS_URL: 'http://127.0.0.1:9/v1',
      ENGRAM_EMBEDDINGS_DIMENSIONS: '384',
      ENGRAM_EMBEDDINGS_INPUT_TYPE: 'prefix',
    });
    expect(embedder).toMatchObject({
      ENGRAM_EMBEDDINGS_URL: 'http://127.0.0.1:9/v1',
      ENGRAM_EMBEDDINGS_DIMENSIONS: 384,
      ENGRAM_EMBEDDINGS_INPUT_TYPE: 'prefix',
    });
  });

  it('maps the entity alias tables their slice', () => {
    expect(optionsOf().entityAliases).toEqual({ aliases: '', minSeen: DEFAULT_ALIAS_MIN_SEEN });
    expect(optionsOf({ ENGRAM_ENTITY_ALIASES: '{"Oracle":["甲骨文"]}', ENGRAM_ALIAS_MIN_SEEN: '0' }).entityAliases).toEqual({
      aliases: '{"Oracle":["甲骨文"]}',
      minSeen: 0,
    });
  });

  it('maps the webhooks their slice: the retry schedule, limits and the allowed hosts as a list', () => {
    expect(optionsOf().webhooks).toEqual({
      maxFailures: 20,
      retryBaseMs: 1000,
      retryMaxMs: 3_600_000,
      timeoutMs: 10_000,
      concurrency: 8,
      maxPerTenant: 20,
      allowedHosts: [],
    });
    const { webhooks } = optionsOf({
      ENGRAM_WEBHOOK_MAX_FAILURES: '3',
      ENGRAM_WEBHOOK_RETRY_BASE_MS: '50',
      ENGRAM_WEBHOOK_RETRY_MAX_MS: '400',
      ENGRAM_WEBHOOK_ALLOWED_HOSTS: ' 127.0.0.1, Hooks.Example.com. ,[::1]',
    });
    expect(webhooks).toMatchObject({
      maxFailures: 3,
      retryBaseMs: 50,
      retryMaxMs: 400,
      allowedHosts: ['127.0.0.1', 'hooks.example.com', '[::1]'],
    });
    expect(() => optionsOf({ ENGRAM_WEBHOOK_RETRY_BASE_MS: '5000', ENGRAM_WEBHOOK_RETRY_MAX_MS: '1000' })).toThrow(
      'ENGRAM_WEBHOOK_RETRY_MAX_MS: must be at least ENGRAM_WEBHOOK_RETRY_BASE_MS',
    );
    expect(() => optionsOf({ ENGRAM_WEBHOOK_ALLOWED_HOSTS: 'a.example, http://b.example/' })).toThrow('ENGRAM_WEBHOOK_ALLOWED_HOSTS');
    expect(() => optionsOf({ ENGRAM_WEBHOOK_MAX_FAILURES: '0' })).toThrow('ENGRAM_WEBHOOK_MAX_FAILURES');
  });

  it("maps the outage settings: the stage pause, recall's wait for the embedder, and the dependencies to watch", () => {
    const defaults = optionsOf();
    expect(defaults.pipeline.pause).toEqual({ firstMs: 250, maxMs: 10_000 });
    expect(defaults.recall.embedTimeoutMs).toBe(2000);
    // The hashing embedder and the rules call no server: nothing to watch.
    expect(defaults.dependencies).toEqual({ watched: [], recheckMs: 5000, statusTimeoutMs: 3000 });
    const set = optionsOf({
      ENGRAM_STAGE_PAUSE_MS: '20',
      ENGRAM_STAGE_PAUSE_MAX_MS: '400',
      ENGRAM_RECALL_EMBED_TIMEOUT_MS: '300',
      ENGRAM_DEPENDENCY_RECHECK_MS: '700',
      ENGRAM_EMBEDDINGS_URL: 'http://127.0.0.1:9/v1',
      ENGRAM_SUMMARIZER: 'llm',
      ENGRAM_LLM_URL: 'http://127.0.0.1:9/v1',
    });
    expect(set.pipeline.pause).toEqual({ firstMs: 20, maxMs: 400 });
    expect(set.recall.embedTimeoutMs).toBe(300);
    expect(set.dependencies).toEqual({ watched: ['embedder', 'llm'], recheckMs: 700, statusTimeoutMs: 3000 });
    expect(() => optionsOf({ ENGRAM_STAGE_PAUSE_MS: '5000', ENGRAM_STAGE_PAUSE_MAX_MS: '1000' })).toThrow(
      'ENGRAM_STAGE_PAUSE_MAX_MS: must be at least ENGRAM_STAGE_PAUSE_MS',
    );
    expect(() => optionsOf({ ENGRAM_RECALL_EMBED_TIMEOUT_MS: 'soon' })).toThrow('ENGRAM_RECALL_EMBED_TIMEOUT_MS');
    expect(() => optionsOf({ ENGRAM_DEPENDENCY_RECHECK_MS: '0' })).toThrow('ENGRAM_DEPENDENCY_RECHECK_MS');
  });

  it("watches the stores' servers where a port is bound to them, and bounds every call to them", () => {
    const distributed = optionsOf({
      ENGRAM_MODE: 'distributed',
      KAFKA_BROKERS: '127.0.0.1:9092',
      MONGODB_URI: 'mongodb://127.0.0.1:27017/',
      ELASTICSEARCH_URL: 'http://127.0.0.1:9200',
      ENGRAM_MASTER_KEY: 'ab'.repeat(32),
    });
    expect(distributed.dependencies).toMatchObject({ watched: ['mongodb', 'elasticsearch', 'kafka'], logServer: 'kafka' });
    expect(distributed.mongo).toMatchObject({ serverSelectionTimeoutMs: 5000, socketTimeoutMs: 30_000 });
    expect(distributed.elasticsearch.requestTimeoutMs).toBe(10_000);
    expect(distributed.kafka.requestTimeoutMs).toBe(30_000);
    const set = optionsOf({
      MONGODB_SERVER_SELECTION_TIMEOUT_MS: '1500',
      MONGODB_SOCKET_TIMEOUT_MS: '4000',
      ELASTICSEARCH_REQUEST_TIMEOUT_MS: '2500',
      KAFKA_REQUEST_TIMEOUT_MS: '3500',
      ENGRAM_STATUS_TIMEOUT_MS: '1200',
    });
    expect(set.dependencies.statusTimeoutMs).toBe(1200);
    expect(set.mongo).toMatchObject({ serverSelectionTimeoutMs: 1500, socketTimeoutMs: 4000 });
    expect(set.elasticsearch.requestTimeoutMs).toBe(2500);
    expect(set.kafka.requestTimeoutMs).toBe(3500);
    expect(() => optionsOf({ MONGODB_SOCKET_TIMEOUT_MS: '0' })).toThrow('MONGODB_SOCKET_TIMEOUT_MS');
    expect(() => optionsOf({ ELASTICSEARCH_REQUEST_TIMEOUT_MS: 'never' })).toThrow('ELASTICSEARCH_REQUEST_TIMEOUT_MS');
  });

  it('provides every slice under its own token, frozen', () => {
    const providers = engramOptionProviders(optionsOf());
    expect(providers.map((p) => p.provide)).toEqual(ENGRAM_OPTION_TOKENS);
    const recall = providers.find((p) => p.provide === RecallOptions)?.useValue as RecallOptions;
    expect(recall.k).toBe(5);
    expect(Object.isFrozen(providers.find((p) => p.provide === IngestLimits)?.useValue)).toBe(true);
  });
});
