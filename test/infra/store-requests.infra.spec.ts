import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { type EngramConfig, loadConfig } from '@engram/config';
import type { CommandStartedEvent, CommandSucceededEvent, Document, MongoClient } from 'mongodb';
import { connectStages, EngramMetrics, PipelineProgress, startApp } from '@engram/services';
import { MONGO_CLIENT } from '@engram/services/bindings/bindings';
import { EngramModule } from '../../apps/engram/engram.module';
import { addCounts, parseStoreRequests, storeRequestRates, workloadQueries, workloadRequests } from '../../apps/engram/cli/bench';
import { destroyDeployment, distributedEnv, newDeployment } from '../support/distributed-deployment';
import { turnsBody } from '../support/engram-harness';

/**
 * What ingest costs the stores in distributed mode, counted by `engram_store_requests_total`
 * (issue 31 point 3). The turns are posted while the stages are not yet consuming, so every stage
 * meets full batches of 100, as it does under load (a pipeline that keeps up with a trickle handles
 * batches of a few events, each paying a batch's requests). The users exist beforehand (a user's
 * first turn creates their data key: once per user, not per turn), and the projection pointers are
 * cached for the whole run (re-read at most once per ENGRAM_PROJECTION_POINTER_TTL_MS while busy: a
 * cost per second, not per turn). Likewise the webhook worker's look at the live subscriptions, once
 * a second whatever the load (one `find` of `webhook_subscriptions` a second per indexer process):
 * counted here by a listener of its own and taken out of the figure.
 *
 * Held: what each stage sends per consumed batch, whatever the number of users in it (one read and
 * one bulk write of facts per resolver batch, the sessions' counters and turns in at most three
 * requests, one Elasticsearch request per indexer batch), and the whole per 1,000 turns within
 * bounds this change reached (the issue's target, 50 and 10, is not reached yet: docs/benchmarks.md).
 * A recall: at most 3 MongoDB requests, and every document it reads one it needs (a candidate the
 * search named, a pinned memory, or one glossing a name, for the user's learned aliases), not the
 * user's history.
 */
jest.setTimeout(600_000);

const TURNS = 600;
const USERS = 6;
const GLOSSING_USER = 'bench-u0';
const deployment = newDeployment('requests');
const config = (): EngramConfig =>
  loadConfig({
    ...distributedEnv(deployment),
    LOG_LEVEL: 'silent',
    ENGRAM_BATCH_SIZE: '100',
    ENGRAM_PROJECTION_POINTER_TTL_MS: '3600000',
  });

/** Until nothing is pending on the read path (polled gently: each look is a few Kafka requests). */
async function drained(app: INestApplication): Promise<void> {
  const progress = app.get(PipelineProgress);
  const deadline = Date.now() + 480_000;
  while ((await progress.pending()) > 0) {
    if (Date.now() > deadline) throw new Error('the pipeline did not catch up within 8 minutes');
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** Batches each stage handled so far (the count of its batch-duration histogram). */
async function batchesPerStage(app: INestApplication): Promise<Record<string, number>> {
  const histogram = await app.get(EngramMetrics).batchDuration.get();
  return Object.fromEntries(histogram.values.filter((v) => v.metricName?.endsWith('_count')).map((v) => [String(v.labels.stage), v.value]));
}

const counted = async (app: INestApplication) =>
  parseStoreRequests(await app.get(EngramMetrics).registry.getSingleMetricAsString('engram_store_requests_total'));

describe('store requests per 1,000 ingested turns (distributed, batch size 100)', () => {
  afterAll(() => destroyDeployment(deployment));

  it('costs each stage its requests per batch, not per user or event, and stays within the bounds reached', async () => {
    const workload = { turns: TURNS, users: USERS, seed: 7, turnsPerRequest: 10 };
    // Every user's first turn, and the pipeline at rest.
    const warm = await startApp(EngramModule.forRoot({ config: config() }), { http: false, stages: true });
    try {
      for (let u = 0; u < USERS; u++) {
        const [first] = [...workloadRequests(workload)].filter((r) => r.userId === `bench-u${u}`);
        await request(warm.getHttpServer())
          .post('/v1/turns')
          .send(turnsBody(first.userId, 'warm-up', [{ turnId: 'warm-up', text: first.turns[0].text }]))
          .expect(202);
      }
      // One user glosses a name in two turns: their learned aliases have memories to be read from.
      await request(warm.getHttpServer())
        .post('/v1/turns')
        .send(
          turnsBody(GLOSSING_USER, 'warm-up', [
            { turnId: 'gloss-1', text: '我们的主库是白鲸（Blackwhale），很稳定' },
            { turnId: 'gloss-2', text: '白鲸（Blackwhale）下周要升级到新版本' },
          ]),
        )
        .expect(202);
      await drained(warm);
    } finally {
      await warm.close();
    }

    // Started without its stages: every start-up request (indexes, templates, topics) is made before counting.
    const app = await startApp(EngramModule.forRoot({ config: config() }), { http: false, stages: false });
    try {
      const before = await counted(app);
      // Per command and collection (`find facts`), to hold each stage to its requests per batch.
      const byCollection = new Map<string, number>();
      app.get<MongoClient>(MONGO_CLIENT).on('commandStarted', (event: CommandStartedEvent) => {
        const key = `${event.commandName} ${String(event.command[event.commandName])}`;
        byCollection.set(key, (byCollection.get(key) ?? 0) + 1);
      });
      const sent = (key: string) => byCollection.get(key) ?? 0;
      for (const body of workloadRequests(workload)) await request(app.getHttpServer()).post('/v1/turns').send(body).expect(202);
      connectStages(app);
      await app.startAllMicroservices();
      await drained(app);
      const after = await counted(app);
      const subscriptionPolls = sent('find webhook_subscriptions');
      const polls = { mongodb: subscriptionPolls, 'mongodb find': subscriptionPolls };
      const perThousand = storeRequestRates(addCounts([before, polls]), after, TURNS, 1000);
      // Printed so a failure (or a run) shows where the requests went.
      console.log(`store requests per 1,000 turns: ${JSON.stringify(perThousand)}`);
      const batches = await batchesPerStage(app);
      console.log(`batches per stage: ${JSON.stringify(batches)}; MongoDB commands: ${JSON.stringify(Object.fromEntries(byCollection))}`);
      expect(batches.resolver).toBeGreaterThan(0);
      expect(batches.sessions).toBeGreaterThan(0);
      expect(batches.indexer).toBeGreaterThan(0);
      // The resolver: every user of a batch in one find, its decisions in one bulk write (a batch
      // delivered again: one more find of the stored revisions, and a bulk write of what is new).
      expect(sent('find facts')).toBeLessThanOrEqual(2 * batches.resolver);
      expect(sent('update facts')).toBeLessThanOrEqual(2 * batches.resolver);
      // The sessions projection: the counters of every user at once (a bulk write and a find), the turns in one insert.
      expect(sent('findAndModify turns_seq') + sent('update turns_seq') + sent('find turns_seq')).toBeLessThanOrEqual(2 * batches.sessions);
      expect(sent('insert turns')).toBeLessThanOrEqual(batches.sessions);
      // The indexer: one bulk request a batch, refreshing what it wrote; nothing else but a rare conflict's look.
      expect(after['elasticsearch POST /{index}/_bulk'] - (before['elasticsearch POST /{index}/_bulk'] ?? 0)).toBeLessThanOrEqual(
        batches.indexer,
      );
      expect(after['elasticsearch POST /{index}/_refresh'] ?? 0).toBe(before['elasticsearch POST /{index}/_refresh'] ?? 0);
      // The whole, per 1,000 turns: counted at all, and within what this design reached (before it:
      // ~228 MongoDB and 65 Elasticsearch in this test; the data keys' cache, read again per user every
      // 3 s while busy, is most of what is left of MongoDB's).
      expect(perThousand.mongodb).toBeGreaterThan(0);
      expect(perThousand.elasticsearch).toBeGreaterThan(0);
      // Kafka's are counted too (no bound of the on them): appends and fetches at least.
      expect(perThousand.operations['kafka Produce']).toBeGreaterThan(0);
      expect(perThousand.operations['kafka Fetch']).toBeGreaterThan(0);
      expect(perThousand.mongodb).toBeLessThanOrEqual(180);
      expect(perThousand.elasticsearch).toBeLessThanOrEqual(45);

      // A recall (no session): the user's memories that gloss a name (their learned aliases), the
      // search, then one read of the candidates and the pinned memories beside one of the
      // candidates' access statistics. Each `find facts` is kept with what it asked for and how many
      // documents it returned.
      const finds = new Map<number, { filter: Document; documents: number }>();
      const client = app.get<MongoClient>(MONGO_CLIENT);
      const started = (event: CommandStartedEvent) => {
        if (event.commandName === 'find' && event.command.find === 'facts')
          finds.set(event.requestId, { filter: event.command.filter as Document, documents: 0 });
      };
      const succeeded = (event: CommandSucceededEvent) => {
        const find = finds.get(event.requestId);
        if (find) find.documents = (event.reply as { cursor?: { firstBatch?: unknown[] } }).cursor?.firstBatch?.length ?? 0;
      };
      client.on('commandStarted', started);
      client.on('commandSucceeded', succeeded);
      const questions = [...workloadQueries(workload, 12), { userId: GLOSSING_USER, query: '白鲸什么时候升级' }];
      const readsBefore = new Map(byCollection);
      const searchesBefore = (await counted(app))['elasticsearch POST /{index}/_search'] ?? 0;
      for (const question of questions) await request(app.getHttpServer()).post('/v1/recall').send(question).expect(200);
      client.off('commandStarted', started);
      client.off('commandSucceeded', succeeded);
      const readsOf = (key: string) => sent(key) - (readsBefore.get(key) ?? 0);
      const searches = ((await counted(app))['elasticsearch POST /{index}/_search'] ?? 0) - searchesBefore;
      const during = [...byCollection].filter(([key]) => key !== 'find webhook_subscriptions' && readsOf(key) > 0);
      console.log(
        `per recall: find facts ${readsOf('find facts') / questions.length}, find access_stats ${readsOf('find access_stats') / questions.length}, ` +
          `find turns ${readsOf('find turns') / questions.length}, Elasticsearch searches ${searches / questions.length}; ` +
          `MongoDB commands during the recalls: ${JSON.stringify(Object.fromEntries(during.map(([key]) => [key, readsOf(key)])))}; ` +
          `facts documents read: ${JSON.stringify([...finds.values()].map((find) => find.documents))}`,
      );
      // At most 3 MongoDB requests a recall: two finds of facts (the glossing memories; the candidates and pinned ones) and one of access statistics.
      expect(readsOf('find facts')).toBeLessThanOrEqual(2 * questions.length);
      expect(readsOf('find facts') + readsOf('find access_stats') + readsOf('find turns')).toBeLessThanOrEqual(3 * questions.length);
      expect(searches).toBeLessThanOrEqual(2 * questions.length);
      // Every document read is one the recall needs: nothing reads a user's history whole.
      const facts = client.db(deployment.database).collection('facts');
      let glossingRead = 0;
      for (const { filter, documents } of finds.values()) {
        const user = { tenantId: filter.tenantId as string, userId: filter.userId as string };
        if (filter._glosses) {
          expect({ filter, documents }).toEqual({ filter, documents: await facts.countDocuments({ ...user, _glosses: true }) });
          if (user.userId === GLOSSING_USER) glossingRead = documents;
          continue;
        }
        // By id (the candidates the search named) and the active pinned memories; nothing else.
        const branches = (filter.$or as Document[] | undefined) ?? [filter];
        const asked = branches.flatMap((branch) => ((branch._id as { $in?: string[] } | undefined)?.$in ?? []) as string[]);
        expect(branches.every((branch) => branch._id !== undefined || (branch.pinned === true && branch.status === 'active'))).toBe(true);
        const pinned = await facts.countDocuments({ ...user, pinned: true, status: 'active' });
        expect(documents).toBeLessThanOrEqual(asked.length + pinned);
      }
      expect(glossingRead).toBeGreaterThanOrEqual(2);
    } finally {
      await app.close();
    }
  });
});
