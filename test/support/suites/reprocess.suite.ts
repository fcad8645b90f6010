import type { INestApplication } from '@nestjs/common';
import { loadConfig } from '@engram/config';
import { MemoryReinforced, partitionKey, Topics } from '@engram/contracts';
import { tokenize } from '@engram/domain';
import {
  Embedder,
  EventLog,
  FactStore,
  FactStoreVersions,
  lag,
  ProjectionVersions,
  RebuildLedger,
  SearchIndex,
  SearchIndexVersions,
  SessionStoreVersions,
  VersionedProjection,
} from '@engram/ports';
import { DEFAULT_TENANT, OnlineRebuilds, PipelineProgress, type RebuildStatus, Reprocessor, startApp } from '@engram/services';
import { diffFactVersions, formatDiff } from '../../../apps/engram/cli/diff-projections';
import {
  ChatCompletionsStub,
  FIXTURE_TURNS,
  noItems,
  replayFixtures,
  type Handler,
} from '../../../libs/adapters-llm/src/testing/chat-completions-stub';
import { EngramModule } from '../../../apps/engram/engram.module';
import { distributedEnv, loadDeployment } from '../distributed-deployment';
import { EngramHarness, EngramMode, rebuildOffline, startEngram, turnsBody, useEngramMode } from '../engram-harness';

/*
 * `engram reprocess` (embedded: test/e2e/reprocess.e2e.spec.ts; distributed: test/infra/
 * reprocess.infra.spec.ts): turns ingested with the rule extractor are re-run
 * through the LLM extractor (a local chat-completions stub) into facts@2/search@2 while
 * version 1 serves; the diff shows the change, recall changes only on activation, the live
 * resolver then decides against version 2, and an offline rebuild reproduces it, as does an
 * online rebuild (the run's topic, then memory.facts.v1 from the switch) while turns arrive.
 */

const LLM = 'llm-6:gpt-4o-mini';
const fixturesOrNothing: Handler = (request, attempt) => {
  const answer = replayFixtures(request, attempt);
  return answer.status === 500 ? noItems : answer;
};

export function reprocessSuite(mode?: EngramMode): void {
  useEngramMode(mode);

  describe(`reprocess and diff-projections (${mode ?? 'embedded'})`, () => {
    const stub = new ChatCompletionsStub();
    let env: Record<string, string>;
    let engram: EngramHarness | undefined;
    let maintenance: INestApplication | undefined;

    beforeAll(async () => {
      baseEnv = { ENGRAM_LLM_URL: await stub.start(), ENGRAM_LLM_MODEL: 'gpt-4o-mini', ENGRAM_PROJECTION_POINTER_TTL_MS: '10' };
    });
    afterAll(() => stub.stop());
    let baseEnv: Record<string, string>;
    beforeEach(() => {
      stub.reset(fixturesOrNothing);
      env = baseEnv;
    });
    afterEach(async () => {
      await maintenance?.close();
      maintenance = undefined;
      await engram?.destroy();
      engram = undefined;
    });

    /** What `engram reprocess` runs: the maintenance module on the same data directory, beside the server. */
    async function openMaintenance(dataDir: string): Promise<INestApplication> {
      const deployment = engram!.mode === 'distributed' ? distributedEnv(loadDeployment(dataDir)) : {};
      const config = loadConfig({
        LOG_LEVEL: process.env.ENGRAM_TEST_LOG_LEVEL ?? 'silent',
        ...deployment,
        ...env,
        ENGRAM_DATA_DIR: dataDir,
      });
      return (maintenance = await startApp(EngramModule.forMaintenance({ config }), { http: false, stages: false }));
    }

    async function ingest(userId: string, turns: { turnId: string; text: string }[]): Promise<string> {
      const response = await engram!
        .http()
        .post('/v1/turns')
        .send(turnsBody(userId, 's1', turns))
        .expect(202);
      return response.body.position as string;
    }

    async function recall(userId: string, query: string, after?: string): Promise<string[]> {
      const response = await engram!.http().post('/v1/recall').send({ userId, query, after, k: 20 }).expect(200);
      return [...response.body.facts, ...response.body.memories].map((m: { content: string }) => m.content).sort();
    }

    async function drained(app: INestApplication): Promise<void> {
      const progress = app.get(PipelineProgress);
      while ((await progress.pending()) > 0) await new Promise((resolve) => setTimeout(resolve, 10));
    }

    async function memories(app: INestApplication, userId: string, version?: number) {
      const store =
        version === undefined
          ? app.get<FactStore>(FactStore)
          : await app.get<ProjectionVersions<FactStore>>(FactStoreVersions).open(version);
      return store.list({ tenantId: DEFAULT_TENANT, userId });
    }

    /** A decision a resolver that had not yet seen the switch made against version 1: a memory version 2 holds under another id. */
    async function staleDecision(app: INestApplication, userId: string, mergeKey: string): Promise<MemoryReinforced> {
      const old = (await memories(app, userId, 1)).find((m) => m.mergeKey === mergeKey)!;
      expect((await memories(app, userId)).find((m) => m.mergeKey === mergeKey)!.memoryId).not.toBe(old.memoryId);
      return {
        eventId: `stale-decision-${userId}`,
        type: 'MemoryReinforced',
        schemaVersion: 1,
        tenantId: DEFAULT_TENANT,
        userId,
        occurredAt: old.updatedAt,
        recordedAt: new Date().toISOString(),
        causationId: null,
        correlationId: 'stale',
        payload: { memory: { ...old, revision: old.revision + 1, mentionCount: old.mentionCount + 1 }, itemId: null },
      };
    }

    /** The serving facts and search versions of the users: memories, indexed revisions, and what each search finds (ids: scores move with index statistics). */
    async function servingState(app: INestApplication, users: readonly string[]) {
      const facts = app.get<FactStore>(FactStore);
      const search = app.get<SearchIndex>(SearchIndex);
      const query = 'VS Code TypeScript Stripe PostgreSQL Vim Rust backend engineer 预算 用户';
      const vector = (await app.get<Embedder>(Embedder).embed([query], 'query'))[0];
      const ids = (hits: { memoryId: string }[]) => hits.map((h) => h.memoryId).sort();
      const state: Record<string, unknown> = {};
      for (const userId of users) {
        const held = await facts.list({ tenantId: DEFAULT_TENANT, userId });
        state[userId] = {
          memories: held,
          revisions: [
            ...(
              await search.revisions(
                DEFAULT_TENANT,
                userId,
                held.map((m) => m.memoryId),
              )
            ).entries(),
          ].sort(),
          indexed: await search.countUser(DEFAULT_TENANT, userId),
          text: ids(await search.searchText({ tenantId: DEFAULT_TENANT, userId, terms: tokenize(query), limit: 100 })),
          vector: ids(await search.searchVector({ tenantId: DEFAULT_TENANT, userId, vector, limit: 100 })),
        };
      }
      return state;
    }

    /**
     * `POST /v1/admin/rebuilds {projection: all}`, then polls until the new versions are done, calling
     * `meanwhile` on every round (rebuilds still running); returns how many rounds saw one replaying.
     */
    async function rebuildOnline(
      expected: Record<VersionedProjection, number>,
      meanwhile: (round: number) => Promise<void> = async () => undefined,
    ): Promise<number> {
      await engram!.http().post('/v1/admin/rebuilds').send({ projection: 'all' }).expect(202);
      let replaying = 0;
      for (let round = 0; ; round++) {
        const { rebuilds } = (await engram!.http().get('/v1/admin/rebuilds').expect(200)).body as { rebuilds: RebuildStatus[] };
        const mine = rebuilds.filter((r) => r.version === expected[r.projection]);
        expect(mine.filter((r) => r.phase === 'failed')).toEqual([]);
        if (mine.length === 3 && mine.every((r) => r.phase === 'done')) return replaying;
        if (mine.some((r) => r.phase === 'replaying')) replaying++;
        await meanwhile(round);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }

    it('builds version 2 with another extractor, changes nothing live until activation, and a rebuild reproduces it', async () => {
      engram = await startEngram({ env });
      await ingest('lin', [
        { turnId: 't1', text: FIXTURE_TURNS.zh.text },
        { turnId: 't2', text: FIXTURE_TURNS.en.text },
      ]);
      await ingest('sam', [{ turnId: 't1', text: 'I prefer Vim for Rust work' }]);
      await drained(engram.app);
      expect(stub.requests).toHaveLength(0); // the live extractor is the rules
      const liveBefore = { vscode: await recall('lin', 'VS Code'), stripe: await recall('lin', 'Stripe'), sam: await recall('sam', 'Vim') };
      expect(liveBefore.vscode.some((c) => c.startsWith('用户'))).toBe(false);
      const eventLog = engram.app.get<EventLog>(EventLog);
      const factsEnd = await eventLog.endPosition(Topics.facts);

      const app = await openMaintenance(engram.dataDir);
      const reprocessor = app.get(Reprocessor);
      await expect(reprocessor.run({ from: 'beginning', extractorVersion: 'llm-9:nope' })).rejects.toThrow(
        `unknown extractor version "llm-9:nope": this build knows rules-10, ${LLM}`,
      );
      await expect(reprocessor.run({ from: 'yesterday', extractorVersion: LLM })).rejects.toThrow(
        /--from must be "beginning" or an ISO instant/,
      );
      const phases = new Set<string>();
      const built = await reprocessor.run({ from: 'beginning', extractorVersion: LLM, onProgress: (p) => phases.add(p.phase) });
      expect(built).toMatchObject({ factsVersion: 2, searchVersion: 2, extractorVersion: LLM, from: 'beginning', turns: 3, carried: 0 });
      expect(built.decisions).toBeGreaterThan(0);
      expect([...phases]).toEqual(['reprocessing']);
      expect(stub.requests.filter((r) => r.body.messages.some((m) => m.content.includes(FIXTURE_TURNS.zh.text)))).toHaveLength(1);

      // Nothing live moved: same recall, same live decisions log; the run's decisions are on its own topic.
      expect(await eventLog.endPosition(Topics.facts)).toEqual(factsEnd);
      expect(lag(await eventLog.endPosition(built.topic), {})).toBe(built.decisions);
      expect({ vscode: await recall('lin', 'VS Code'), stripe: await recall('lin', 'Stripe'), sam: await recall('sam', 'Vim') }).toEqual(
        liveBefore,
      );

      // The diff names what the LLM extraction changes.
      const versions = app.get<ProjectionVersions<FactStore>>(FactStoreVersions);
      const diff = await diffFactVersions(versions, 1, 2);
      if (process.env.SHOW_DIFF) console.log(formatDiff(diff));
      const lin = diff.users.find((u) => u.userId === 'lin')!;
      expect(lin.added.map((m) => m.content)).toEqual(expect.arrayContaining(['The user works at Stripe.']));
      expect(lin.changed.map((c) => c.after.content)).toContain('用户喜欢用 VS Code 写 TypeScript。');
      expect(diff.totals.added).toBe(diff.users.reduce((n, u) => n + u.added.length, 0));
      expect((await diffFactVersions(versions, 2, 2)).users).toEqual([]);

      // An online rebuild would drop the waiting version: refused with what to do.
      await expect(engram.app.get(OnlineRebuilds).start('facts')).rejects.toThrow(
        /facts@2 holds reprocess run .* activate or drop it first/,
      );

      // Activate beside the running server, with one more turn arriving first: it is re-decided too.
      await ingest('sam', [{ turnId: 't2', text: FIXTURE_TURNS.en.text }]);
      const activated = await reprocessor.activate(2, { overlapMs: 20 });
      expect(activated).toMatchObject({
        factsVersion: 2,
        searchVersion: 2,
        previousFactsVersion: 1,
        previousSearchVersion: 1,
        caughtUp: 1,
      });
      expect(await recall('lin', 'VS Code')).toContain('用户喜欢用 VS Code 写 TypeScript。');
      expect(await recall('lin', 'Stripe')).toContain('The user works at Stripe.');
      expect(await recall('sam', 'Stripe')).toContain('The user works at Stripe.');
      await expect(reprocessor.activate(2)).rejects.toThrow(/already activated/);

      // After the switch the live resolver decides against version 2 (still with the rules: ENGRAM_EXTRACTOR is unchanged).
      const after = await ingest('lin', [{ turnId: 't3', text: 'I prefer Vim for Rust work' }]);
      expect((await recall('lin', 'Vim Rust', after)).some((c) => c.includes('Vim'))).toBe(true);
      await drained(engram.app);

      // An offline rebuild replays the run's topic, then memory.facts.v1 from the switch: the same memories.
      const users = ['lin', 'sam'];
      const before = Object.fromEntries(await Promise.all(users.map(async (u) => [u, await memories(engram!.app, u)])));
      const indexedBefore = await Promise.all(users.map((u) => engram!.app.get<SearchIndex>(SearchIndex).countUser(DEFAULT_TENANT, u)));
      expect(before.lin.some((m: { content: string }) => m.content.includes('Vim'))).toBe(true);
      // A resolver that had not yet seen the switch decided against version 1: its decision is on
      // memory.facts.v1 after the switch, about a memory version 2 holds under another id.
      const stale = await staleDecision(app, 'lin', 'user/editor');
      await maintenance!.close();
      maintenance = undefined;
      await engram.stop();
      const log = await openMaintenance(engram.dataDir);
      await log.get<EventLog>(EventLog).append(Topics.facts, [{ key: partitionKey(DEFAULT_TENANT, 'lin'), value: stale }]);
      await log.close();
      maintenance = undefined;
      await rebuildOffline(engram.dataDir);
      const reopened = await openMaintenance(engram.dataDir);
      expect(Object.fromEntries(await Promise.all(users.map(async (u) => [u, await memories(reopened, u)])))).toEqual(before);
      expect(await Promise.all(users.map((u) => reopened.get<SearchIndex>(SearchIndex).countUser(DEFAULT_TENANT, u)))).toEqual(
        indexedBefore,
      );
    });

    it('rebuilds an activated reprocessed version online while turns arrive: equal to an offline rebuild, and again after it', async () => {
      // Embedded, a rate limit keeps each rebuild running long enough to overlap the turns below (Kafka's group joins do that distributed).
      env = { ...env, ENGRAM_REBUILD_GRACE_MS: '200', ENGRAM_REBUILD_RATE_LIMIT: mode === 'distributed' ? '0' : '60' };
      engram = await startEngram({ env });
      await ingest('lin', [
        { turnId: 't1', text: FIXTURE_TURNS.zh.text },
        { turnId: 't2', text: FIXTURE_TURNS.en.text },
      ]);
      await ingest('sam', [{ turnId: 't1', text: 'I prefer Vim for Rust work' }]);
      await drained(engram.app);
      const app = await openMaintenance(engram.dataDir);
      const reprocessor = app.get(Reprocessor);
      const built = await reprocessor.run({ from: 'beginning', extractorVersion: LLM });

      // Built, not yet activated: an online rebuild would take its number and drop it; refused (409) with what to do.
      const refused = await engram.http().post('/v1/admin/rebuilds').send({ projection: 'search' }).expect(409);
      expect(String(refused.body.message)).toMatch(/search@2 holds reprocess run .* \(done\): activate or drop it first/);
      await engram.http().post('/v1/admin/rebuilds').send({ projection: 'all' }).expect(409);
      expect((await app.get<RebuildLedger>(RebuildLedger).list()).map((r) => [r.projection, r.version])).toEqual([
        ['facts', 2],
        ['search', 2],
      ]);

      const activated = await reprocessor.activate(2, { overlapMs: 20 });
      // After the switch: live decisions against version 2, and a stale one against version 1, which a replay must leave out.
      await ingest('lin', [{ turnId: 't3', text: 'I prefer Vim for Rust work' }]);
      await ingest('kai', [{ turnId: 't1', text: FIXTURE_TURNS.en.text }]);
      await drained(engram.app);
      const stale = await staleDecision(app, 'lin', 'user/editor');
      await engram.app.get<EventLog>(EventLog).append(Topics.facts, [{ key: partitionKey(DEFAULT_TENANT, 'lin'), value: stale }]);
      await maintenance!.close();
      maintenance = undefined;

      // Online, every projection, while new users' turns arrive.
      const users = ['lin', 'sam', 'kai'];
      const ingestedWhileReplaying = await rebuildOnline({ facts: 3, search: 3, sessions: 2 }, async (round) => {
        const userId = `late-${round}`;
        users.push(userId);
        await ingest(userId, [{ turnId: 't1', text: round % 2 ? 'I prefer Vim for Rust work' : FIXTURE_TURNS.en.text }]);
      });
      expect(ingestedWhileReplaying).toBeGreaterThan(0);
      await drained(engram.app);
      for (const token of [FactStoreVersions, SearchIndexVersions]) {
        const versions = engram.app.get<ProjectionVersions<object>>(token);
        expect(await versions.active()).toBe(3);
        // Version 2 dropped after the grace period; version 1 (before the reprocess) is kept until dropped by hand.
        expect(await versions.list()).toEqual([1, 3]);
      }
      expect(await engram.app.get<ProjectionVersions<object>>(SessionStoreVersions).active()).toBe(2);
      // The new versions carry the run's lineage: later rebuilds replay them the same way.
      const lineage = {
        runId: built.runId,
        topic: built.topic,
        extractorVersion: LLM,
        from: 'beginning',
        factsVersion: 2,
        searchVersion: 2,
        switchPosition: activated.switchPosition,
      };
      const records = await engram.app.get<RebuildLedger>(RebuildLedger).list();
      for (const projection of ['facts', 'search']) {
        expect(records.find((r) => r.projection === projection && r.version === 3)).toMatchObject({
          phase: 'done',
          previousVersion: 2,
          reprocess: lineage,
        });
      }
      expect(records.find((r) => r.projection === 'sessions' && r.version === 2)?.reprocess).toBeUndefined();
      const online = await servingState(engram.app, users);
      const lin = (online.lin as { memories: { content: string; mergeKey: string }[] }).memories;
      expect(lin.map((m) => m.content)).toEqual(expect.arrayContaining(['The user works at Stripe.']));
      expect(lin.some((m) => m.content.includes('Vim'))).toBe(true);
      expect(users.filter((u) => u.startsWith('late-') && (online[u] as { memories: unknown[] }).memories.length === 0)).toEqual([]);

      // A second online rebuild, of the version the first one built: the same state.
      await rebuildOnline({ facts: 4, search: 4, sessions: 3 });
      expect(await servingState(engram.app, users)).toEqual(online);

      // An offline rebuild of the same log: the same state again.
      await engram.stop();
      await rebuildOffline(engram.dataDir);
      const reopened = await openMaintenance(engram.dataDir);
      expect(await reopened.get<ProjectionVersions<object>>(FactStoreVersions).active()).toBe(4);
      expect(await servingState(reopened, users)).toEqual(online);
    });

    it('fails cleanly when the extractor keeps failing: versions dropped, recorded failed, nothing live touched', async () => {
      env = { ...env, ENGRAM_LLM_RETRIES: '0', ENGRAM_STAGE_ATTEMPTS: '2' };
      engram = await startEngram({ env });
      await ingest('ada', [{ turnId: 't1', text: FIXTURE_TURNS.zh.text }]);
      await drained(engram.app);
      const live = await memories(engram.app, 'ada');
      stub.reset(() => ({ status: 500, body: { error: { message: 'stub: down', type: 'server_error' } } }));
      const app = await openMaintenance(engram.dataDir);
      await expect(app.get(Reprocessor).run({ from: 'beginning', extractorVersion: LLM })).rejects.toThrow();
      expect(stub.requests.length).toBeGreaterThanOrEqual(2);
      expect(await app.get<ProjectionVersions<FactStore>>(FactStoreVersions).list()).toEqual([1]);
      const records = await app.get<RebuildLedger>(RebuildLedger).list();
      expect(records.map((r) => [r.projection, r.version, r.phase])).toEqual([
        ['facts', 2, 'failed'],
        ['search', 2, 'failed'],
      ]);
      expect(await memories(engram.app, 'ada')).toEqual(live);
    });

    it('--from an instant carries memories over as they stood and re-decides only later turns', async () => {
      engram = await startEngram({ env });
      await ingest('kim', [{ turnId: 't1', text: FIXTURE_TURNS.zh.text }]);
      await drained(engram.app);
      await new Promise((resolve) => setTimeout(resolve, 20));
      const instant = new Date().toISOString();
      await new Promise((resolve) => setTimeout(resolve, 20));
      await ingest('kim', [{ turnId: 't2', text: FIXTURE_TURNS.en.text }]);
      await drained(engram.app);
      const live = await memories(engram.app, 'kim');
      const earlier = live.filter((m) => m.sourceTurnIds.includes('t1'));
      expect(earlier.length).toBeGreaterThan(0);

      const app = await openMaintenance(engram.dataDir);
      const built = await app.get(Reprocessor).run({ from: instant, extractorVersion: LLM });
      expect(built).toMatchObject({ factsVersion: 2, from: instant, carried: earlier.length });
      // Only the later turn went to the model.
      expect(stub.requests.some((r) => r.body.messages.some((m) => m.content.includes(FIXTURE_TURNS.zh.text)))).toBe(false);
      expect(stub.requests.some((r) => r.body.messages.some((m) => m.content.includes(FIXTURE_TURNS.en.text)))).toBe(true);

      const rebuilt = await memories(app, 'kim', 2);
      // The earlier memories, as they were (rules); the later turn's, from the model only.
      expect(
        rebuilt
          .filter((m) => m.sourceTurnIds.includes('t1'))
          .map((m) => m.content)
          .sort(),
      ).toEqual(earlier.map((m) => m.content).sort());
      const later = rebuilt.filter((m) => m.sourceTurnIds.includes('t2') && m.kind !== 'episode').map((m) => m.content);
      expect(later).toEqual(expect.arrayContaining(['The user works at Stripe.', 'The user is a backend engineer.']));
      expect(later.every((c) => !c.includes("I'm a backend engineer"))).toBe(true);
      // The live version is untouched.
      expect(await memories(engram.app, 'kim')).toEqual(live);

      // Not wanted: dropping the run's facts version drops its search version too, and frees the number.
      const versions = app.get<ProjectionVersions<FactStore>>(FactStoreVersions);
      await expect(app.get(Reprocessor).drop('facts', 1)).rejects.toThrow('facts@1 is active: activate another version first');
      await app.get(Reprocessor).drop('facts', 2);
      expect(await versions.list()).toEqual([1]);
      expect(await app.get<ProjectionVersions<SearchIndex>>(SearchIndexVersions).list()).toEqual([1]);
      await expect(app.get(Reprocessor).activate(2)).rejects.toThrow('facts@2 is failed, not built');
      expect((await app.get(Reprocessor).run({ from: instant, extractorVersion: 'rules-10' })).factsVersion).toBe(2);
    });
  });
}
