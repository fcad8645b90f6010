#!/usr/bin/env node
/**
 * Two trees' `engram bench`, in interleaved rounds, compared by what varies least between runs on a
 * shared machine: each round runs both (the order alternating, so a drift of the machine's speed
 * falls on both alike), and each metric is judged by the median of the per-round ratios, with a
 * bootstrap interval for that median. Single runs of the same tree differ by ±10–20 % here; a
 * difference smaller than the interval is not shown.
 *
 *   node scripts/bench-compare.js --base ../engram-before --head . [--rounds 8] [--turns 20000] [--users 200] [--json]
 *
 * Each tree must be built (`node scripts/build.js`). Progress goes to stderr, the report to stdout
 * (with --json, one JSON object on its last line).
 */
'use strict';
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

/** What is compared: the bench's CPU-normalised throughputs (higher is better). */
const METRICS = [
  { name: 'ingest', unit: 'turns per CPU s', of: (report) => report.process.ingestTurnsPerCpuSecond },
  { name: 'rebuild', unit: 'events per CPU s', of: (report) => report.process.rebuildEventsPerCpuSecond },
];

function parseArgs(argv) {
  const options = { rounds: 8, turns: 20000, users: 200, json: false };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    const value = () => {
      if (i + 1 >= argv.length) fail(`${flag} needs a value`);
      return argv[++i];
    };
    if (flag === '--base') options.base = path.resolve(value());
    else if (flag === '--head') options.head = path.resolve(value());
    else if (flag === '--rounds') options.rounds = positiveInteger(flag, value());
    else if (flag === '--turns') options.turns = positiveInteger(flag, value());
    else if (flag === '--users') options.users = positiveInteger(flag, value());
    else if (flag === '--json') options.json = true;
    else if (flag === '-h' || flag === '--help') {
      console.log(fs.readFileSync(__filename, 'utf8').split('*/')[0]);
      process.exit(0);
    } else fail(`unknown option ${flag}`);
  }
  if (!options.base || !options.head) fail('--base and --head are required (two built trees)');
  for (const tree of [options.base, options.head]) {
    if (!fs.existsSync(mainOf(tree))) fail(`${mainOf(tree)} does not exist: build that tree first (node scripts/build.js)`);
  }
  return options;
}

function positiveInteger(flag, text) {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1) fail(`${flag} must be a positive integer, not ${JSON.stringify(text)}`);
  return n;
}

function fail(message) {
  console.error(`bench-compare: ${message}`);
  process.exit(2);
}

const mainOf = (tree) => path.join(tree, 'dist/apps/engram/main.js');

function benchOnce(tree, options) {
  const stdout = execFileSync(
    process.execPath,
    [mainOf(tree), 'bench', '--turns', String(options.turns), '--users', String(options.users), '--json'],
    {
      cwd: tree,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      maxBuffer: 64 * 1024 * 1024,
    },
  );
  const last = stdout.trim().split('\n').pop();
  return JSON.parse(last);
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** A small seeded generator (mulberry32), so the same rounds always give the same interval. */
function seeded(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The 2.5th and 97.5th percentiles of the median over resamples of `values` (with replacement). */
function bootstrapMedianInterval(values, resamples = 4000, random = seeded(1)) {
  const medians = [];
  for (let r = 0; r < resamples; r++) {
    const sample = values.map(() => values[Math.floor(random() * values.length)]);
    medians.push(median(sample));
  }
  medians.sort((a, b) => a - b);
  return [medians[Math.floor(0.025 * (resamples - 1))], medians[Math.ceil(0.975 * (resamples - 1))]];
}

/** Per metric: both medians, the median of head ÷ base per round, its interval and the rounds' range. */
function summarise(rounds) {
  return METRICS.map(({ name, unit }) => {
    const base = rounds.map((r) => r.base[name]);
    const head = rounds.map((r) => r.head[name]);
    const ratios = rounds.map((r) => r.head[name] / r.base[name]);
    return {
      metric: name,
      unit,
      baseMedian: median(base),
      headMedian: median(head),
      ratioMedian: median(ratios),
      ratioInterval95: bootstrapMedianInterval(ratios),
      ratioRange: [Math.min(...ratios), Math.max(...ratios)],
    };
  });
}

const percent = (ratio) => `${ratio >= 1 ? '+' : '−'}${Math.abs((ratio - 1) * 100).toFixed(1)} %`;

function main() {
  const options = parseArgs(process.argv.slice(2));
  const rounds = [];
  for (let round = 1; round <= options.rounds; round++) {
    const order = round % 2 === 1 ? ['base', 'head'] : ['head', 'base'];
    const entry = { round };
    for (const side of order) {
      const load = os.loadavg()[0];
      const report = benchOnce(options[side], options);
      entry[side] = Object.fromEntries(METRICS.map((m) => [m.name, m.of(report)]));
      entry[side].load = Number(load.toFixed(2));
      console.error(
        `round ${round}/${options.rounds} ${side}: ${METRICS.map((m) => `${m.name} ${entry[side][m.name]}`).join(', ')} (load ${entry[side].load})`,
      );
    }
    rounds.push(entry);
  }
  const summary = summarise(rounds);
  console.log(
    `base ${options.base}\nhead ${options.head}\n${options.rounds} rounds of bench --turns ${options.turns} --users ${options.users}`,
  );
  for (const s of summary) {
    console.log(
      `${s.metric.padEnd(8)} base ${s.baseMedian} · head ${s.headMedian} ${s.unit} (medians); head/base per round: median ${s.ratioMedian.toFixed(3)} (${percent(s.ratioMedian)}), ` +
        `95 % interval ${s.ratioInterval95.map((x) => x.toFixed(3)).join('–')}, range ${s.ratioRange.map((x) => x.toFixed(2)).join('–')}`,
    );
  }
  if (options.json)
    console.log(JSON.stringify({ base: options.base, head: options.head, turns: options.turns, users: options.users, rounds, summary }));
}

if (require.main === module) main();

module.exports = { median, bootstrapMedianInterval, seeded, summarise };
