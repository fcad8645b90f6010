import { Command } from 'commander';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { EngramModule } from '../../apps/engram/engram.module';
import type { CliModules } from '../../apps/engram/cli/cli-modules';
import { embeddedEngine, EvalReport, registerEvalCommand, runEval } from '../../apps/engram/cli/eval';

/**
 * The recall quality eval on the shipped bilingual dataset, in-process on the real embedded
 * server (every stage, SQLite in a temporary directory), through the same runner as `engram eval`.
 */

/**
 * recall@5 reached on test/eval/engram-bilingual.jsonl, rounded down: a regression guard.
 * Measured 0.334 with `rules-1`, 0.819 with `rules-2` + episodes + normalised linear fusion (BM25
 * baseline 0.846); still 0.819 since pinned facts no longer take a slot of the top k (ranked
 * memories only; BM25 over speaker + text 0.843, dense 0.774); 0.843 with every turn an episode,
 * turn context as a search key and fusion over both legs' best (docs/benchmarks.md); 0.849 with
 * every memory the lexical index matched a candidate; 0.865 with the time or date a question asks
 * for steering the ranking (floor 0.86). Raise it as
 * recall improves. (.ci/run holds floors on the LoCoMo dev split, which a user's clone lacks.)
 */
const RECALL_AT_5_FLOOR = 0.86;

const DATASET = path.join(__dirname, '..', 'eval', 'engram-bilingual.jsonl');
const CATEGORIES = [
  'preference',
  'profile',
  'correction',
  'alias',
  'temporal',
  'multi-session',
  'assistant-recommendation',
  'ephemeral-noise',
  'chitchat-noise',
  'pii',
  'none',
];

const modules: CliModules = {
  server: (config) => EngramModule.forRoot({ config }),
  rebuild: (config) => EngramModule.forMaintenance({ config }),
};

jest.setTimeout(600_000);

describe('engram eval (embedded)', () => {
  it('measures recall@5 on the bilingual dataset against the BM25 and dense baselines', async () => {
    const printed: string[] = [];
    const dump = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'engram-eval-dump-')), 'results.jsonl');
    const { report, results } = await runEval(
      { dataset: DATASET, k: 5, json: true, dump, print: (line) => printed.push(line), progress: false },
      embeddedEngine(modules),
    );
    // --dump: every question's result, one JSON line each, as the run saw it.
    expect(
      fs
        .readFileSync(dump, 'utf8')
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line)),
    ).toEqual(results);
    fs.rmSync(path.dirname(dump), { recursive: true, force: true });

    // The JSON report is the last line printed, after the table.
    const json = JSON.parse(printed[printed.length - 1]) as EvalReport;
    expect(json).toEqual(report);
    expect(printed[0]).toContain('category');

    expect(report.questions).toBeGreaterThanOrEqual(150);
    expect(report.k).toBe(5);
    expect(results).toHaveLength(report.questions);
    expect(report.recallAtK).toBeGreaterThanOrEqual(RECALL_AT_5_FLOOR);
    expect(report.recallAt5).toBe(report.recallAtK);
    expect(report.recallAt10).toBeGreaterThanOrEqual(report.recallAt5);
    for (const figure of [report.recallAtK, report.recallAt10, report.mrr, report.hitRateAtK]) expect(figure).toBeLessThanOrEqual(1);

    // Both baselines ran on the same questions.
    expect(report.baseline.recallAtK).toBeGreaterThan(0);
    expect(report.baseline.mrr).toBeGreaterThan(0);
    expect(report.dense.recallAtK).toBeGreaterThan(0);
    expect(report.dense.model).toMatch(/^hashing-v1-/);

    // Nearly every evidence turn is some memory's source; pinned facts and misses are reported apart.
    expect(report.evidenceTurns).toBeGreaterThan(0);
    expect(report.coverage).toBeGreaterThan(0.9);
    expect(report.coverage!).toBeLessThanOrEqual(1);
    expect(report.pinnedEvidence).toBeGreaterThanOrEqual(report.pinnedEvidenceOnly);
    expect(report.pinnedEvidence).toBeLessThanOrEqual(1);
    expect(report.misses.every((id) => results.some((r) => r.questionId === id && r.evidence.length > 0))).toBe(true);
    expect(Object.keys(report.byLanguage)).toEqual(['en', 'zh']);
    expect(report.byLanguage.en!.questions + report.byLanguage.zh!.questions).toBe(report.questions);

    expect(Object.keys(report.byCategory).sort()).toEqual([...CATEGORIES].sort());
    for (const category of CATEGORIES) expect(report.byCategory[category].questions).toBeGreaterThan(0);
    expect(report.byCategory.none.recallAtK).toBeNull();
    expect(report.noneCorrect).not.toBeNull();

    expect(report.latencyMs.p50).toBeGreaterThan(0);
    expect(report.latencyMs.p50).toBeLessThanOrEqual(report.latencyMs.p95);
    expect(report.latencyMs.p95).toBeLessThanOrEqual(report.latencyMs.p99);
    expect(report.budgetUsed.max).toBeLessThanOrEqual(1);

    // For the record (jest shows it with --verbose): the figures behind the floor.
    console.info(
      `engram eval: recall@5 ${report.recallAtK}, MRR ${report.mrr}; BM25 recall@5 ${report.baseline.recallAtK}, MRR ${report.baseline.mrr}; ` +
        `dense recall@5 ${report.dense.recallAtK}; coverage ${report.coverage}`,
    );
  });

  it('runs as `engram eval --dataset <file> --k <k> --json` and prints the JSON report as the last line of stdout', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'engram-eval-cli-'));
    const dataset = path.join(dir, 'tiny.jsonl');
    const turn = (turnId: string, text: string) =>
      JSON.stringify({ type: 'turn', userId: 'laozhou', sessionId: 's1', turnId, role: 'user', text, occurredAt: '2026-11-01T09:00:00Z' });
    fs.writeFileSync(
      dataset,
      [
        turn('t1', '我叫老周，我们的技术栈是 Spring Boot，数据库用 PostgreSQL'),
        turn('t2', 'I prefer VS Code for TypeScript work'),
        JSON.stringify({
          type: 'question',
          userId: 'laozhou',
          questionId: 'q1',
          question: '数据库用什么',
          evidenceTurnIds: ['t1'],
          askedAt: '2026-11-02T09:00:00Z',
          category: 'profile',
        }),
        JSON.stringify({
          type: 'question',
          userId: 'laozhou',
          questionId: 'q2',
          question: '我养了什么宠物',
          evidenceTurnIds: [],
          askedAt: '2026-11-02T09:00:00Z',
          category: 'none',
        }),
      ].join('\n'),
    );
    const log = jest.spyOn(console, 'log').mockImplementation(() => undefined);
    try {
      const program = new Command('engram').exitOverride();
      registerEvalCommand(program, modules);
      await program.parseAsync(['node', 'engram', 'eval', '--dataset', dataset, '--k', '3', '--json', '--misses']);
      const lines = log.mock.calls.map((call) => String(call[0]));
      expect(lines).toContainEqual(expect.stringMatching(/^misses at k = 3 \(\d+\)/));
      const report = JSON.parse(lines[lines.length - 1]) as EvalReport;
      expect(report).toEqual(
        expect.objectContaining({
          questions: 2,
          k: 3,
          recallAtK: expect.any(Number),
          mrr: expect.any(Number),
          hitRateAtK: expect.any(Number),
          byCategory: { profile: expect.objectContaining({ questions: 1 }), none: expect.objectContaining({ questions: 1 }) },
          latencyMs: { p50: expect.any(Number), p95: expect.any(Number), p99: expect.any(Number) },
          baseline: expect.objectContaining({ recallAtK: 1, mrr: 1 }),
          dense: expect.objectContaining({ recallAtK: expect.any(Number) }),
          coverage: expect.any(Number),
          misses: expect.any(Array),
        }),
      );
    } finally {
      log.mockRestore();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('rejects a bad dataset line before starting anything', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'engram-eval-cli-'));
    const dataset = path.join(dir, 'bad.jsonl');
    fs.writeFileSync(dataset, '{"type":"note","text":"not a turn"}\n');
    const start = jest.fn();
    try {
      await expect(runEval({ dataset, k: 5, json: false, print: () => undefined, progress: false }, start)).rejects.toThrow(
        'line 1: unknown line type "note"',
      );
      expect(start).not.toHaveBeenCalled();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
