import type { SensitiveFacts } from '@engram/domain';
import type { EngramConfig } from './engram-config';

/**
 * The typed options of the write side's stages and of the replays (rebuild, online rebuild,
 * reprocess), one slice per consumer, each mapped from the validated configuration by one function
 * here. How every stage reads the log (prefix, batches, retries, the version pointer's age) is
 * `PipelineOptions` (service-options.ts), which the replays read too.
 */

/**
 * Which extraction strategy and summary writer run, and the chat model's settings: the variables as
 * stated, because the factories that read them (`createExtractionStrategy`, `createSummaryWriter` in
 * libs/adapters-llm) name them in their errors (`ENGRAM_LLM_URL: required when ENGRAM_EXTRACTOR=llm`).
 */
export const ExtractionOptions = Symbol('ExtractionOptions');
export type ExtractionOptions = Pick<
  EngramConfig,
  | 'ENGRAM_EXTRACTOR'
  | 'ENGRAM_SUMMARIZER'
  | 'ENGRAM_LLM_URL'
  | 'ENGRAM_LLM_MODEL'
  | 'ENGRAM_LLM_API_KEY'
  | 'ENGRAM_LLM_TIMEOUT_MS'
  | 'ENGRAM_LLM_RETRIES'
  | 'ENGRAM_WORKING_MEMORY_MINUTES'
>;

export function extractionOptionsFrom(config: EngramConfig): ExtractionOptions {
  return {
    ENGRAM_EXTRACTOR: config.ENGRAM_EXTRACTOR,
    ENGRAM_SUMMARIZER: config.ENGRAM_SUMMARIZER,
    ENGRAM_LLM_URL: config.ENGRAM_LLM_URL,
    ENGRAM_LLM_MODEL: config.ENGRAM_LLM_MODEL,
    ENGRAM_LLM_API_KEY: config.ENGRAM_LLM_API_KEY,
    ENGRAM_LLM_TIMEOUT_MS: config.ENGRAM_LLM_TIMEOUT_MS,
    ENGRAM_LLM_RETRIES: config.ENGRAM_LLM_RETRIES,
    ENGRAM_WORKING_MEMORY_MINUTES: config.ENGRAM_WORKING_MEMORY_MINUTES,
  };
}

/** What the resolver decides with: when two memories are one, when a session's summary is due and how long, and insights. */
export const ResolverOptions = Symbol('ResolverOptions');
export interface ResolverOptions {
  /** Cosine at or above which a new item is the same memory as an old one. */
  readonly similarityThreshold: number;
  /** The session's recent window (turns), how many more turns leave it before the summary is re-derived (0: no summaries), its longest size in characters. */
  readonly summary: { readonly window: number; readonly every: number; readonly maxChars: number };
  /** Who writes the summary (ENGRAM_SUMMARIZER) and the chat model it may use. */
  readonly summaryModel: ExtractionOptions;
  /** Off: no insight is derived. `rules`: ENGRAM_INSIGHT_RULES as written (JSON or a file's path; empty: the defaults only). */
  readonly insights: { readonly enabled: boolean; readonly rules: string; readonly minSupport: number };
  /** Health facts: pinned, unpinned, or not stored (ENGRAM_SENSITIVE_FACTS). */
  readonly sensitiveFacts: SensitiveFacts;
  /** The tenants whose health facts are kept otherwise (ENGRAM_SENSITIVE_FACTS_TENANTS). */
  readonly sensitiveFactsByTenant: ReadonlyMap<string, SensitiveFacts>;
}

export function resolverOptionsFrom(config: EngramConfig): ResolverOptions {
  return {
    similarityThreshold: config.ENGRAM_SIMILARITY_THRESHOLD,
    summary: { window: config.ENGRAM_RECENT_TURNS, every: config.ENGRAM_SUMMARY_EVERY, maxChars: config.ENGRAM_SUMMARY_MAX_CHARS },
    summaryModel: extractionOptionsFrom(config),
    insights: { enabled: config.ENGRAM_INSIGHTS, rules: config.ENGRAM_INSIGHT_RULES, minSupport: config.ENGRAM_INSIGHT_MIN_SUPPORT },
    sensitiveFacts: config.ENGRAM_SENSITIVE_FACTS,
    sensitiveFactsByTenant: sensitiveFactsByTenant(config.ENGRAM_SENSITIVE_FACTS_TENANTS),
  };
}

/** How fast the replays read: events per batch, events per second (0: no limit), and how long an online rebuild keeps the old version after the swap. */
export const ReplayOptions = Symbol('ReplayOptions');
export interface ReplayOptions {
  readonly batchSize: number;
  readonly rateLimit: number;
  readonly graceMs: number;
}

export function replayOptionsFrom(config: EngramConfig): ReplayOptions {
  return {
    batchSize: config.ENGRAM_REBUILD_BATCH_SIZE,
    rateLimit: config.ENGRAM_REBUILD_RATE_LIMIT,
    graceMs: config.ENGRAM_REBUILD_GRACE_MS,
  };
}

/**
 * Where the master key comes from (docs/security.md): the variables as stated, since the key's
 * loader names them in its errors; the data directory holds master.key when no ENGRAM_MASTER_KEY is
 * set and the fact store is SQLite (which the mode and ENGRAM_FACT_STORE decide).
 */
export const MasterKeyOptions = Symbol('MasterKeyOptions');
export type MasterKeyOptions = Pick<EngramConfig, 'ENGRAM_MASTER_KEY' | 'ENGRAM_DATA_DIR' | 'ENGRAM_MODE'> &
  Partial<Pick<EngramConfig, 'ENGRAM_PREVIOUS_MASTER_KEY' | 'ENGRAM_FACT_STORE'>>;

export function masterKeyOptionsFrom(config: EngramConfig): MasterKeyOptions {
  return {
    ENGRAM_MASTER_KEY: config.ENGRAM_MASTER_KEY,
    ENGRAM_PREVIOUS_MASTER_KEY: config.ENGRAM_PREVIOUS_MASTER_KEY,
    ENGRAM_DATA_DIR: config.ENGRAM_DATA_DIR,
    ENGRAM_MODE: config.ENGRAM_MODE,
    ENGRAM_FACT_STORE: config.ENGRAM_FACT_STORE,
  };
}

/** `tenant=mode, …` as validated by EngramConfig: each tenant's mode for its health facts. */
function sensitiveFactsByTenant(text: string): ReadonlyMap<string, SensitiveFacts> {
  const pairs = text
    .split(',')
    .map((pair) => pair.split('=').map((part) => part.trim()))
    .filter(([tenant]) => tenant !== '');
  return new Map(pairs.map(([tenant, mode]) => [tenant, mode as SensitiveFacts]));
}
