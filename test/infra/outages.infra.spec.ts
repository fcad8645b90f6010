import * as fs from 'node:fs';
import * as path from 'node:path';
import { SessionStore } from '@engram/ports';
import { DEFAULT_TENANT } from '@engram/services';
import { eventually } from '@engram/testing';
import { infra } from '../support/distributed-deployment';
import { EngramHarness, startEngram, turnsBody } from '../support/engram-harness';
import { TcpProxy } from '../support/tcp-proxy';

/**
 * Graceful under any single outage, on the real servers: with turns flowing in, Elasticsearch, the
 * MongoDB-protocol server and Kafka each go away for a while and come back, one at a time.
 *
 * engram reaches Elasticsearch and FerretDB through a TCP proxy (test/support/tcp-proxy.ts) that the
 * test cuts or freezes: the outage is engram's alone, the shared servers keep running. Kafka cannot be
 * cut that way: a client reaches a broker at the address the broker advertises (127.0.0.1:9092),
 * not through the proxy it bootstrapped from. Kafka's outage is therefore the broker itself
 * stopped (SIGSTOP, a hung server: connections stay open and nothing answers) and continued
 * (SIGCONT): the broker of deploy/local/kafka.sh, by its pid file, for a few seconds.
 *
 * Each outage asserts what the issue asks: recall answers what it can (degraded) or 503 with
 * Retry-After naming the server — never a hang or a bare 500; `/v1/pipeline/status` and
 * `/health/ready` answer and say what is down and what is pending; the stages resume by
 * themselves; and at the end nothing acknowledged is lost or applied twice, nothing was
 * dead-lettered.
 */
jest.setTimeout(240_000);

const OUTAGE_MS = 12_000;
/** Longest any request may take during an outage: every store call is bounded (the settings below). */
const BOUNDED_MS = 10_000;

type Phase = 'none' | 'elasticsearch' | 'mongodb' | 'kafka';

/** One turn, one user: each acknowledged turn must end up as exactly one session turn and memories said once. */
interface Said {
  readonly userId: string;
  readonly turnId: string;
  readonly project: string;
}

describe('outages of the distributed servers, under load', () => {
  let es: TcpProxy;
  let mongo: TcpProxy;
  let engram: EngramHarness;
  const acknowledged: Said[] = [];
  /** Which outage is on ('none' between them): what each turn's answer is held to. */
  let phase = 'none' as Phase;
  const refused: { phase: Phase; status: number; retryAfter?: string; message: string }[] = [];
  /** The slowest answer to a turn, per outage. */
  const slowest = new Map<Phase, number>();
  let loading = true;
  let load: Promise<void> = Promise.resolve();

  beforeAll(async () => {
    es = await TcpProxy.start(new URL(infra.elasticsearchUrl).host);
    mongo = await TcpProxy.start(new URL(infra.mongodbUri).host);
    engram = await startEngram({
      mode: 'distributed',
      env: {
        ELASTICSEARCH_URL: `http://${es.address}`,
        MONGODB_URI: `mongodb://${mongo.address}/`,
        // Short bounds, so that an outage shows within the test's seconds.
        ELASTICSEARCH_REQUEST_TIMEOUT_MS: '1500',
        MONGODB_SERVER_SELECTION_TIMEOUT_MS: '2000',
        MONGODB_SOCKET_TIMEOUT_MS: '3000',
        KAFKA_REQUEST_TIMEOUT_MS: '2000',
        ENGRAM_STATUS_TIMEOUT_MS: '2000',
        ENGRAM_DEPENDENCY_RECHECK_MS: '1000',
        ENGRAM_STAGE_PAUSE_MS: '200',
        ENGRAM_STAGE_PAUSE_MAX_MS: '2000',
        // What went wrong, if anything does: a batch retried, a consumer replaced, an unexpected 500.
        LOG_LEVEL: process.env.ENGRAM_TEST_LOG_LEVEL ?? 'warn',
      },
    });
    load = keepSaying();
  });

  afterAll(async () => {
    loading = false;
    await load.catch(() => undefined);
    await engram?.destroy();
    await es?.close();
    await mongo?.close();
  });

  /** Turns, one at a time, until told to stop: acknowledged (202) or refused (noted, never a bare 500). */
  async function keepSaying(): Promise<void> {
    for (let i = 0; loading; i++) {
      const said: Said = { userId: `load-${i}`, turnId: `t-${i}`, project: `p${i}x` };
      const during = phase;
      const started = Date.now();
      const response = await engram
        .http()
        .post('/v1/turns')
        .timeout(60_000)
        .send(turnsBody(said.userId, 's1', [{ turnId: said.turnId, text: `I prefer Vim for Rust work in project ${said.project}` }]))
        .catch((error: unknown) => ({ status: 0, headers: {} as Record<string, string>, body: { message: [String(error)] } }));
      slowest.set(during, Math.max(slowest.get(during) ?? 0, Date.now() - started));
      if (response.status === 202) acknowledged.push(said);
      else
        refused.push({
          phase: during,
          status: response.status,
          retryAfter: response.headers['retry-after'],
          message: JSON.stringify(response.body),
        });
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }

  async function timed<T>(call: () => Promise<T>): Promise<{ result: T; ms: number }> {
    const started = Date.now();
    const result = await call();
    return { result, ms: Date.now() - started };
  }

  const status = () => engram.http().get('/v1/pipeline/status').timeout(30_000);
  const ready = () => engram.http().get('/health/ready').timeout(30_000);
  const recall = (userId: string, sessionId?: string) =>
    engram
      .http()
      .post('/v1/recall')
      .timeout(30_000)
      .send({ userId, query: 'which editor for Rust', ...(sessionId ? { sessionId } : {}) });

  /** Every stage caught up, nothing down, nothing paused, nothing dead-lettered: recovered without a restart. */
  async function recovered(label: string): Promise<void> {
    phase = 'none';
    let seen = '';
    await eventually(
      async () => {
        const [{ status: code, body }, readiness] = await Promise.all([status(), ready()]);
        seen = JSON.stringify({ code, body, readiness: readiness.body });
        return (
          code === 200 &&
          body.pending === 0 &&
          body.down.length === 0 &&
          body.deadLetters === 0 &&
          readiness.status === 200 &&
          readiness.body.status === 'ready' &&
          readiness.body.paused.length === 0
        );
      },
      `every stage to resume and catch up after ${label}, and readiness to say ready`,
      90_000,
    ).catch((error: unknown) => {
      throw new Error(`${String(error)}; last seen: ${seen}`);
    });
  }

  it('is ready, with turns flowing in', async () => {
    await eventually(() => acknowledged.length >= 10, 'the first turns', 30_000);
    await recovered('start');
    // The first user's turn is recallable from the index.
    const { body } = await recall(acknowledged[0].userId).expect(200);
    expect(JSON.stringify(body.memories)).toContain(acknowledged[0].project);
    expect(body.degraded).toBeUndefined();
  });

  it('Elasticsearch hangs: recall answers from the session (degraded) or 503 naming it, the indexer pauses, status says so', async () => {
    const before = acknowledged.length;
    phase = 'elasticsearch';
    const outageStarted = Date.now();
    es.freeze();
    try {
      // A user whose session holds a turn (projected before: the read side had caught up): answered without the index.
      const withSession = acknowledged[0];
      const { result: answer, ms } = await timed(() => recall(withSession.userId, 's1'));
      expect(ms).toBeLessThan(BOUNDED_MS);
      expect(answer.status).toBe(200);
      expect(answer.body.degraded).toEqual(['elasticsearch']);
      expect(answer.body.memories).toEqual([]);
      expect(JSON.stringify(answer.body.recent)).toContain(withSession.project);
      // A user with nothing pinned and no session: nothing to answer with — 503 naming it, with Retry-After.
      const nothing = await recall('nobody-yet');
      expect(nothing.status).toBe(503);
      expect(nothing.headers['retry-after']).toBe('1');
      expect(nothing.body.message.join(' ')).toContain('Elasticsearch');

      await eventually(
        async () => {
          const { body } = await status().expect(200);
          const paused = (body.stages as { group: string; pausedOn?: string }[]).filter((s) => s.pausedOn === 'elasticsearch');
          return body.down.includes('elasticsearch') && paused.length > 0 && body.pending > 0;
        },
        'status: elasticsearch down, a stage paused on it, events pending',
        OUTAGE_MS,
      );
      const { body: readiness } = await ready().expect(200);
      expect(readiness).toMatchObject({ status: 'degraded', down: ['elasticsearch'] });
      expect(readiness.deadLetters).toBe(0);
      expect(slowest.get('elasticsearch') ?? 0).toBeLessThan(BOUNDED_MS); // ingest does not wait for the index
      await until(outageStarted + OUTAGE_MS);
      expect(acknowledged.length).toBeGreaterThan(before); // ingest went on
    } finally {
      await es.restore();
    }
    await recovered('Elasticsearch');
  });

  it('the MongoDB-protocol server goes away, then hangs: recall and ingest 503 naming it in bounded time, status and readiness answer and say so', async () => {
    phase = 'mongodb';
    const outageStarted = Date.now();
    await mongo.cut();
    try {
      const someone = acknowledged[acknowledged.length - 1];
      const { result: answer, ms } = await timed(() => recall(someone.userId, 's1'));
      expect(ms).toBeLessThan(BOUNDED_MS);
      expect(answer.status).toBe(503);
      expect(answer.headers['retry-after']).toBe('1');
      expect(answer.body.message.join(' ')).toContain('MongoDB');

      // The log is read as ever (its version was read at start): pending is known, and the server is named down.
      await eventually(
        async () => {
          const { body } = await status().expect(200);
          return body.down.includes('mongodb') && Number.isInteger(body.pending);
        },
        'status: mongodb down',
        OUTAGE_MS,
      );
      const { result: readiness, ms: readyMs } = await timed(() => ready());
      expect(readyMs).toBeLessThan(BOUNDED_MS);
      expect(readiness.status).toBe(200);
      expect(readiness.body).toMatchObject({ status: 'degraded', deadLetters: 0 });
      expect(readiness.body.down).toContain('mongodb');
      await until(outageStarted + OUTAGE_MS);
      // A new user's turn needs a data key, kept in the MongoDB-protocol server (crypto-shredding): refused, naming it.
      const turns = refused.filter((r) => r.phase === 'mongodb');
      expect(turns.length).toBeGreaterThan(0);
      for (const turn of turns)
        expect([turn.status, turn.retryAfter, turn.message]).toEqual([503, '1', expect.stringContaining('MongoDB')]);

      // Then it hangs (connections accepted, nothing answered), as the server did for 11 minutes: still bounded.
      await mongo.restore();
      mongo.freeze();
      const hungSince = Date.now();
      const { result: hung, ms: hungMs } = await timed(() => recall(someone.userId, 's1'));
      expect(hungMs).toBeLessThan(BOUNDED_MS);
      expect([hung.status, hung.headers['retry-after']]).toEqual([503, '1']);
      expect(hung.body.message.join(' ')).toContain('MongoDB');
      await until(hungSince + BOUNDED_MS);
      for (const turn of refused.filter((r) => r.phase === 'mongodb')) expect(turn.status).toBe(503);
      expect(slowest.get('mongodb') ?? 0).toBeLessThan(BOUNDED_MS); // no turn held past the bounds either
    } finally {
      await mongo.restore();
    }
    await recovered('MongoDB');
  });

  it('Kafka hangs: status and readiness answer 503 naming it in bounded time, recall still answers', async () => {
    const broker = kafkaBrokerPid();
    phase = 'kafka';
    process.kill(broker, 'SIGSTOP');
    const outageStarted = Date.now();
    try {
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      const { result: answer, ms } = await timed(() => status());
      expect(ms).toBeLessThan(BOUNDED_MS);
      expect(answer.status).toBe(503);
      expect(answer.headers['retry-after']).toBe('1');
      expect(answer.body.message.join(' ')).toContain('Kafka');

      const { result: readiness, ms: readyMs } = await timed(() => ready());
      expect(readyMs).toBeLessThan(BOUNDED_MS);
      expect(readiness.status).toBe(503);
      expect(readiness.body).toMatchObject({ status: 'unavailable' });
      expect(readiness.body.down).toContain('kafka');

      // Recall reads the stores, not the log: it answers as ever.
      const someone = acknowledged[0];
      const { result: recalled, ms: recallMs } = await timed(() => recall(someone.userId));
      expect(recallMs).toBeLessThan(BOUNDED_MS);
      expect(recalled.status).toBe(200);
      expect(JSON.stringify(recalled.body.memories)).toContain(someone.project);
      await until(outageStarted + OUTAGE_MS);
    } finally {
      process.kill(broker, 'SIGCONT');
    }
    await recovered('Kafka');
    // A turn sent while the broker hung waited at most for kafkajs's bounded retries of KAFKA_REQUEST_TIMEOUT_MS (or the broker's return).
    for (const refusal of refused.filter((r) => r.phase === 'kafka')) {
      expect([refusal.status, refusal.retryAfter, refusal.message]).toEqual([503, '1', expect.stringContaining('Kafka')]);
    }
    expect(slowest.get('kafka') ?? 0).toBeLessThan(OUTAGE_MS + 15_000);
  });

  it('nothing acknowledged was lost or applied twice, nothing was dead-lettered, and refusals named the server', async () => {
    loading = false;
    await load;
    await recovered('the load');
    expect(acknowledged.length).toBeGreaterThan(30);
    for (const refusal of refused) {
      // A refused turn was told to come back (503 + Retry-After, or 429 backpressure): never a bare 500, never a hang.
      expect([refusal.status, refusal.retryAfter !== undefined]).toEqual([expect.any(Number), true]);
      expect([503, 429]).toContain(refusal.status);
    }
    const sessions = engram.app.get<SessionStore>(SessionStore);
    for (const said of acknowledged) {
      // Exactly one session turn: none lost, none written twice.
      expect([said.userId, await sessions.countUser(DEFAULT_TENANT, said.userId)]).toEqual([said.userId, 1]);
      // Memories from one turn said once: none reinforced by a replayed event.
      const { body } = await engram.http().get(`/v1/users/${said.userId}/memories`).expect(200);
      const memories = body.memories as { mentionCount: number; content: string }[];
      expect([said.userId, memories.length > 0]).toEqual([said.userId, true]);
      for (const memory of memories) expect([said.userId, memory.mentionCount]).toEqual([said.userId, 1]);
      // And searchable: the index holds it.
      const recalled = await recall(said.userId).expect(200);
      expect([said.userId, JSON.stringify(recalled.body.memories).includes(said.project)]).toEqual([said.userId, true]);
    }
  });
});

/** Waits until the wall-clock time `at` (an outage's end). */
function until(at: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, at - Date.now())));
}

/** The pid of the Kafka broker deploy/local/kafka.sh started (its pid file), checked to be that broker. */
function kafkaBrokerPid(): number {
  const cache = process.env.ENGRAM_INFRA_CACHE ?? path.resolve(__dirname, '../../.cache/infra');
  const file = path.join(cache, 'run/kafka/kafka.pid');
  if (!fs.existsSync(file))
    throw new Error(`no Kafka pid file at ${file}: start the servers with deploy/local/infra.sh up (same ENGRAM_INFRA_CACHE)`);
  const pid = Number(fs.readFileSync(file, 'utf8').trim());
  const command = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  if (!command.includes('kafka')) throw new Error(`pid ${pid} of ${file} is not a Kafka broker`);
  return pid;
}
