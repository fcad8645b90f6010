import type { INestApplication } from '@nestjs/common';
import { loadConfig } from '@engram/config';
import { tokenize } from '@engram/domain';
import { Topics } from '@engram/contracts';
import {
  ConsumedMessage,
  Embedder,
  EventLog,
  FactStore,
  FactStoreVersions,
  lag,
  ProjectionVersions,
  RebuildLedger,
  SearchIndex,
  SearchIndexVersions,
  SessionStore,
  SessionStoreVersions,
} from '@engram/ports';
import { DEFAULT_TENANT, PipelineProgress, RebuildStatus, Reprocessor, startApp } from '@engram/services';
import { EngramModule } from '../../apps/engram/engram.module';
import { EngramHarness, rebuildOffline, startEngram, turnsBody } from '../support/engram-harness';

/**
 * Online rebuilds in the embedded mode, through the HTTP admin API: every
 * versioned projection is rebuilt into version 2 while turns keep arriving and
 * recall keeps answering; the result equals a from-scratch (offline) rebuild.
 */
jest.setTimeout(180_000);

const SESSION = 's1';
/** Sentences that add, reinforce and supersede memories (a changed budget or editor). */
const SENTENCES = [
  'I prefer VS Code for TypeScript work',
  '预算控制在三万以内',
  'we decided to use Kafka for the event bus',
  '我喜欢用 VS Code',
  '预算提到五万了',
  '嗯嗯',
  '每周三下午两点例会',
  'I prefer Vim for Rust work',
  'my name is Mary and I work at Globex',
  '我们决定用 Kafka 做消息队列',
  'the deadline is Friday',
  '我不吃辣',
];
const USERS = Array.from({ length: 10 }, (_, u) => `user-${u}`);
/** Recall checks that hold for every user at any time (the sentences that never change come first). */
const QUERIES = [
  { query: 'event bus Kafka', expect: 'Kafka' },
  { query: '预算', expect: '预算' },
];

function turnsOf(userId: string, from: number, count: number) {
  return Array.from({ length: count }, (_, k) => {
    const i = from + k;
    return {
      turnId: `${userId}-t${i}`,
      text: SENTENCES[i % SENTENCES.length],
      occurredAt: new Date(Date.UTC(2026, 10, 1, 9, i)).toISOString(),
    };
  });
}

/** Each versioned projection of the users, read through the live ports. */
async function snapshot(app: INestApplication, users: readonly string[]) {
  const facts = app.get<FactStore>(FactStore);
  const sessions = app.get<SessionStore>(SessionStore);
  const search = app.get<SearchIndex>(SearchIndex);
  const embedder = app.get<Embedder>(Embedder);
  const result: Record<string, unknown> = {};
  for (const userId of users) {
    const memories = await facts.list({ tenantId: DEFAULT_TENANT, userId });
    const query = SENTENCES.join(' ');
    result[userId] = {
      memories,
      turns: await sessions.recent(DEFAULT_TENANT, userId, SESSION, 10_000),
      revisions: [
        ...(
          await search.revisions(
            DEFAULT_TENANT,
            userId,
            memories.map((m) => m.memoryId),
          )
        ).entries(),
      ].sort(),
      indexed: await search.countUser(DEFAULT_TENANT, userId),
      text: await search.searchText({ tenantId: DEFAULT_TENANT, userId, terms: tokenize(query), limit: 100 }),
      vector: await search.searchVector({
        tenantId: DEFAULT_TENANT,
        userId,
        vector: (await embedder.embed([query], 'query'))[0],
        limit: 100,
      }),
    };
  }
  return result;
}

async function settle(app: INestApplication): Promise<void> {
  const progress = app.get(PipelineProgress);
  for (let i = 0; i < 4000; i++) {
    if ((await progress.pending()) === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error('pipeline did not settle');
}

describe('online rebuild (embedded, HTTP admin API)', () => {
  let engram: EngramHarness | undefined;
  afterEach(async () => {
    await engram?.destroy();
    engram = undefined;
  });

  it('rebuilds facts, sessions and search into version 2 while ingesting and recalling; the result equals a from-scratch rebuild', async () => {
    // A rate limit keeps the rebuild running long enough to overlap the live traffic below.
    const env = { ENGRAM_REBUILD_GRACE_MS: '300', ENGRAM_REBUILD_RATE_LIMIT: '400' };
    engram = await startEngram({ mode: 'embedded', env });
    const http = engram.http;
    for (const userId of USERS)
      await http()
        .post('/v1/turns')
        .send(turnsBody(userId, SESSION, turnsOf(userId, 0, 24)))
        .expect(202);
    await settle(engram.app);
    const before = await snapshot(engram.app, USERS);

    const recalls: { status: number; present: boolean }[] = [];
    let stop = false;
    const recallLoop = (async () => {
      for (let i = 0; !stop; i++) {
        const q = QUERIES[i % QUERIES.length];
        const response = await http()
          .post('/v1/recall')
          .send({ userId: USERS[i % USERS.length], query: q.query });
        const memories = (response.body as { memories?: { content: string }[] }).memories ?? [];
        recalls.push({ status: response.status, present: memories.some((m) => m.content.includes(q.expect)) });
      }
    })();

    const started = await http().post('/v1/admin/rebuilds').send({ projection: 'all' }).expect(202);
    const startedRebuilds = (started.body as { rebuilds: RebuildStatus[] }).rebuilds;
    expect(startedRebuilds.map((r) => [r.projection, r.version, r.previousVersion, r.phase]).sort()).toEqual([
      ['facts', 2, 1, 'replaying'],
      ['search', 2, 1, 'replaying'],
      ['sessions', 2, 1, 'replaying'],
    ]);
    await http().post('/v1/admin/rebuilds').send({ projection: 'facts' }).expect(409);

    // New users' turns keep arriving until every rebuild is done.
    const seen: RebuildStatus[] = [];
    const lateUsers: string[] = [];
    let ingestedWhileReplaying = 0;
    for (let round = 0; ; round++) {
      const { rebuilds } = (await http().get('/v1/admin/rebuilds').expect(200)).body as { rebuilds: RebuildStatus[] };
      seen.push(...rebuilds);
      if (rebuilds.length === 3 && rebuilds.every((r) => r.phase === 'done')) break;
      expect(rebuilds.filter((r) => r.phase === 'failed')).toEqual([]);
      const userId = `late-${round}`;
      lateUsers.push(userId);
      await http()
        .post('/v1/turns')
        .send(turnsBody(userId, SESSION, turnsOf(userId, round, 6)))
        .expect(202);
      if (rebuilds.some((r) => r.phase === 'replaying')) ingestedWhileReplaying++;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    stop = true;
    await recallLoop;
    await settle(engram.app);

    // Recall answered all along, with the expected memories.
    expect(recalls.length).toBeGreaterThan(0);
    expect(recalls.filter((r) => r.status !== 200 || !r.present)).toEqual([]);
    expect(ingestedWhileReplaying).toBeGreaterThan(0);
    // Progress reports moved through the phases with sane numbers.
    for (const projection of ['facts', 'sessions', 'search']) {
      const mine = seen.filter((r) => r.projection === projection);
      expect(mine.some((r) => r.phase === 'replaying' && r.running)).toBe(true);
      for (const r of mine) {
        expect(r.done).toBeLessThanOrEqual(r.total);
        expect(r.eventsPerSecond).toBeGreaterThanOrEqual(0);
      }
      expect(mine[mine.length - 1]).toMatchObject({ phase: 'done', version: 2 });
      expect(mine[mine.length - 1].done).toBeGreaterThan(0);
    }

    // Version 2 serves, version 1 is dropped.
    for (const token of [FactStoreVersions, SessionStoreVersions, SearchIndexVersions]) {
      const versions = engram.app.get<ProjectionVersions<object>>(token);
      expect(await versions.active()).toBe(2);
      expect(await versions.list()).toEqual([2]);
    }

    // /metrics says the same: version 2 active and alone, each latest rebuild done with its events.
    const metrics = (await http().get('/metrics').expect(200)).text;
    for (const projection of ['facts', 'sessions', 'search']) {
      expect(metrics).toContain(`engram_projection_active_version{projection="${projection}"} 2`);
      expect(metrics).toContain(`engram_projection_stored_versions{projection="${projection}"} 1`);
      expect(metrics).toContain(`engram_rebuild_phase{projection="${projection}",version="2",phase="done"} 1`);
      expect(metrics).toContain(`engram_rebuild_phase{projection="${projection}",version="2",phase="replaying"} 0`);
      const applied = new RegExp(`^engram_rebuild_applied_events\\{projection="${projection}",version="2"\\} (\\d+)$`, 'm').exec(metrics);
      expect(Number(applied?.[1])).toBe(seen.filter((r) => r.projection === projection).at(-1)?.done);
    }

    // The old users' projections are what they were; the late users are there too.
    const users = [...USERS, ...lateUsers];
    const live = await snapshot(engram.app, users);
    // (Stored state only: BM25 scores move with the late users' documents, as idf changes.)
    const stored = (all: Record<string, unknown>) =>
      Object.fromEntries(Object.entries(all).map(([userId, s]) => [userId, { ...(s as object), text: undefined, vector: undefined }]));
    expect(stored(await snapshot(engram.app, USERS))).toEqual(stored(before));
    for (const userId of lateUsers) expect((live[userId] as { turns: unknown[] }).turns).toHaveLength(6);

    // Equal to a from-scratch rebuild of the same log.
    const dataDir = engram.dataDir;
    await engram.stop();
    await rebuildOffline(dataDir, { mode: 'embedded' });
    engram = await startEngram({ mode: 'embedded', dataDir, env });
    expect(await snapshot(engram.app, users)).toEqual(live);
  });

  it('guards the admin endpoints: ENGRAM_ADMIN_KEY as bearer (401 without, 403 wrong), 403 when only tenant keys exist; validates the body', async () => {
    engram = await startEngram({ mode: 'embedded', env: { ENGRAM_API_KEYS: 'tenant-key=acme' } });
    await engram.http().get('/v1/admin/rebuilds').set('authorization', 'Bearer tenant-key').expect(403);
    await engram.destroy();

    engram = await startEngram({
      mode: 'embedded',
      env: { ENGRAM_API_KEYS: 'tenant-key=acme', ENGRAM_ADMIN_KEY: 'admin-secret', ENGRAM_REBUILD_GRACE_MS: '0' },
    });
    const http = engram.http;
    await http().get('/v1/admin/rebuilds').expect(401);
    await http().get('/v1/admin/rebuilds').set('authorization', 'Bearer tenant-key').expect(403);
    expect((await http().get('/v1/admin/rebuilds').set('authorization', 'Bearer admin-secret').expect(200)).body).toEqual({ rebuilds: [] });
    const bad = await http()
      .post('/v1/admin/rebuilds')
      .set('authorization', 'Bearer admin-secret')
      .send({ projection: 'access' })
      .expect(400);
    expect(bad.body.fields).toEqual(['projection']);
    await http().post('/v1/admin/rebuilds').set('authorization', 'Bearer admin-secret').send({ projection: 'sessions' }).expect(202);
    // The tenant API still works with tenant keys alone.
    await http().post('/v1/recall').set('authorization', 'Bearer tenant-key').send({ userId: 'u', query: 'x' }).expect(200);
  });

  it('a rebuild that keeps failing is reported failed, its version dropped, and the serving version untouched', async () => {
    engram = await startEngram({ mode: 'embedded', env: { ENGRAM_REBUILD_GRACE_MS: '0', ENGRAM_STAGE_RETRY_DELAY_MS: '10' } });
    const http = engram.http;
    await http()
      .post('/v1/turns')
      .send(turnsBody('zhou', SESSION, turnsOf('zhou', 0, 3)))
      .expect(202);
    await settle(engram.app);
    // A corrupt decision in the log: a second memory claiming an existing merge key, which the fact
    // store refuses (the live resolver never writes it; only a replay of memory.facts.v1 meets it).
    const log = engram.app.get<EventLog>(EventLog);
    const first = await new Promise<ConsumedMessage>((resolve) => {
      void log
        .subscribe({ topic: Topics.facts, group: 'test-peek', maxBatchSize: 1 }, async ([message]) => resolve(message))
        .then((sub) => setTimeout(() => void sub.stop(), 100));
    });
    const event = first.value as { eventId: string; payload: { memory: { memoryId: string } } };
    const corrupt = {
      ...event,
      eventId: `${event.eventId}-corrupt`,
      payload: { ...event.payload, memory: { ...event.payload.memory, memoryId: 'corrupt-memory' } },
    };
    await log.append(Topics.facts, [{ key: first.key, value: corrupt }]);
    const facts = engram.app.get<FactStore>(FactStore);
    const stored = await facts.list({ tenantId: DEFAULT_TENANT, userId: 'zhou' });
    // What recall finds (ids; scores move with access statistics, which recall itself records).
    const recalled = async () =>
      (
        (await http().post('/v1/recall').send({ userId: 'zhou', query: 'event bus Kafka' }).expect(200)).body as {
          memories: { id: string }[];
        }
      ).memories.map((m) => m.id);
    const before = await recalled();
    expect(before.length).toBeGreaterThan(0);

    await http().post('/v1/admin/rebuilds').send({ projection: 'facts' }).expect(202);
    let status: RebuildStatus | undefined;
    for (let i = 0; i < 2000; i++) {
      status = ((await http().get('/v1/admin/rebuilds').expect(200)).body as { rebuilds: RebuildStatus[] }).rebuilds[0];
      if (status.phase !== 'replaying') break;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    expect(status).toMatchObject({ projection: 'facts', version: 2, phase: 'failed' });
    expect(status!.error).toMatch(/UNIQUE/);
    const versions = engram.app.get<ProjectionVersions<object>>(FactStoreVersions);
    expect(await versions.active()).toBe(1);
    expect(await versions.list()).toEqual([1]);
    expect(await facts.list({ tenantId: DEFAULT_TENANT, userId: 'zhou' })).toEqual(stored);
    expect(await recalled()).toEqual(before);
    // A failed rebuild does not block the next one (which fails the same way on this log, but starts).
    await http().post('/v1/admin/rebuilds').send({ projection: 'facts' }).expect(202);
  });

  it('a failure after the swap is not a failed rebuild: the new version keeps serving, the error is shown, the overlap is retried', async () => {
    engram = await startEngram({ mode: 'embedded', env: { ENGRAM_REBUILD_GRACE_MS: '3000', ENGRAM_STAGE_RETRY_DELAY_MS: '10' } });
    const http = engram.http;
    await http()
      .post('/v1/turns')
      .send(turnsBody('zhou', SESSION, turnsOf('zhou', 0, 3)))
      .expect(202);
    await settle(engram.app);
    const status = async () =>
      ((await http().get('/v1/admin/rebuilds').expect(200)).body as { rebuilds: RebuildStatus[] }).rebuilds.find((r) => r.version === 2)!;
    await http().post('/v1/admin/rebuilds').send({ projection: 'facts' }).expect(202);
    for (let i = 0; i < 2000 && (await status()).phase === 'replaying'; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect((await status()).phase).toBe('swapped');

    // During the grace period, a decision the new version's store refuses reaches the overlap.
    const log = engram.app.get<EventLog>(EventLog);
    const first = await new Promise<ConsumedMessage>((resolve) => {
      void log
        .subscribe({ topic: Topics.facts, group: 'test-peek-2', maxBatchSize: 1 }, async ([message]) => resolve(message))
        .then((sub) => setTimeout(() => void sub.stop(), 100));
    });
    const event = first.value as { eventId: string; payload: { memory: { memoryId: string } } };
    const corrupt = {
      ...event,
      eventId: `${event.eventId}-corrupt`,
      payload: { ...event.payload, memory: { ...event.payload.memory, memoryId: 'corrupt-memory' } },
    };
    await log.append(Topics.facts, [{ key: first.key, value: corrupt }]);

    let seen: RebuildStatus | undefined;
    for (let i = 0; i < 3000 && !(seen = await status()).error; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(seen).toMatchObject({ projection: 'facts', version: 2, phase: 'swapped' });
    expect(seen!.error).toMatch(/UNIQUE/);
    const versions = engram.app.get<ProjectionVersions<object>>(FactStoreVersions);
    expect(await versions.active()).toBe(2);
    await http().post('/v1/recall').send({ userId: 'zhou', query: 'event bus Kafka' }).expect(200);
    // Still retrying, never given up: the phase stays swapped.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect((await status()).phase).toBe('swapped');
  });

  it("a rebuild of a reprocessed version stopped while reading the run's topic resumes from its checkpoint at the next start, equal to an offline rebuild", async () => {
    // Slow enough to be stopped mid-way, in batches of 5.
    const env = { ENGRAM_REBUILD_GRACE_MS: '200', ENGRAM_REBUILD_RATE_LIMIT: '50' };
    engram = await startEngram({ mode: 'embedded', env });
    const http = engram.http;
    for (const userId of USERS.slice(0, 4))
      await http()
        .post('/v1/turns')
        .send(turnsBody(userId, SESSION, turnsOf(userId, 0, 12)))
        .expect(202);
    await settle(engram.app);
    // Reprocess (with the live extractor: no model needed) and activate, beside the server; then more turns after the switch.
    const maintenance = await startApp(
      EngramModule.forMaintenance({ config: loadConfig({ LOG_LEVEL: 'silent', ENGRAM_DATA_DIR: engram.dataDir }) }),
      { http: false, stages: false },
    );
    const built = await maintenance.get(Reprocessor).run({ from: 'beginning', extractorVersion: 'rules-10' });
    const { switchPosition } = await maintenance.get(Reprocessor).activate(built.factsVersion, { overlapMs: 20 });
    await maintenance.close();
    for (const userId of USERS.slice(0, 4))
      await http()
        .post('/v1/turns')
        .send(turnsBody(userId, SESSION, turnsOf(userId, 12, 3)))
        .expect(202);
    await settle(engram.app);
    const log = engram.app.get<EventLog>(EventLog);
    const runTopicSize = lag(await log.endPosition(built.topic), {});
    expect(runTopicSize).toBeGreaterThan(20);

    await http().post('/v1/admin/rebuilds').send({ projection: 'facts' }).expect(202);
    const rebuilds = async () =>
      ((await engram!.http().get('/v1/admin/rebuilds').expect(200)).body as { rebuilds: RebuildStatus[] }).rebuilds;
    const facts3 = async () => (await rebuilds()).find((r) => r.projection === 'facts' && r.version === 3);
    for (let i = 0; i < 2000 && ((await facts3())?.done ?? 0) < 15; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    await engram.stop();

    // Stopped inside the run's topic: the group's checkpoint is part-way through it, nothing of memory.facts.v1 is consumed yet.
    const dataDir = engram.dataDir;
    const stopped = await startApp(EngramModule.forMaintenance({ config: loadConfig({ LOG_LEVEL: 'silent', ENGRAM_DATA_DIR: dataDir }) }), {
      http: false,
      stages: false,
    });
    const record = (await stopped.get<RebuildLedger>(RebuildLedger).list()).find((r) => r.projection === 'facts' && r.version === 3);
    expect(record).toMatchObject({
      phase: 'replaying',
      previousVersion: 2,
      group: 'rebuild-facts-v3',
      reprocess: { runId: built.runId, topic: built.topic, switchPosition },
    });
    const stoppedLog = stopped.get<EventLog>(EventLog);
    const checkpoint = lag(await stoppedLog.committedPosition(built.topic, 'rebuild-facts-v3'), {});
    expect(checkpoint).toBeGreaterThanOrEqual(15);
    expect(checkpoint).toBeLessThan(runTopicSize);
    expect(lag(await stoppedLog.committedPosition(Topics.facts, 'rebuild-facts-v3'), {})).toBe(0);
    await stopped.close();

    // The next start resumes it from there (same version; its progress never falls below the checkpoint) and finishes it.
    engram = await startEngram({ mode: 'embedded', dataDir, env });
    let status = await facts3();
    expect(status?.done).toBeGreaterThanOrEqual(checkpoint);
    for (let i = 0; i < 2000 && status?.phase !== 'done'; i++) {
      expect(status?.phase).not.toBe('failed');
      await new Promise((resolve) => setTimeout(resolve, 25));
      status = await facts3();
    }
    expect(status).toMatchObject({ phase: 'done' });
    expect(await engram.app.get<ProjectionVersions<object>>(FactStoreVersions).active()).toBe(3);
    // Every message of both topics counted once: the run's topic and memory.facts.v1 (read in full, applied from the switch).
    const finished = (await engram.app.get<RebuildLedger>(RebuildLedger).list()).find((r) => r.projection === 'facts' && r.version === 3)!;
    expect(finished.done).toBe(runTopicSize + lag(await engram.app.get<EventLog>(EventLog).endPosition(Topics.facts), {}));
    const users = USERS.slice(0, 4);
    const online = await snapshot(engram.app, users);
    expect(Object.values(online).every((u) => (u as { memories: unknown[] }).memories.length > 0)).toBe(true);

    await engram.stop();
    await rebuildOffline(dataDir, { mode: 'embedded' });
    engram = await startEngram({ mode: 'embedded', dataDir, env });
    expect(await snapshot(engram.app, users)).toEqual(online);
  });
});
