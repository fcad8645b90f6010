import type { LanguagePack } from './rules/language-pack';
import { LANGUAGE_PACKS } from './rules/lang/packs';
import { mergePacks } from './rules/merge-packs';
import { type CueSignal, type Signal } from './screening-signals';

/**
 * What the screening filter listens for. Configuration, not code: the cues are the language packs'
 * (`rules/lang/<language>/screening.ts`), beside the rules' own cues, and bumping `version` lets a
 * reprocess tell old screening results from new ones.
 *
 * Cue matching (see `cue-matching.ts`): cues containing Latin letters match on word boundaries,
 * case-insensitively, with any whitespace between words; Chinese cues match as substrings.
 */

export { SIGNALS, type CueSignal, type Signal } from './screening-signals';

export interface ScreeningConfig {
  /** Whole-turn acknowledgements ("嗯嗯", "ok", "thanks!"); a turn made only of these is dropped. */
  readonly chitChat: readonly string[];
  readonly cues: Readonly<Record<CueSignal, readonly string[]>>;
  /**
   * What a one-off request asks about, whose answer is stale tomorrow (weather, opening hours, "nearby"):
   * a user's turn is ephemeral when one of its questions names one ("今天成都下雨吗", "is the Apple store
   * near me open now?"), not when a statement does ("I joined a nearby church"). An assistant's turn
   * is ephemeral when the turn it answers is one (see `screenTurn`).
   */
  readonly ephemeralCues: readonly string[];
  /** Requests that are one-off by themselves, question or not ("帮我查一下…", "translate this"). */
  readonly ephemeralRequests: readonly string[];
  /** First words that make an English sentence a question without its question mark ("what's the traffic like…"). */
  readonly questionLeads: readonly string[];
  /**
   * Shapes of specific information (numbers, dates, names, codes): "她 10 月 18 号生日", "I shoot with
   * a Sony A7 IV" carry no cue word, yet are exactly what is asked later. Regex sources, matched
   * case-sensitively (a capital letter is part of what makes a name).
   */
  readonly detailPatterns: readonly string[];
  /**
   * The assistant restating the user ("好的，你喜欢用 VS Code，我记下了"): details in such a turn are
   * the user's, already screened on the user's turn, so they do not make the assistant's turn worth keeping.
   */
  readonly assistantEchoCues: readonly string[];
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
  version: 'screening-6',
  ...screeningCuesOf(LANGUAGE_PACKS),
};
