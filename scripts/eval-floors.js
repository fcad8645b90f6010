#!/usr/bin/env node
// Holds recall quality to floors on a dataset, for CI: runs `engram eval --json` (hybrid, and with
// --legs each retrieval leg alone), prints the figures, and exits 1 naming every floor missed.
//
//   node scripts/eval-floors.js --dataset ../shared/eval/locomo-dev.jsonl --k 10 \
//     --recall 0.73 --coverage 0.98 --over-bm25 1.15 --legs
//
// --recall R      recall@k of the ranked memories at least R
// --coverage C    evidence coverage at least C
// --over-bm25 X   recall@k at least X times the BM25 baseline's of the same run
// --over-dense    recall@k at least the dense baseline's of the same run
// --legs          hybrid at least each leg alone (ENGRAM_RECALL_LEGS=bm25, =knn) less LEG_TOLERANCE
// --result FILE   also write { passed, failed } (floors held and missed) as JSON, for CI's tally
// The embedder is whatever the environment configures (ENGRAM_EMBEDDINGS_URL for a real model).
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

/**
 * Hybrid may trail a leg by at most this much recall: half a point, under one question in 200. On
 * LoCoMo with the hashing embedder hybrid and BM25 alone differ by 0.0005 (a quarter of one
 * question's evidence), which is a tie, not a loss.
 */
const LEG_TOLERANCE = 0.005;

function parseArgs(argv) {
  const options = { k: 10, legs: false, overDense: false };
  for (let i = 0; i < argv.length; i++) {
    const name = argv[i];
    const value = () => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${name} needs a value`);
      return v;
    };
    if (name === '--dataset') options.dataset = value();
    else if (name === '--k') options.k = Number(value());
    else if (name === '--recall') options.recall = Number(value());
    else if (name === '--coverage') options.coverage = Number(value());
    else if (name === '--over-bm25') options.overBm25 = Number(value());
    else if (name === '--over-dense') options.overDense = true;
    else if (name === '--legs') options.legs = true;
    else if (name === '--result') options.result = value();
    else throw new Error(`unknown option ${name}`);
  }
  if (!options.dataset) throw new Error('--dataset is required');
  return options;
}

function evaluate(dataset, k, env = {}) {
  const cli = path.join(__dirname, '..', 'bin', 'engram.js');
  const out = execFileSync(process.execPath, [cli, 'eval', '--dataset', dataset, '--k', String(k), '--json'], {
    env: { ...process.env, ...env },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    maxBuffer: 64 * 1024 * 1024,
  });
  return JSON.parse(out.trim().split('\n').pop());
}

function main() {
  const options = parseArgs(process.argv.slice(2));
  const report = evaluate(options.dataset, options.k);
  const failures = [];
  let checked = 0;
  const figure = (v) => v.toFixed(4);
  const name = path.basename(options.dataset);
  console.log(
    `${name}: recall@${options.k} ${figure(report.recallAtK)} (BM25 ${figure(report.baseline.recallAtK)}, dense ${figure(report.dense.recallAtK)} ${report.dense.model}), coverage ${figure(report.coverage)}`,
  );
  checked += [options.recall, options.coverage, options.overBm25].filter((v) => v !== undefined).length;
  if (options.overDense) checked++;
  if (options.recall !== undefined && report.recallAtK < options.recall)
    failures.push(`recall@${options.k} ${figure(report.recallAtK)} < ${options.recall}`);
  if (options.coverage !== undefined && report.coverage < options.coverage)
    failures.push(`coverage ${figure(report.coverage)} < ${options.coverage}`);
  if (options.overBm25 !== undefined && report.recallAtK < options.overBm25 * report.baseline.recallAtK) {
    failures.push(`recall@${options.k} ${figure(report.recallAtK)} < ${options.overBm25} × BM25 ${figure(report.baseline.recallAtK)}`);
  }
  if (options.overDense && report.recallAtK < report.dense.recallAtK)
    failures.push(`recall@${options.k} ${figure(report.recallAtK)} < dense ${figure(report.dense.recallAtK)}`);
  if (options.legs) {
    for (const leg of ['bm25', 'knn']) {
      const alone = evaluate(options.dataset, options.k, { ENGRAM_RECALL_LEGS: leg });
      checked++;
      console.log(`${name}: ${leg} alone recall@${options.k} ${figure(alone.recallAtK)}`);
      if (report.recallAtK < alone.recallAtK - LEG_TOLERANCE)
        failures.push(`hybrid ${figure(report.recallAtK)} < ${leg} alone ${figure(alone.recallAtK)}`);
    }
  }
  if (options.result) {
    fs.writeFileSync(options.result, JSON.stringify({ passed: checked - failures.length, failed: failures.length }));
  }
  if (failures.length > 0) {
    console.error(`${name}: below its floors:\n  ${failures.join('\n  ')}`);
    process.exit(1);
  }
  console.log(`${name}: every floor held`);
}

try {
  main();
} catch (error) {
  console.error(`eval-floors: ${error.message}`);
  process.exit(2);
}
