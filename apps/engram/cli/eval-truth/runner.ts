import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { loadConfig } from '@engram/config';
import type { Clock } from '@engram/ports';
import { startApp } from '@engram/services/bootstrap';
import type { CliModules } from '../cli-modules';
import type { EngramClient } from '../client/engram-client';
import { inProcessEngramClient } from '../client/in-process-engram-client';
import { progressBar } from '../progress-bar';
import { toRequests, type TurnLineDto } from '../turn-lines';
import { type CheckLineDto, parseTruthDataset } from './dataset';
import { type CheckVerdict, scoreCheck } from './scoring';

export interface TruthOptions {
  readonly dataset: string;
  readonly json: boolean;
  /** Print every failing check with the context it got. */
  readonly verbose?: boolean;
  readonly print?: (line: string) => void;
  readonly progress?: boolean;
  readonly stallTimeoutMs?: number;
}

export interface CheckResult extends CheckVerdict {
  readonly checkId: string;
  readonly userId: string;
  readonly category: string;
  readonly query: string;
  readonly context: string;
}

export interface TruthReport {
  readonly checks: number;
  readonly passed: number;
  readonly passRate: number;
  readonly byCategory: Record<string, { checks: number; passed: number; passRate: number }>;
}

/** A clock the run moves forward to each check's `askedAt`, so expiry and the forgetting sweep see that time. */
class ScenarioClock implements Clock {
  constructor(private current: Date) {}
  now(): Date {
    return new Date(this.current);
  }
  moveTo(instant: string): void {
    const next = new Date(instant);
    if (next > this.current) this.current = next;
  }
}

/**
 * Replays the scenarios in time order on a fresh embedded engram: the turns said before a check are
 * ingested and applied, the clock moves to the check's `askedAt`, a forgetting sweep runs for its
 * user (as a deployment's would have by then), and the check's query is recalled with `now` = askedAt.
 */
export async function runTruthEval(options: TruthOptions, modules: CliModules): Promise<{ report: TruthReport; results: CheckResult[] }> {
  const dataset = parseTruthDataset(fs.readFileSync(options.dataset, 'utf8'));
  const print = options.print ?? ((line: string) => console.log(line));
  const bars = options.progress ?? true;
  const turns = [...dataset.turns].sort((a, b) => Date.parse(a.occurredAt) - Date.parse(b.occurredAt));
  const checks = [...dataset.checks].sort((a, b) => Date.parse(a.askedAt) - Date.parse(b.askedAt));
  const clock = new ScenarioClock(new Date(Math.min(Date.parse(turns[0]?.occurredAt ?? checks[0]?.askedAt ?? '2026-01-01T00:00:00Z'))));

  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'engram-truth-'));
  let app: INestApplication | undefined;
  const results: CheckResult[] = [];
  try {
    const config = loadConfig({ ...process.env, LOG_LEVEL: 'silent', ENGRAM_DATA_DIR: dataDir });
    app = await startApp(modules.server(config, clock), { http: false, stages: true });
    const engram = inProcessEngramClient(app);
    const bar = progressBar(bars, 'checks  ', checks.length);
    let next = 0;
    for (const check of checks) {
      const due: TurnLineDto[] = [];
      while (next < turns.length && Date.parse(turns[next].occurredAt) <= Date.parse(check.askedAt)) due.push(turns[next++]);
      await ingest(engram, due, config.ENGRAM_MAX_TURNS_PER_REQUEST, clock, options.stallTimeoutMs ?? 60_000);
      clock.moveTo(check.askedAt);
      await engram.runForgetting([check.userId]);
      await drain(engram, options.stallTimeoutMs ?? 60_000);
      results.push(await ask(engram, check));
      bar.increment();
    }
    bar.stop();
  } finally {
    await app?.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
  const report = summarise(results);
  print(formatReport(report, results, options.verbose === true));
  if (options.json) print(JSON.stringify(report));
  return { report, results };
}

/** Ingests turns in time order, each batch with the clock at its last turn (events are recorded after they are said). */
async function ingest(engram: EngramClient, turns: readonly TurnLineDto[], max: number, clock: ScenarioClock, stallMs: number) {
  for (const request of toRequests(turns, max)) {
    clock.moveTo(request.turns[request.turns.length - 1].occurredAt);
    await engram.ingest(request);
    await drain(engram, stallMs);
  }
}

async function ask(engram: EngramClient, check: CheckLineDto): Promise<CheckResult> {
  const response = await engram.recall({
    userId: check.userId,
    query: check.query,
    now: check.askedAt,
    ...(check.sessionId ? { sessionId: check.sessionId } : {}),
  });
  const verdict = scoreCheck(response.context, check.expect, check.reject, check.once ?? []);
  return {
    ...verdict,
    checkId: check.checkId,
    userId: check.userId,
    category: check.category,
    query: check.query,
    context: response.context,
  };
}

async function drain(engram: EngramClient, stallMs: number): Promise<void> {
  let pending = await engram.pending();
  let lastChange = Date.now();
  while (pending > 0) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    const now = await engram.pending();
    if (now !== pending) lastChange = Date.now();
    else if (Date.now() - lastChange > stallMs) throw new Error(`the pipeline has been stuck at ${now} pending events for ${stallMs} ms`);
    pending = now;
  }
}

export function summarise(results: readonly CheckResult[]): TruthReport {
  const rate = (passed: number, checks: number) => (checks === 0 ? 0 : Math.round((passed / checks) * 1000) / 1000);
  const byCategory: TruthReport['byCategory'] = {};
  for (const result of results) {
    const entry = (byCategory[result.category] ??= { checks: 0, passed: 0, passRate: 0 });
    entry.checks += 1;
    if (result.passed) entry.passed += 1;
  }
  for (const entry of Object.values(byCategory)) entry.passRate = rate(entry.passed, entry.checks);
  const passed = results.filter((r) => r.passed).length;
  return { checks: results.length, passed, passRate: rate(passed, results.length), byCategory };
}

function formatReport(report: TruthReport, results: readonly CheckResult[], verbose: boolean): string {
  const lines = [`what is true now: ${report.passed} of ${report.checks} checks pass (${(report.passRate * 100).toFixed(1)} %)`, ''];
  lines.push('category                      checks  passed  rate');
  for (const [category, entry] of Object.entries(report.byCategory).sort(([a], [b]) => a.localeCompare(b))) {
    lines.push(
      `${category.padEnd(30)}${String(entry.checks).padStart(6)}${String(entry.passed).padStart(8)}  ${(entry.passRate * 100).toFixed(1)} %`,
    );
  }
  const failed = results.filter((r) => !r.passed);
  if (failed.length > 0) {
    lines.push('', `failing (${failed.length}):`);
    for (const result of failed) {
      const why = [
        ...result.missing.map((m) => `missing ${JSON.stringify(m)}`),
        ...result.stale.map((s) => `stale ${JSON.stringify(s)}`),
        ...result.repeated.map((r) => `repeated ${JSON.stringify(r)}`),
      ];
      lines.push(`  ${result.checkId} [${result.category}] ${JSON.stringify(result.query)}: ${why.join(', ')}`);
      if (verbose) lines.push(...result.context.split('\n').map((line) => `      | ${line}`));
    }
  }
  return lines.join('\n');
}
