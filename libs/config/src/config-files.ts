import { readFileSync } from 'node:fs';
// The rule schema is the domain's (pure, no I/O); configuration only reads and reports.
import { parseInsightRules } from '@engram/domain';

/**
 * The two variables that may name a file (ENGRAM_ENTITY_ALIASES, ENGRAM_INSIGHT_RULES): reading
 * the JSON they hold, and the start-up checks of it.
 */

/** The JSON text of ENGRAM_ENTITY_ALIASES: inline, or read from the file it names. */
export function entityAliasesSource(value: string): string {
  const trimmed = value.trim();
  if (trimmed === '' || trimmed.startsWith('{')) return trimmed;
  return readFileSync(trimmed, 'utf8');
}

export function entityAliasProblems(value: string): string[] {
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

export function insightRuleProblems(value: string): string[] {
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
