import { plainToInstance, Transform } from 'class-transformer';
import { IsBoolean, IsIn, IsInt, IsNumber, IsOptional, IsString, Max, Min, validateSync } from 'class-validator';

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

  /** `key=tenant` pairs, comma-separated. Empty: no auth, tenant `default`, loopback only. */
  @IsString() ENGRAM_API_KEYS = '';

  @Transform(toNumber) @IsInt() @Min(1024) ENGRAM_BODY_LIMIT_BYTES = 1_048_576;
  @Transform(toNumber) @IsInt() @Min(1) @Max(10_000) ENGRAM_MAX_TURNS_PER_REQUEST = 500;
  @Transform(toNumber) @IsInt() @Min(1) @Max(1_000_000) ENGRAM_MAX_TEXT_LENGTH = 16_000;

  // Recall
  @Transform(toNumber) @IsInt() @Min(1) @Max(100) ENGRAM_RECALL_K = 5;
  @Transform(toNumber) @IsInt() @Min(1) @Max(1000) ENGRAM_RECALL_CANDIDATES = 30;
  @Transform(toNumber) @IsInt() @Min(50) ENGRAM_TOKEN_BUDGET = 1500;
  @Transform(toNumber) @IsInt() @Min(0) @Max(500) ENGRAM_RECENT_TURNS = 20;
  @Transform(toNumber) @IsNumber() @Min(0) @Max(1) ENGRAM_RECALL_THRESHOLD = 0.05;
  @Transform(toNumber) @IsNumber() @Min(0) ENGRAM_HALF_LIFE_TASK_DAYS = 7;
  @Transform(toNumber) @IsNumber() @Min(0) ENGRAM_HALF_LIFE_DECISION_DAYS = 7;
  @Transform(toNumber) @IsNumber() @Min(0) ENGRAM_HALF_LIFE_FACT_DAYS = 30;
  @Transform(toNumber) @IsNumber() @Min(0) ENGRAM_HALF_LIFE_PREFERENCE_DAYS = 30;
  /** How long `after` may wait for the read side before answering anyway. */
  @Transform(toNumber) @IsInt() @Min(0) @Max(60_000) ENGRAM_AFTER_TIMEOUT_MS = 5000;

  // Write side
  @Transform(toNumber) @IsNumber() @Min(0) @Max(1) ENGRAM_SIMILARITY_THRESHOLD = 0.85;
  @Transform(toNumber) @IsInt() @Min(1) @Max(100_000) ENGRAM_BATCH_SIZE = 500;

  // Embeddings
  @Transform(toNumber) @IsInt() @Min(8) @Max(4096) ENGRAM_EMBEDDING_DIMENSIONS = 256;

  // Operations
  @IsIn(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']) LOG_LEVEL = 'info';
  @Transform(toBool) @IsBoolean() ENGRAM_LOG_PRETTY = false;
  @IsString() ENGRAM_TOPIC_PREFIX = '';

  /** Parsed `ENGRAM_API_KEYS`: API key → tenant. */
  apiKeys(): ReadonlyMap<string, string> {
    const keys = new Map<string, string>();
    for (const pair of this.ENGRAM_API_KEYS.split(',').map((p) => p.trim()).filter(Boolean)) {
      const [key, tenant] = pair.split('=').map((s) => s.trim());
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
  const relevant = Object.fromEntries(
    Object.entries(env).filter(([k, v]) => known.includes(k) && v !== undefined && v !== ''),
  );
  const config = plainToInstance(EngramConfig, relevant);
  const problems = validateSync(config).flatMap((e) =>
    Object.values(e.constraints ?? {}).map((c) => `${e.property}=${JSON.stringify(env[e.property])}: ${c}`),
  );
  for (const pair of config.ENGRAM_API_KEYS.split(',').map((p) => p.trim()).filter(Boolean)) {
    const [key, tenant, extra] = pair.split('=');
    if (!key?.trim() || !tenant?.trim() || extra !== undefined) {
      problems.push(`ENGRAM_API_KEYS: entries must look like key=tenant, got "${pair.replace(/=.*/, '=…')}"`);
    }
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}
