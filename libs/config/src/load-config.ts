import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { parseMasterKey } from '@engram/domain';
import { entityAliasProblems, insightRuleProblems } from './config-files';
import { EngramConfig } from './engram-config';
import { bindingProblems } from './port-bindings';

/**
 * Builds the configuration from the environment and validates it once, at start-up: a bad value
 * stops the process with a message naming every bad variable (and never echoing a secret).
 */
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
  // The backends each port is bound to need their addresses (and a shared key store, a master key).
  problems.push(...bindingProblems(config));
  if (config.ENGRAM_MASTER_KEY !== undefined && !parseMasterKey(config.ENGRAM_MASTER_KEY)) {
    // Never echoed: it is a secret.
    problems.push('ENGRAM_MASTER_KEY: must be 32 bytes, as 64 hex digits or as base64 (e.g. `openssl rand -base64 32`)');
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
  if (config.ENGRAM_WEBHOOK_RETRY_MAX_MS < config.ENGRAM_WEBHOOK_RETRY_BASE_MS)
    problems.push('ENGRAM_WEBHOOK_RETRY_MAX_MS: must be at least ENGRAM_WEBHOOK_RETRY_BASE_MS');
  if (config.ENGRAM_STAGE_PAUSE_MAX_MS < config.ENGRAM_STAGE_PAUSE_MS)
    problems.push('ENGRAM_STAGE_PAUSE_MAX_MS: must be at least ENGRAM_STAGE_PAUSE_MS');
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
