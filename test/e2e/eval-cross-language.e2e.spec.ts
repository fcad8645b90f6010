import * as path from 'node:path';
import { EngramModule } from '../../apps/engram/engram.module';
import type { CliModules } from '../../apps/engram/cli/cli-modules';
import { embeddedEngine, runEval } from '../../apps/engram/cli/eval';

/**
 * test/eval/engram-cross-language.jsonl through `engram eval`'s runner, on the embedded server with
 * the default embedder and lexicon: questions asked in the other language than the turn that answers
 * them, and Chinese questions sharing no word with the answer. Floors are the measured figures
 * rounded down (docs/benchmarks.md, "Meaning across languages"): without the lexicon, cross-language
 * recall@5 is 0.095 and paraphrase 0.500.
 */
const CROSS_LANGUAGE_FLOOR = 0.85;
const PARAPHRASE_FLOOR = 0.66;

const modules: CliModules = {
  server: (config) => EngramModule.forRoot({ config }),
  rebuild: (config) => EngramModule.forMaintenance({ config }),
};

jest.setTimeout(600_000);

describe('engram eval on the cross-language set (embedded)', () => {
  it('finds answers said in the other language, and said in other words, beyond BM25 over the raw turns', async () => {
    const { report } = await runEval(
      {
        dataset: path.join(__dirname, '..', 'eval', 'engram-cross-language.jsonl'),
        k: 5,
        json: false,
        print: () => undefined,
        progress: false,
      },
      embeddedEngine(modules),
    );
    const crossLanguage = report.byCategory['cross-language'];
    const paraphrase = report.byCategory.paraphrase;
    expect(crossLanguage.questions).toBeGreaterThanOrEqual(16);
    expect(paraphrase.questions).toBeGreaterThanOrEqual(8);
    expect(crossLanguage.recallAtK).toBeGreaterThanOrEqual(CROSS_LANGUAGE_FLOOR);
    expect(paraphrase.recallAtK).toBeGreaterThanOrEqual(PARAPHRASE_FLOOR);
    // BM25 over the raw turns (engram's tokenizer, no lexicon) is what engram was before.
    expect(crossLanguage.recallAtK!).toBeGreaterThan(crossLanguage.baseline.recallAtK! + 0.5);
    console.info(
      `cross-language set: cross-language recall@5 ${crossLanguage.recallAtK} (BM25 ${crossLanguage.baseline.recallAtK}), ` +
        `paraphrase ${paraphrase.recallAtK} (BM25 ${paraphrase.baseline.recallAtK}), none ${report.noneCorrect}`,
    );
  });
});
