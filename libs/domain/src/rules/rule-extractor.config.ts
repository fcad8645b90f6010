import type { MemoryKind } from '@engram/contracts';
import { attributeImportance, attributeKinds, catalog, type CatalogEntry } from './catalog';
import type { RuleCues } from './language-pack';
import { LANGUAGE_PACKS } from './lang/packs';
import { mergePacks } from './merge-packs';

export type { CatalogEntry } from './catalog';
export type { ProcedureCues } from './language-pack';

/**
 * The rule extractor's configuration: the language packs' rule sections merged (`lang/zh`, `lang/en`),
 * plus what is the same in every language (the product catalog, the kinds of known attributes).
 * Bump `version` when a change alters what is extracted: it is part of every derived event id.
 */
export interface RuleExtractorConfig extends RuleCues {
  readonly version: string;
  readonly catalog: readonly CatalogEntry[];
  /** Kind of a known attribute; others take the kind of the rule that found them. */
  readonly attributeKinds: Readonly<Record<string, MemoryKind>>;
  /** Importance of attributes that matter more than their kind suggests (money, dates). */
  readonly attributeImportance: Readonly<Record<string, number>>;
}

/** The rule sections of the given packs, merged. */
export function ruleCuesOf(packs: readonly RuleCues[]): RuleCues {
  const { clauses, words, identity, corrections, plans, preferences, procedures, assistant, facts, constraints } = mergePacks(packs);
  return { clauses, words, identity, corrections, plans, preferences, procedures, assistant, facts, constraints };
}

export const defaultRuleExtractorConfig: RuleExtractorConfig = {
  version: 'rules-10',
  ...ruleCuesOf(LANGUAGE_PACKS),
  catalog,
  attributeKinds,
  attributeImportance,
};
