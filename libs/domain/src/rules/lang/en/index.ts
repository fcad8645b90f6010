/** The English language pack: every English cue and pattern of the rule extractor and of screening, by family. */
import type { LanguagePack } from '../../language-pack';
import { enAssistant } from './assistant';
import { enClauses } from './clauses';
import { enConstraints } from './constraints';
import { enCorrections } from './corrections';
import { enFacts } from './facts';
import { enIdentity } from './identity';
import { enPlans } from './plans';
import { enPreferences } from './preferences';
import { enProcedures } from './procedures';
import { enScopes } from './scopes';
import { enScreening } from './screening';
import { enWords } from './words';

export const en: LanguagePack = {
  language: 'en',
  clauses: enClauses,
  words: enWords,
  identity: enIdentity,
  corrections: enCorrections,
  plans: enPlans,
  preferences: enPreferences,
  procedures: enProcedures,
  assistant: enAssistant,
  facts: enFacts,
  constraints: enConstraints,
  screening: enScreening,
  scopes: enScopes,
};
