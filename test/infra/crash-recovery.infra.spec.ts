import type { INestApplication } from '@nestjs/common';
import { Client } from '@elastic/elasticsearch';
import { ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import { AddressInfo, createServer } from 'node:net';
import * as path from 'node:path';
import request from 'supertest';
import { loadConfig } from '@engram/config';
import { MEMORY_STATUSES, MemoryRecord, Topics } from '@engram/contracts';
import { EventLog, FactStore, lag, LogPosition, SessionStore } from '@engram/ports';
import { DEFAULT_TENANT, EventPublisher, PipelineProgress, startApp } from '@engram/services';
import { eventually } from '@engram/testing';
import { SUMMARY_KIND } from '@engram/domain';
import { GatewayAppModule } from '../../apps/gateway/gateway.module';
import { RecallAppModule } from '../../apps/recall/recall.module';
import { destroyDeployment, distributedEnv, infra, newDeployment, readTopic } from '../support/distributed-deployment';
import { EngramHarness, startEngram, turnsBody } from '../support/engram-harness';

/**
 * SIGKILL in the middle of a batch, on real Kafka, MongoDB and Elasticsearch.
 * The resolver and the indexer run as real processes (`node dist/apps/<app>/main.js`,
 * built first so they run the code under test) and are killed while they are
 * provably mid-batch: output of events their group has not committed is
 * already written. After a restart, every turn must be reflected exactly once
 * in every projection: the same memories (mentionCount, version, revision) as
 * one clean embedded pass over the same turns, each turn once in its session,
 * and the search index holding exactly the active memories.
 */
jest.setTimeout(600_000);

const ROOT = path.resolve(__dirname, '../..');
const deployment = newDeployment('crash');
const USERS = Array.from({ length: 8 }, (_, u) => `crash-user-${u}`);
const TURNS_PER_USER = 50;
const SESSION = 's1';

/** Sentences that add, reinforce (repeats) and supersede (a changed budget or editor) memories. */
const SENTENCES = [
  'I prefer VS Code for TypeScript work',
  '预算控制在三万以内',
  'we decided to use Kafka for the event bus',
  '我喜欢用 VS Code',
  'I prefer VS Code for TypeScript work',
  '预算提到五万了',
  '嗯嗯',
  '每周三下午两点例会',
  'I prefer Vim for Rust work',
  'my name is Mary and I work at Globex',
  '我们决定用 Kafka 做消息队列',
  'the deadline is Friday',
  'thanks!',
  '我不吃辣',
  'I prefer Neovim for Rust work',
];

function turnsOf(userId: string, u: number) {
  return Array.from({ length: TURNS_PER_USER }, (_, i) => ({
    turnId: `${userId}-t${i}`,
    // Users differ in where they start, so their memories differ.
    text: `${SENTENCES[(i + u * 3) % SENTENCES.length]}${i % 7 === 6 ? ` (note ${i})` : ''}`,
    occurredAt: new Date(Date.UTC(2026, 10, 1, 9, i)).toISOString(),
  }));
}

async function ingestAll(http: () => ReturnType<typeof request>): Promise<void> {
  for (const [u, userId] of USERS.entries()) {
    const turns = turnsOf(userId, u);
    for (let i = 0; i < turns.length; i += 10) {
      await http()
        .post('/v1/turns')
        .send(turnsBody(userId, SESSION, turns.slice(i, i + 10)))
        .expect(202);
    }
  }
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** One worker app as its own OS process. */
class Worker {
  private child?: ChildProcess;
  private output = '';
  private exited?: Promise<void>;
  private port?: number;

  constructor(private readonly app: 'filter' | 'extractor' | 'resolver' | 'indexer') {}

  async start(): Promise<void> {
    const port = await freePort();
    this.port = port;
    this.child = spawn(process.execPath, [path.join(ROOT, 'dist/apps', this.app, 'main.js')], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? '',
        ...distributedEnv(deployment),
        PORT: String(port),
        LOG_LEVEL: 'warn',
        // Small chunks: many commits, so a kill lands between a chunk's writes and its commit.
        ENGRAM_BATCH_SIZE: '10',
        ENGRAM_FORGETTING_INTERVAL_MS: '0',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const child = this.child;
    child.stdout?.on('data', (chunk: Buffer) => (this.output += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (this.output += chunk.toString()));
    this.exited = new Promise((resolve) => child.once('exit', () => resolve()));
    await eventually(
      async () => {
        if (child.exitCode !== null) throw new Error(`${this.app} exited (${child.exitCode}):\n${this.output}`);
        const response = await fetch(`http://127.0.0.1:${port}/health`).catch(() => undefined);
        return response?.status === 200;
      },
      `${this.app} to become healthy`,
      60_000,
    );
  }

  /** SIGKILL: no shutdown hook runs, nothing in flight is committed. */
  async kill(): Promise<void> {
    if (!this.child || this.child.exitCode !== null || this.child.signalCode !== null) return;
    this.child.kill('SIGKILL');
    await this.exited;
  }

  async stop(): Promise<void> {
    if (!this.child || this.child.exitCode !== null || this.child.signalCode !== null) return;
    this.child.kill('SIGTERM');
    await Promise.race([this.exited, new Promise((resolve) => setTimeout(resolve, 20_000))]);
    await this.kill();
  }

  /** The worker's Prometheus scrape. */
  async metrics(): Promise<string> {
    const response = await fetch(`http://127.0.0.1:${this.port}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/plain');
    return response.text();
  }

  get log(): string {
    return this.output;
  }
}

/**
 * The processes must run the code under test, so dist/ is compiled first (incremental: seconds).
 * Type errors do not stop tsc from emitting and are `npm run typecheck`'s business; anything
 * else (tsc crashing, tsc-alias failing) fails the spec.
 */
function buildDist(): void {
  const bin = (name: string) => path.join(ROOT, 'node_modules/.bin', name);
  const tsc = spawnSync(bin('tsc'), ['-p', 'tsconfig.build.json'], { cwd: ROOT, encoding: 'utf8' });
  if (tsc.status !== 0 && tsc.status !== 2) throw new Error(`tsc failed (${tsc.status}): ${tsc.stdout}${tsc.stderr}`);
  execFileSync(bin('tsc-alias'), ['-p', 'tsconfig.build.json'], { cwd: ROOT, stdio: 'pipe' });
}

const sum = (position: LogPosition) => Object.values(position).reduce((a, b) => a + b, 0);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The parts of a memory one clean pass determines (not wall-clock times). */
function comparable(memory: MemoryRecord) {
  return {
    memoryId: memory.memoryId,
    kind: memory.kind,
    status: memory.status,
    content: memory.content,
    version: memory.version,
    revision: memory.revision,
    mentionCount: memory.mentionCount,
    sourceTurnIds: [...memory.sourceTurnIds].sort(),
    history: memory.history.map((h) => ({ version: h.version, value: h.value, sourceTurnIds: [...h.sourceTurnIds].sort() })),
  };
}

async function memoriesOf(app: INestApplication, userId: string) {
  const memories = await app.get<FactStore>(FactStore).list({ tenantId: DEFAULT_TENANT, userId, statuses: MEMORY_STATUSES });
  return memories.map(comparable).sort((a, b) => a.memoryId.localeCompare(b.memoryId));
}

async function sessionTurnIds(app: INestApplication, userId: string): Promise<string[]> {
  return (await app.get<SessionStore>(SessionStore).recent(DEFAULT_TENANT, userId, SESSION, 100_000)).map((t) => t.turnId);
}

describe('SIGKILL mid-batch on real Kafka: every turn reflected exactly once', () => {
  let gateway: INestApplication;
  let recall: INestApplication;
  let log: EventLog;
  const workers: Worker[] = [];
  let reference: EngramHarness | undefined;
  const topic = (name: string) => gateway.get(EventPublisher).topic(name);

  beforeAll(async () => {
    buildDist();
    const config = loadConfig({ ...distributedEnv(deployment), LOG_LEVEL: 'silent', ENGRAM_FORGETTING_INTERVAL_MS: '0' });
    gateway = await startApp(GatewayAppModule.forRoot(config), { http: false, stages: false });
    recall = await startApp(RecallAppModule.forRoot(config), { http: false, stages: false });
    log = gateway.get<EventLog>(EventLog);
  });

  afterAll(async () => {
    await Promise.allSettled(workers.map((w) => w.stop()));
    await Promise.allSettled([gateway?.close(), recall?.close(), reference?.destroy()]);
    await destroyDeployment(deployment);
  });

  function worker(app: 'filter' | 'extractor' | 'resolver' | 'indexer'): Worker {
    const w = new Worker(app);
    workers.push(w);
    return w;
  }

  async function groupLag(topicName: string, group: string): Promise<number> {
    return lag(await log.endPosition(topic(topicName)), await log.committedPosition(topic(topicName), group));
  }

  /** Event ids of the input topic's messages at or after the group's committed offsets. */
  async function uncommitted(topicName: string, group: string) {
    const committed = await log.committedPosition(topic(topicName), group);
    const messages = await readTopic(deployment, topic(topicName));
    return messages
      .filter((m) => m.offset >= Math.max(0, committed[m.partition] ?? 0))
      .map((m) => m.value as { eventId: string; payload: { memory?: MemoryRecord } });
  }

  /**
   * Waits until the group has committed some of its input and still lags, lets
   * the next chunk get going, then SIGKILLs the worker.
   */
  async function killMidStream(victim: Worker, topicName: string, group: string, committedBeyond: number): Promise<void> {
    await eventually(
      async () => sum(await log.committedPosition(topic(topicName), group)) > committedBeyond,
      `${group} to commit past ${committedBeyond}`,
      120_000,
    );
    await sleep(20 + Math.floor(Math.random() * 60));
    expect(await groupLag(topicName, group)).toBeGreaterThan(0);
    await victim.kill();
  }

  it('the resolver and the indexer killed mid-batch and restarted leave every projection as one clean pass would', async () => {
    // Everything is recorded, screened and extracted first: the resolver then has a full backlog.
    await ingestAll(() => request(gateway.getHttpServer()));
    const filter = worker('filter');
    const extractor = worker('extractor');
    await Promise.all([filter.start(), extractor.start()]);
    await eventually(
      async () => (await groupLag(Topics.turns, 'filter')) === 0 && (await groupLag(Topics.screened, 'extractor')) === 0,
      'screening and extraction',
      180_000,
    );
    const extractedEvents = sum(await log.endPosition(topic(Topics.extracted)));
    expect(extractedEvents).toBeGreaterThan(100);

    // Resolver: killed until a kill provably lands between a chunk's published decisions and its commit.
    let resolver = worker('resolver');
    let resolverProof = 0;
    for (let attempt = 0; attempt < 4 && resolverProof === 0; attempt++) {
      await resolver.start();
      const before = sum(await log.committedPosition(topic(Topics.extracted), 'resolver'));
      await killMidStream(resolver, Topics.extracted, 'resolver', before + 10);
      const pending = new Set((await uncommitted(Topics.extracted, 'resolver')).map((e) => e.eventId));
      const decisions = (await readTopic(deployment, topic(Topics.facts))).map((m) => m.value as { causationId: string | null });
      resolverProof = decisions.filter((d) => d.causationId !== null && pending.has(d.causationId)).length;
      resolver = worker('resolver');
    }
    expect(resolverProof).toBeGreaterThan(0);
    await resolver.start();

    // Indexer (search, sessions and access projections): killed once the search index holds
    // revisions of decisions its group has not committed yet.
    let indexer = worker('indexer');
    let indexerProof = 0;
    for (let attempt = 0; attempt < 4 && indexerProof === 0; attempt++) {
      await indexer.start();
      const before = sum(await log.committedPosition(topic(Topics.facts), 'indexer'));
      await killMidStream(indexer, Topics.facts, 'indexer', before + 10);
      const pending = (await uncommitted(Topics.facts, 'indexer')).filter((e) => e.payload.memory);
      indexerProof = await appliedAhead(pending.map((e) => e.payload.memory as MemoryRecord));
      indexer = worker('indexer');
    }
    expect(indexerProof).toBeGreaterThan(0);
    await indexer.start();

    // Catch up.
    const progress = recall.get(PipelineProgress);
    await eventually(
      async () => (await progress.pending()) === 0 && (await groupLag(Topics.screened, 'sessions')) === 0,
      'every stage to catch up',
      240_000,
    );

    // Every worker serves /metrics: its own stage counters, and the deployment's lag per partition.
    const stageOf = [
      [filter, 'filter', Topics.turns],
      [extractor, 'extractor', Topics.screened],
      [resolver, 'resolver', Topics.extracted],
      [indexer, 'indexer', Topics.facts],
    ] as const;
    const partitions = Object.keys(await log.endPosition(topic(Topics.extracted)));
    expect(partitions.length).toBeGreaterThan(1);
    for (const [w, stage, input] of stageOf) {
      const metrics = await w.metrics();
      const consumed = new RegExp(`^engram_events_consumed_total\\{stage="${stage}",topic="${topic(input)}"\\} (\\d+)$`, 'm').exec(metrics);
      expect({ stage, consumed: Number(consumed?.[1]) > 0 }).toEqual({ stage, consumed: true });
      for (const partition of partitions) {
        expect(metrics).toContain(`engram_consumer_lag{topic="memory.extracted.v1",group="resolver",partition="${partition}"} 0`);
      }
      expect(metrics).toContain('engram_projection_active_version{projection="facts"} 1');
    }

    // One clean pass over the same turns, embedded.
    reference = await startEngram({ mode: 'embedded', env: { ENGRAM_FORGETTING_INTERVAL_MS: '0' } });
    await ingestAll(reference.http);
    const referenceProgress = reference.app.get(PipelineProgress);
    await eventually(async () => (await referenceProgress.pending()) === 0, 'the embedded reference to settle', 120_000);

    const es = new Client({ node: infra.elasticsearchUrl });
    try {
      await es.indices.refresh({ index: deployment.indexPrefix });
      let reinforced = 0;
      let superseded = 0;
      let total = 0;
      for (const [u, userId] of USERS.entries()) {
        const expected = await memoriesOf(reference.app, userId);
        const actual = await memoriesOf(recall, userId);
        expect({ userId, memories: actual }).toEqual({ userId, memories: expected });
        total += actual.length;
        reinforced += actual.filter((m) => m.mentionCount > 1).length;
        superseded += actual.filter((m) => m.version > 1).length;

        // Each turn once in its session, in order.
        const turnIds = turnsOf(userId, u).map((t) => t.turnId);
        expect({ userId, turns: await sessionTurnIds(recall, userId) }).toEqual({ userId, turns: turnIds });
        expect(await sessionTurnIds(reference.app, userId)).toEqual(turnIds);

        // The search index: exactly the active memories, each at its current revision (summaries are
        // read by session, never indexed: docs/memory-model.md §14).
        const hits = await es.search<{ memoryId: string; status: string }>({
          index: deployment.indexPrefix,
          size: 1_000,
          version: true,
          query: { bool: { filter: [{ term: { tenantId: DEFAULT_TENANT } }, { term: { userId } }, { term: { status: 'active' } }] } },
        });
        const indexed = hits.hits.hits
          .map((h) => ({ memoryId: h._source!.memoryId, revision: h._version }))
          .sort((a, b) => a.memoryId.localeCompare(b.memoryId));
        const active = actual
          .filter((m) => m.status === 'active' && m.kind !== SUMMARY_KIND)
          .map((m) => ({ memoryId: m.memoryId, revision: m.revision }));
        expect({ userId, indexed }).toEqual({ userId, indexed: active });
      }
      // The input really exercised reinforcement and supersession.
      expect(total).toBeGreaterThan(USERS.length * 5);
      expect(reinforced).toBeGreaterThan(0);
      expect(superseded).toBeGreaterThan(0);
    } finally {
      await es.close();
    }
  });

  /** How many of these memory states the search index already holds (or has passed). */
  async function appliedAhead(memories: MemoryRecord[]): Promise<number> {
    const es = new Client({ node: infra.elasticsearchUrl });
    try {
      await es.indices.refresh({ index: deployment.indexPrefix });
      let ahead = 0;
      for (const memory of memories) {
        const hits = await es.search<{ memoryId: string }>({
          index: deployment.indexPrefix,
          size: 1,
          version: true,
          query: { bool: { filter: [{ term: { userId: memory.userId } }, { term: { memoryId: memory.memoryId } }] } },
        });
        const doc = hits.hits.hits[0];
        if (doc && (doc._version ?? 0) >= memory.revision) ahead++;
      }
      return ahead;
    } finally {
      await es.close();
    }
  }
});
