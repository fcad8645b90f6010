import type { LanguagePack, ScreeningCues } from '../rules/language-pack';
import { LANGUAGE_PACKS } from '../rules/lang/packs';
import { mergePacks } from '../rules/merge-packs';
import { type Signal } from './screening-signals';

/**
 * What the screening filter listens for. Configuration, not code: the cues are the language packs'
 * (`rules/lang/<language>/screening.ts`), beside the rules' own cues, and bumping `version` lets a
 * reprocess tell old screening results from new ones.
 *
 * Cue matching (see `cue-matching.ts`): cues containing Latin letters match on word boundaries,
 * case-insensitively, with any whitespace between words; Chinese cues match as substrings.
 */

export { SIGNALS, type CueSignal, type Signal } from './screening-signals';

/** The packs' screening cues merged (`screeningCuesOf`), and the version that names them. */
export interface ScreeningConfig extends ScreeningCues {
  readonly version: string;
}

/**
 * Assistant turns matter for what the assistant recommended, promised or concluded; its other
 * sentences ("你喜欢 VS Code 吗？") echo the user and must not become the user's facts.
 */
export const ASSISTANT_SIGNALS: readonly Signal[] = ['recommendation', 'detail'];

/** The screening sections of the given packs, merged; `\d` (any digit) is a detail in every language. */
export function screeningCuesOf(packs: readonly Pick<LanguagePack, 'screening'>[]): Omit<ScreeningConfig, 'version'> {
  const { screening } = mergePacks(packs);
  return { ...screening, detailPatterns: [String.raw`\d`, ...screening.detailPatterns] };
}

export const defaultScreeningConfig: ScreeningConfig = {
  version: 'screening-8',
  ...screeningCuesOf(LANGUAGE_PACKS),
};
