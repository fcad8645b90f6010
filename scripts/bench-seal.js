#!/usr/bin/env node
/**
 * The floor under what sealing costs: the CPU of the seals and openings a turn makes, measured alone
 * with engram's own `sealText`/`openText` (AES-256-GCM through Node's crypto, base64 in and out) and
 * with Node's cipher calls on their own, at the payload sizes a real log holds, multiplied by how
 * many of each a turn makes (each event sealed once, opened once per stage reading its topic; an
 * offline rebuild opens each replayed event once). Nothing else sealing costs (the payload's own
 * JSON, larger rows, the collector) is in it, so sealing costs at least this much of a bench.
 *
 *   node scripts/bench-seal.js [--data-dir DIR] [--ingest-turns-per-cpu-s N] [--rebuild-events-per-cpu-s N] [--repetitions 7] [--json]
 *
 * --data-dir reads the event mix (events per turn by type, their payloads' sizes) from an embedded
 * data directory that `engram bench --url` or real use has filled; without it, the mix of
 * `bench --turns 2000 --users 20` (seed 42) measured on 2026-12-04. The two throughputs are the
 * unsealed tree's from `engram bench` (docs/benchmarks.md); with them the floor is also printed
 * as a fraction of the unsealed CPU. Needs a build (`node scripts/build.js`).
 */
'use strict';
const crypto = require('node:crypto');
const path = require('node:path');
const { median } = require('./bench-compare');

const DIST = path.join(__dirname, '..', 'dist', 'libs');

/** `bench --turns 2000 --users 20`, seed 42: per 2,050 turns (50 are the freshness probes), events and mean payload bytes. */
const DEFAULT_MIX = {
  turns: 2050,
  events: [
    { type: 'TurnRecorded', topic: 'memory.turns.v1', count: 2050, payloadBytes: 85 },
    { type: 'TurnScreened', topic: 'memory.screened.v1', count: 2050, payloadBytes: 231 },
    { type: 'MemoriesExtracted', topic: 'memory.extracted.v1', count: 2050, payloadBytes: 826 },
    { type: 'MemoryAdded', topic: 'memory.facts.v1', count: 3250, payloadBytes: 753 },
    { type: 'MemoryReinforced', topic: 'memory.facts.v1', count: 446, payloadBytes: 867 },
    { type: 'MemoryRetracted', topic: 'memory.facts.v1', count: 333, payloadBytes: 794 },
    { type: 'MemorySuperseded', topic: 'memory.facts.v1', count: 333, payloadBytes: 2971 },
  ],
};

function parseArgs(argv) {
  const options = { json: false, repetitions: 7, operations: 20000 };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    const value = () => {
      if (i + 1 >= argv.length) fail(`${flag} needs a value`);
      return argv[++i];
    };
    if (flag === '--data-dir') options.dataDir = path.resolve(value());
    else if (flag === '--ingest-turns-per-cpu-s') options.ingestTurnsPerCpuSecond = positive(flag, value());
    else if (flag === '--rebuild-events-per-cpu-s') options.rebuildEventsPerCpuSecond = positive(flag, value());
    else if (flag === '--repetitions') options.repetitions = positive(flag, value());
    else if (flag === '--json') options.json = true;
    else if (flag === '-h' || flag === '--help') {
      process.stdout.write(require('node:fs').readFileSync(__filename, 'utf8').split('*/')[0]);
      process.exit(0);
    } else fail(`unknown option ${flag}`);
  }
  return options;
}

function positive(flag, text) {
  const n = Number(text);
  if (!Number.isFinite(n) || n <= 0) fail(`${flag} must be a positive number, not ${JSON.stringify(text)}`);
  return n;
}

function fail(message) {
  process.stderr.write(`bench-seal: ${message}\n`);
  process.exit(2);
}

/** The mix a data directory's log holds: sealed payloads' plaintext size is the bytes less IV and tag. */
function mixOf(dataDir) {
  const Database = require('better-sqlite3');
  const db = new Database(path.join(dataDir, 'engram.db'), { readonly: true, fileMustExist: true });
  try {
    const byType = new Map();
    for (const row of db.prepare('SELECT topic, value FROM log_messages').iterate()) {
      const event = JSON.parse(row.value);
      if (typeof event.payload?.data !== 'string') continue; // not sealed (UserForgotten, or a plaintext log)
      const bytes = Buffer.from(event.payload.data, 'base64').length - 28;
      const entry = byType.get(event.type) ?? { type: event.type, topic: row.topic, count: 0, payloadBytes: 0 };
      entry.count++;
      entry.payloadBytes += bytes;
      byType.set(event.type, entry);
    }
    const events = [...byType.values()].map((e) => ({ ...e, payloadBytes: Math.round(e.payloadBytes / e.count) }));
    const turns = byType.get('TurnRecorded')?.count;
    if (!turns) fail(`${dataDir} holds no sealed TurnRecorded`);
    return { turns, events };
  } finally {
    db.close();
  }
}

/**
 * Operations per turn: each event sealed once and opened once by every stage reading its topic
 * (ingest), opened once per replayed event (an offline rebuild: facts and search share one pass).
 */
function operationsPerTurn(mix, readersOf) {
  return mix.events.map((event) => ({
    ...event,
    sealsPerTurn: event.count / mix.turns,
    opensPerTurn: (event.count * readersOf(event.topic)) / mix.turns,
  }));
}

/** A payload of about `bytes` bytes of JSON, of the kind turns carry (ASCII and CJK). */
function payloadOf(bytes) {
  const filler = 'remember that 我下周去上海出差 and the meeting moved to Friday; ';
  let text = '';
  while (Buffer.byteLength(JSON.stringify({ text }), 'utf8') < bytes) text += filler;
  while (text.length > 0 && Buffer.byteLength(JSON.stringify({ text }), 'utf8') > bytes) text = text.slice(0, -1);
  return JSON.stringify({ text });
}

/** CPU µs per call of `fn`, the median of `repetitions` timings of `operations` calls. */
function cpuMicros(fn, operations, repetitions) {
  for (let i = 0; i < operations / 10; i++) fn(i); // warm up
  const samples = [];
  for (let r = 0; r < repetitions; r++) {
    const start = process.cpuUsage();
    for (let i = 0; i < operations; i++) fn(i);
    const used = process.cpuUsage(start);
    samples.push((used.user + used.system) / operations);
  }
  return median(samples);
}

/** Seal and open CPU for one payload size: engram's functions, and Node's cipher calls alone. */
function measure(domain, bytes, options) {
  const key = domain.newDataKey();
  const keyObject = crypto.createSecretKey(key.key);
  const json = payloadOf(bytes);
  const plaintext = Buffer.from(json, 'utf8');
  const ad = (i) => domain.eventAssociatedData('tenant-a', 'user-0042', `evt-${i}`);
  const sealedValues = Array.from({ length: 64 }, (_, i) => domain.sealText(key, json, ad(i)));
  const engramSeal = cpuMicros((i) => domain.sealText(key, json, ad(i)), options.operations, options.repetitions);
  const engramOpen = cpuMicros((i) => domain.openText(key.key, sealedValues[i & 63], ad(i & 63)), options.operations, options.repetitions);

  // Node's AES-256-GCM on its own: a cipher object, the associated data, the bytes, the tag; no strings.
  const iv = crypto.randomBytes(12);
  const adBytes = Buffer.from(ad(0), 'utf8');
  const raw = (() => {
    const cipher = crypto.createCipheriv('aes-256-gcm', keyObject, iv).setAAD(adBytes);
    return { body: Buffer.concat([cipher.update(plaintext), cipher.final()]), tag: cipher.getAuthTag() };
  })();
  const nodeSeal = cpuMicros(
    () => {
      const cipher = crypto.createCipheriv('aes-256-gcm', keyObject, iv);
      cipher.setAAD(adBytes);
      cipher.update(plaintext);
      cipher.final();
      cipher.getAuthTag();
    },
    options.operations,
    options.repetitions,
  );
  const nodeOpen = cpuMicros(
    () => {
      const decipher = crypto.createDecipheriv('aes-256-gcm', keyObject, iv);
      decipher.setAAD(adBytes);
      decipher.setAuthTag(raw.tag);
      decipher.update(raw.body);
      decipher.final();
    },
    options.operations,
    options.repetitions,
  );
  return { engramSeal, engramOpen, nodeSeal, nodeOpen };
}

/**
 * The floor per turn (ingest) and per replayed event (rebuild: the events of the topics a projection
 * is built from), in CPU µs, for both ways of counting.
 */
function floors(rows, replayedTopics) {
  const sum = (f, of = rows) => of.reduce((total, row) => total + f(row), 0);
  const replayedRows = rows.filter((r) => replayedTopics.has(r.topic));
  const replayed = sum((r) => r.count, replayedRows);
  return {
    ingestEngramMicrosPerTurn: sum((r) => r.sealsPerTurn * r.engramSeal + r.opensPerTurn * r.engramOpen),
    ingestNodeMicrosPerTurn: sum((r) => r.sealsPerTurn * r.nodeSeal + r.opensPerTurn * r.nodeOpen),
    rebuildEngramMicrosPerEvent: sum((r) => r.count * r.engramOpen, replayedRows) / replayed,
    rebuildNodeMicrosPerEvent: sum((r) => r.count * r.nodeOpen, replayedRows) / replayed,
  };
}

function main() {
  const options = parseArgs(process.argv.slice(2));
  let domain, topology;
  try {
    domain = require(path.join(DIST, 'domain', 'src', 'sealing.js'));
    topology = require(path.join(DIST, 'contracts', 'src', 'topology.js'));
  } catch {
    fail('no build found: run `node scripts/build.js` first');
  }
  const mix = options.dataDir ? mixOf(options.dataDir) : DEFAULT_MIX;
  const readersOf = (topic) => topology.stagesReading(topic).length;
  const rows = operationsPerTurn(mix, readersOf).map((row, i, all) => {
    process.stderr.write(`\rmeasuring ${i + 1}/${all.length} ${row.type} (${row.payloadBytes} B)…          `);
    return { ...row, ...measure(domain, row.payloadBytes, options) };
  });
  process.stderr.write('\n');
  const floor = floors(rows, new Set(Object.values(topology.PROJECTIONS).map((p) => p.input)));
  const fraction = (micros, perSecond) => (perSecond ? (micros * perSecond) / 1e6 : undefined);
  const report = {
    node: process.version,
    turns: mix.turns,
    rows,
    ...floor,
    ingestEngramFraction: fraction(floor.ingestEngramMicrosPerTurn, options.ingestTurnsPerCpuSecond),
    ingestNodeFraction: fraction(floor.ingestNodeMicrosPerTurn, options.ingestTurnsPerCpuSecond),
    rebuildEngramFraction: fraction(floor.rebuildEngramMicrosPerEvent, options.rebuildEventsPerCpuSecond),
    rebuildNodeFraction: fraction(floor.rebuildNodeMicrosPerEvent, options.rebuildEventsPerCpuSecond),
  };
  if (options.json) {
    process.stdout.write(`${JSON.stringify(report)}\n`);
    return;
  }
  const f = (n, digits = 2) => n.toFixed(digits).padStart(7);
  const out = [`node ${report.node}; CPU µs per call (median of ${options.repetitions} × ${options.operations})`];
  out.push('event                payload  seals/turn opens/turn   seal   open  node seal node open');
  for (const r of rows)
    out.push(
      `${r.type.padEnd(20)} ${String(r.payloadBytes).padStart(6)} B ${f(r.sealsPerTurn)}    ${f(r.opensPerTurn)} ${f(r.engramSeal)} ${f(r.engramOpen)}   ${f(r.nodeSeal)}  ${f(r.nodeOpen)}`,
    );
  const pct = (x) => (x === undefined ? '' : ` = ${(x * 100).toFixed(1)} % of the unsealed CPU`);
  out.push(`ingest floor:  ${f(floor.ingestEngramMicrosPerTurn, 1)} µs a turn${pct(report.ingestEngramFraction)}`);
  out.push(`  Node's cipher calls alone ${f(floor.ingestNodeMicrosPerTurn, 1)} µs${pct(report.ingestNodeFraction)}`);
  out.push(`rebuild floor: ${f(floor.rebuildEngramMicrosPerEvent, 1)} µs an event${pct(report.rebuildEngramFraction)}`);
  out.push(`  Node's cipher calls alone ${f(floor.rebuildNodeMicrosPerEvent, 1)} µs${pct(report.rebuildNodeFraction)}`);
  process.stdout.write(`${out.join('\n')}\n`);
}

module.exports = { operationsPerTurn, floors, payloadOf, DEFAULT_MIX };

if (require.main === module) main();
