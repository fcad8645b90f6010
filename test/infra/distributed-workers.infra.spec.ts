import type { INestApplication } from '@nestjs/common';
import { AssignerProtocol, Kafka, logLevel } from 'kafkajs';
import request from 'supertest';
import { EngramConfig, loadConfig } from '@engram/config';
import { STAGES, Topics } from '@engram/contracts';
import { EventLog, lag, SessionStore } from '@engram/ports';
import { DEFAULT_TENANT, EventPublisher, PipelineProgress, startApp } from '@engram/services';
import { eventually } from '@engram/testing';
import { ExtractorAppModule } from '../../apps/extractor/extractor.module';
import { FilterAppModule } from '../../apps/filter/filter.module';
import { GatewayAppModule } from '../../apps/gateway/gateway.module';
import { IndexerAppModule } from '../../apps/indexer/indexer.module';
import { RecallAppModule } from '../../apps/recall/recall.module';
import { ResolverAppModule } from '../../apps/resolver/resolver.module';
import { destroyDeployment, distributedEnv, infra, newDeployment, readTopic } from '../support/distributed-deployment';
import { turnsBody } from '../support/engram-harness';

/**
 * Distributed only: each stage as its own Nest application (as its own
 * process would be), configured by environment alone, sharing Kafka consumer
 * groups. Two filter workers split the turns topic's partitions; stopping and
 * restarting workers loses nothing and applies nothing twice.
 */
jest.setTimeout(240_000);

const deployment = newDeployment('workers');
const config = (): EngramConfig => loadConfig({ ...distributedEnv(deployment), LOG_LEVEL: 'silent', ENGRAM_AFTER_TIMEOUT_MS: '60000' });

const running = new Set<INestApplication>();
async function start(module: object, stages = true): Promise<INestApplication> {
  const app = await startApp(module, { http: false, stages });
  running.add(app);
  return app;
}
async function stop(app: INestApplication): Promise<void> {
  running.delete(app);
  await app.close();
}

const TOOLS = ['VS Code', 'Vim', 'Emacs', 'IntelliJ', 'Neovim', 'Sublime Text', 'Zed', 'Helix'];
const LANGUAGES = ['TypeScript', 'Rust', 'Go', 'Python', 'Kotlin'];

/** A round of new users, each saying one preference once (so no memory is legitimately reinforced). */
function round(name: string, users: number) {
  return Array.from({ length: users }, (_, u) => ({
    userId: `${name}-${u}`,
    turnId: `${name}-${u}`,
    text: `I prefer ${TOOLS[(u + name.length) % TOOLS.length]} for ${LANGUAGES[u % LANGUAGES.length]} work in project ${name}`,
  }));
}

describe('distributed workers (Kafka consumer groups)', () => {
  let gateway: INestApplication;
  let log: EventLog;
  let turnsTopic: string;
  /** Started by the second test, used by the third. */
  let recallApp: INestApplication;
  const posted: { userId: string; turnId: string }[] = [];

  beforeAll(async () => {
    gateway = await start(GatewayAppModule.forRoot(config()), false);
    log = gateway.get<EventLog>(EventLog);
    turnsTopic = gateway.get(EventPublisher).topic(Topics.turns);
  });

  afterAll(async () => {
    await Promise.allSettled([...running].map((app) => stop(app)));
    await destroyDeployment(deployment);
  });

  async function ingest(turns: { userId: string; turnId: string; text: string }[]): Promise<void> {
    for (const turn of turns) {
      await request(gateway.getHttpServer())
        .post('/v1/turns')
        .send(turnsBody(turn.userId, 's1', [{ turnId: turn.turnId, text: turn.text }]))
        .expect(202);
      posted.push(turn);
    }
  }

  async function filterCaughtUp(): Promise<boolean> {
    return lag(await log.endPosition(turnsTopic), await log.committedPosition(turnsTopic, 'filter')) === 0;
  }

  /** Every posted turn appears on the screened topic exactly once. */
  async function expectEachTurnScreenedOnce(): Promise<void> {
    const screened = await readTopic(deployment, gateway.get(EventPublisher).topic(Topics.screened));
    const counts = new Map<string, number>();
    for (const message of screened) {
      const event = message.value as { type: string; userId: string; payload: { turnId: string } };
      if (event.type !== 'TurnScreened') continue;
      const key = `${event.userId}/${event.payload.turnId}`;
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    expect(counts.size).toBe(posted.length);
    for (const { userId, turnId } of posted)
      expect([`${userId}/${turnId}`, counts.get(`${userId}/${turnId}`)]).toEqual([`${userId}/${turnId}`, 1]);
  }

  /** Partitions of the turns topic each member of the filter group owns. */
  const filterAssignments = () => assignments('filter', turnsTopic);

  /** Partitions of `topic` each member of the stage's group owns. */
  async function assignments(stageGroup: string, topic: string): Promise<number[][]> {
    const admin = new Kafka({
      clientId: 'engram-infra-test-admin',
      brokers: infra.kafkaBrokers.split(','),
      logLevel: logLevel.NOTHING,
    }).admin();
    await admin.connect();
    try {
      const {
        groups: [group],
      } = await admin.describeGroups([`${deployment.topicPrefix}${stageGroup}`]);
      return group.members.map((member) => {
        const assignment = AssignerProtocol.MemberAssignment.decode(member.memberAssignment);
        return [...(assignment?.assignment[topic] ?? [])].sort();
      });
    } finally {
      await admin.disconnect();
    }
  }

  it('two filter workers in one group split the partitions, and every turn is screened exactly once', async () => {
    await start(FilterAppModule.forRoot(config()));
    await start(FilterAppModule.forRoot(config()));
    // The first member learns of the second at its next heartbeat; the group then settles on two members.
    await eventually(
      async () => (await filterAssignments()).filter((a) => a.length > 0).length === 2,
      'two filter members with partitions',
      30_000,
    );
    const assignments = await filterAssignments();
    expect(assignments.flat().sort()).toEqual([0, 1, 2]);

    await ingest(round('alpha', 30));
    await eventually(filterCaughtUp, 'the filter group to catch up', 60_000);
    await expectEachTurnScreenedOnce();
    // Keys spread over every partition, so both workers had turns to screen.
    const partitions = new Set((await readTopic(deployment, turnsTopic)).map((m) => m.partition));
    expect(partitions.size).toBe(3);
  });

  it('workers stopped and restarted resume from their committed offsets: nothing lost, nothing applied twice', async () => {
    const [filterA, filterB] = [...running].filter((app) => app !== gateway);
    await start(ExtractorAppModule.forRoot(config()));
    await start(ResolverAppModule.forRoot(config()));
    await start(IndexerAppModule.forRoot(config()));
    const recall = (recallApp = await start(RecallAppModule.forRoot(config()), false));

    // Stop worker A while turns are still flowing in: B takes over A's partitions from A's commits.
    const inFlight = ingest(round('beta', 30));
    await eventually(() => posted.length >= 45, 'some of round beta', 30_000);
    await stop(filterA);
    await inFlight;
    // A restarted (a new process) rejoins; then B goes down and comes back too.
    await start(FilterAppModule.forRoot(config()));
    await ingest(round('gamma', 30));
    await stop(filterB);
    await ingest(round('delta', 30));
    await start(FilterAppModule.forRoot(config()));
    await ingest(round('epsilon', 10));

    const progress = recall.get(PipelineProgress);
    await eventually(async () => (await progress.pending()) === 0, 'every stage to catch up', 120_000);
    await expectEachTurnScreenedOnce();

    // Every memory came from one turn said once: none was reinforced by a replayed event.
    const http = () => request(recall.getHttpServer());
    let memories = 0;
    for (const { userId } of posted) {
      const { body } = await http().get(`/v1/users/${userId}/memories`).expect(200);
      for (const memory of body.memories as { mentionCount: number; sourceTurnIds: string[] }[]) {
        expect({ memory: memory.sourceTurnIds, mentionCount: memory.mentionCount }).toEqual({
          memory: memory.sourceTurnIds,
          mentionCount: 1,
        });
        memories++;
      }
    }
    expect(memories).toBeGreaterThanOrEqual(posted.length * 0.9);

    // And the last turns are recallable.
    const { body } = await http()
      .post('/v1/recall')
      .send({ userId: 'epsilon-3', query: 'which editor for project epsilon', sessionId: 's1' })
      .expect(200);
    expect(JSON.stringify(body)).toContain('epsilon');
  });

  it('two instances of every stage: each group splits its partitions, and every event is applied once in effect', async () => {
    // Two filters run already (the test above); a second extractor, resolver and indexer (which also holds the sessions group) join.
    await start(ExtractorAppModule.forRoot(config()));
    await start(ResolverAppModule.forRoot(config()));
    await start(IndexerAppModule.forRoot(config()));
    const publisher = gateway.get(EventPublisher);
    const groups = Object.values(STAGES).filter((stage) => stage.readPath);
    expect(groups.map((stage) => stage.group)).toEqual(['filter', 'extractor', 'sessions', 'resolver', 'indexer']);
    for (const stage of groups) {
      const topic = publisher.topic(stage.input);
      await eventually(
        async () => (await assignments(stage.group, topic)).filter((a) => a.length > 0).length === 2,
        `two members of the ${stage.group} group with partitions`,
        60_000,
      );
      // Split, not shared: every partition owned by exactly one member.
      expect([stage.group, (await assignments(stage.group, topic)).flat().sort()]).toEqual([stage.group, [0, 1, 2]]);
    }

    await ingest(round('zeta', 40));
    const recall = recallApp;
    const progress = recall.get(PipelineProgress);
    await eventually(async () => (await progress.pending()) === 0, 'every stage to catch up', 120_000);
    await expectEachTurnScreenedOnce();

    const http = () => request(recall.getHttpServer());
    const sessions = recall.get<SessionStore>(SessionStore);
    for (const { userId } of posted.filter((turn) => turn.userId.startsWith('zeta-'))) {
      // One turn, one session turn; its memories said once: nothing applied twice by the two instances.
      expect([userId, await sessions.countUser(DEFAULT_TENANT, userId)]).toEqual([userId, 1]);
      const { body } = await http().get(`/v1/users/${userId}/memories`).expect(200);
      const memories = body.memories as { mentionCount: number }[];
      expect([userId, memories.length > 0]).toEqual([userId, true]);
      for (const memory of memories) expect([userId, memory.mentionCount]).toEqual([userId, 1]);
    }
    const { body } = await http().post('/v1/recall').send({ userId: 'zeta-7', query: 'which editor for project zeta' }).expect(200);
    expect(JSON.stringify(body.memories)).toContain('zeta');
  });
});
