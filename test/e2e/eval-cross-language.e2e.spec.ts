import * as path from 'node:path';
import { EngramModule } from '../../apps/engram/engram.module';
import type { CliModules } from '../../apps/engram/cli/cli-modules';
import { embeddedEngine, runEval } from '../../apps/engram/cli/eval';

/**
 * test/eval/engram-cross-language.jsonl through `engram eval`'s runner, on the embedded server with
 * the default embedder and lexicon: questions asked in the other language than the turn that answers
 * them, and Chinese questions sharing no word with the answer. Floors are the measured figures
 * rounded down (docs/benchmarks.md, "Meaning across languages"): without the lexicon, cross-language
 * recall@5 is 0.095 and paraphrase 0.500. Since the profile is pinned (issue 30: role, employer,
 * city…), "What is my job?" is answered by the pinned facts, which the eval scores apart from the
 * ranked top 5: the ranked floor is 0.80 (measured 0.8095), and what reaches the context — the top
 * 5 or the pinned facts — is held to 0.85.
 */
const CROSS_LANGUAGE_FLOOR = 0.8;
const CROSS_LANGUAGE_IN_CONTEXT_FLOOR = 0.85;
const PARAPHRASE_FLOOR = 0.66;

const modules: CliModules = {
  server: (config) => EngramModule.forRoot({ config }),
  rebuild: (config) => EngramModule.forMaintenance({ config }),
};

jest.setTimeout(600_000);

describe('engram eval on the cross-language set (embedded)', () => {
  it('finds answers said in the other language, and said in other words, beyond BM25 over the raw turns', async () => {
    const { report, results } = await runEval(
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
    // Evidence turns in the context: in the ranked top 5 or behind a pinned fact.
    const asked = results.filter((r) => r.category === 'cross-language' && r.evidence.length > 0);
    const reached = asked.map((r) => {
      const shown = new Set([...r.recalled.slice(0, 5), ...r.pinned]);
      return r.evidence.filter((turn) => shown.has(turn)).length / r.evidence.length;
    });
    expect(reached.reduce((a, b) => a + b, 0) / asked.length).toBeGreaterThanOrEqual(CROSS_LANGUAGE_IN_CONTEXT_FLOOR);
    expect(paraphrase.recallAtK).toBeGreaterThanOrEqual(PARAPHRASE_FLOOR);
    // BM25 over the raw turns (engram's tokenizer, no lexicon) is what engram was before.
    expect(crossLanguage.recallAtK!).toBeGreaterThan(crossLanguage.baseline.recallAtK! + 0.5);
    console.info(
      `cross-language set: cross-language recall@5 ${crossLanguage.recallAtK} (BM25 ${crossLanguage.baseline.recallAtK}), ` +
        `paraphrase ${paraphrase.recallAtK} (BM25 ${paraphrase.baseline.recallAtK}), none ${report.noneCorrect}`,
    );
  });
});
