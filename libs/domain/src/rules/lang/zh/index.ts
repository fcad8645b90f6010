/** The Chinese language pack: every Chinese cue and pattern of the rule extractor and of screening, by family. */
import type { LanguagePack } from '../../language-pack';
import { zhAssistant } from './assistant';
import { zhClauses } from './clauses';
import { zhConstraints } from './constraints';
import { zhCorrections } from './corrections';
import { zhFacts } from './facts';
import { zhIdentity } from './identity';
import { zhPlans } from './plans';
import { zhPreferences } from './preferences';
import { zhProcedures } from './procedures';
import { zhScopes } from './scopes';
import { zhScreening } from './screening';
import { zhWords } from './words';

export const zh: LanguagePack = {
  language: 'zh',
  clauses: zhClauses,
  words: zhWords,
  identity: zhIdentity,
  corrections: zhCorrections,
  plans: zhPlans,
  preferences: zhPreferences,
  procedures: zhProcedures,
  assistant: zhAssistant,
  facts: zhFacts,
  constraints: zhConstraints,
  screening: zhScreening,
  scopes: zhScopes,
};
