// Rules: the bilingual rule extractor, rule families × language packs.
export * from './rule-extractor.config';
export * from './rule-extractor';
export type { LanguagePack } from './language-pack';
export { LANGUAGE_PACKS } from './lang/packs';
