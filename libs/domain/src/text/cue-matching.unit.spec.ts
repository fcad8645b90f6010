import * as fs from 'node:fs';
import * as path from 'node:path';
import { DEFAULT_INSIGHT_RULES } from '../insights/insights.config';
import { defaultRuleExtractorConfig } from '../rules/rule-extractor.config';
import { defaultScreeningConfig } from '../screening/screening.config';
import { cueMatcher, cueRegExp, findCue, foldedForCues, mayMatch } from './cue-matching';

/** Every list of strings in a configuration: the cue lists findCue and the insight rules match. */
function cueLists(value: unknown, into: string[][] = []): string[][] {
  if (Array.isArray(value)) {
    if (value.length > 0 && value.every((item) => typeof item === 'string')) into.push(value as string[]);
    else for (const item of value) cueLists(item, into);
  } else if (value !== null && typeof value === 'object' && !(value instanceof RegExp)) {
    for (const item of Object.values(value)) cueLists(item, into);
  }
  return into;
}

const LISTS = cueLists([defaultRuleExtractorConfig, defaultScreeningConfig, DEFAULT_INSIGHT_RULES]);
const CUES = [...new Set(LISTS.flat())];

/** Each cue as said in ways the case-insensitive regex still matches, inside a sentence. */
function variants(cue: string): string[] {
  return [
    cue,
    `So, ${cue.toUpperCase()} now.`,
    `我觉得${cue}吧`,
    cue.replace(/s/g, 'ſ').replace(/k/g, '\u212a'),
    cue.replace(/'/g, '’').replace(/ /g, '  \n'),
    `x${cue}y`,
  ];
}

const BILINGUAL = fs
  .readFileSync(path.join(__dirname, '../../../../test/eval/engram-bilingual.jsonl'), 'utf8')
  .split('\n')
  .filter(Boolean)
  .map(
    (line) => (JSON.parse(line) as { text?: string; question?: string }).text ?? (JSON.parse(line) as { question?: string }).question ?? '',
  )
  .filter(Boolean);

describe('cue matching', () => {
  it('given the shipped cue lists, then almost every one has literals to skip texts by', () => {
    expect(LISTS.length).toBeGreaterThan(50);
    const skipping = LISTS.filter((cues) => cueMatcher(cues).literals !== null).length;
    expect(skipping / LISTS.length).toBeGreaterThan(0.9);
  });

  it('given texts with and without the cues, then the literal check never rules out a text the regex matches', () => {
    // Each list against its own cues said every way, every other list's cues (one way in seven), and real turns.
    const others = CUES.filter((_, i) => i % 7 === 0).flatMap(variants);
    const differing: { cues: string[]; text: string }[] = [];
    let skipped = 0;
    let matched = 0;
    for (const cues of LISTS) {
      const texts = [...BILINGUAL, ...others, ...cues.flatMap(variants)];
      const matcher = cueMatcher(cues);
      const re = cueRegExp(cues);
      for (const text of texts) {
        const expected = re.exec(text);
        const found = findCue(text, cues);
        if (found?.cue !== expected?.[0] || found?.index !== expected?.index) differing.push({ cues: cues.slice(0, 3), text });
        if (expected) {
          matched += 1;
          if (!mayMatch(matcher, foldedForCues(text))) differing.push({ cues: cues.slice(0, 3), text });
        } else if (!mayMatch(matcher, foldedForCues(text))) {
          skipped += 1;
        }
      }
    }
    expect(differing).toEqual([]);
    // The comparison saw both sides: texts matched, and texts ruled out without the regex.
    expect(matched).toBeGreaterThan(1000);
    expect(skipped).toBeGreaterThan(matched);
  });

  it("given 'ſ' or the Kelvin sign where a cue has s or k, then the cue is still found, as the regex finds it", () => {
    expect(findCue('I ſtay up late', ['stay up late'])?.cue).toBe('ſtay up late');
    expect(findCue('\u212aeep costs down', ['keep costs down'])?.index).toBe(0);
    expect(findCue('I DON’T WANT TO RUN servers', ["don't want to run"])?.cue).toBe('DON’T WANT TO RUN');
  });

  it('given a cue with no ASCII or Han piece, then its list always runs the regex', () => {
    expect(cueMatcher(['café', '喜欢']).literals).toBeNull();
    expect(findCue('Un CAFÉ', ['café'])?.cue).toBe('CAFÉ');
  });
});
