import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { type EngramConfig, loadConfig } from '@engram/config';
import type { CommandStartedEvent, MongoClient } from 'mongodb';
import { connectStages, EngramMetrics, PipelineProgress, startApp } from '@engram/services';
import { MONGO_CLIENT } from '@engram/services/bindings/bindings';
import { EngramModule } from '../../apps/engram/engram.module';
import { addCounts, parseStoreRequests, storeRequestRates, workloadRequests } from '../../apps/engram/cli/bench';
import { destroyDeployment, distributedEnv, newDeployment } from '../support/distributed-deployment';
import { turnsBody } from '../support/engram-harness';

/**
 * What ingest costs the stores in distributed mode, counted by `engram_store_requests_total`
 * (issue 31 point 3): per 1,000 turns at a batch size of 100, at most 50 MongoDB-protocol requests
 * and 10 Elasticsearch requests. The turns are posted while the stages are not yet consuming, so
 * every stage meets full batches, as it does under load (a pipeline that keeps up with a trickle
 * handles batches of a few events, each paying a batch's requests). The users exist beforehand (a
 * user's first turn creates their data key: once per user, not per turn), and the projection pointers
 * are cached for the whole run (re-read at most once per ENGRAM_PROJECTION_POINTER_TTL_MS while
 * busy: a cost per second, not per turn). Likewise the webhook worker's look at the live
 * subscriptions, once a second whatever the load (one `find` of `webhook_subscriptions` a second
 * per indexer process): counted here by their own listener and taken out of the figure.
 */
jest.setTimeout(600_000);

const TURNS = 600;
const USERS = 6;
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

const counted = async (app: INestApplication) =>
  parseStoreRequests(await app.get(EngramMetrics).registry.getSingleMetricAsString('engram_store_requests_total'));

describe('store requests per 1,000 ingested turns (distributed, batch size 100)', () => {
  afterAll(() => destroyDeployment(deployment));

  it('stays within 50 MongoDB-protocol and 10 Elasticsearch requests', async () => {
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
      await drained(warm);
    } finally {
      await warm.close();
    }

    // Started without its stages: every start-up request (indexes, templates, topics) is made before counting.
    const app = await startApp(EngramModule.forRoot({ config: config() }), { http: false, stages: false });
    try {
      const before = await counted(app);
      let subscriptionPolls = 0;
      app.get<MongoClient>(MONGO_CLIENT).on('commandStarted', (event: CommandStartedEvent) => {
        if (event.commandName === 'find' && event.command.find === 'webhook_subscriptions') subscriptionPolls++;
      });
      for (const body of workloadRequests(workload)) await request(app.getHttpServer()).post('/v1/turns').send(body).expect(202);
      connectStages(app);
      await app.startAllMicroservices();
      await drained(app);
      const after = await counted(app);
      const polls = { mongodb: subscriptionPolls, 'mongodb find': subscriptionPolls };
      const perThousand = storeRequestRates(addCounts([before, polls]), after, TURNS, 1000);
      // Printed so a failure (or a run) shows where the requests went.
      console.log(`store requests per 1,000 turns: ${JSON.stringify(perThousand)}`);
      expect(perThousand.mongodb).toBeGreaterThan(0); // counted at all: the bound below is not met by counting nothing
      expect(perThousand.elasticsearch).toBeGreaterThan(0);
      expect(perThousand.mongodb).toBeLessThanOrEqual(50);
      expect(perThousand.elasticsearch).toBeLessThanOrEqual(10);
    } finally {
      await app.close();
    }
  });
});
