import { deterministicId, MEMORY_STATUSES, MemoryRecord, partitionKey, Topics } from '@engram/contracts';
import { EventLog, FactStore, lag, SearchIndex, SessionStore } from '@engram/ports';
import { DataKeyRing, DEFAULT_TENANT, EventPublisher, openStoredEvent, PipelineProgress, readDeadLetters } from '@engram/services';
import { eventually } from '@engram/testing';
import { EngramHarness, rebuildOffline, startEngram, useEngramMode } from '../support/engram-harness';

/**
 * Mixed-schema replay on Kafka, MongoDB (FerretDB) and Elasticsearch: a turns
 * topic holding TurnRecorded v1 and v2 events (as old and new producers wrote
 * them straight to the log) flows through the distributed pipeline; v1 turns
 * are remembered exactly like the same turns written as v2; a v3 event (newer
 * than this build) is dead-lettered to `<topic>.dlq` with its bytes, and the
 * turns after it on the same partition still flow; a rebuild replays to the
 * same projections. The embedded version is test/e2e/schema-evolution.e2e.spec.ts.
 */
jest.setTimeout(300_000);
useEngramMode('distributed');

const TEXTS = [
  '我叫老周，我们的技术栈是 Spring Boot，数据库用 PostgreSQL',
  'I prefer VS Code for TypeScript work',
  '预算控制在三万以内',
  '嗯嗯',
  'I prefer VS Code for TypeScript work',
  '预算提到五万了',
  'we decided to use Kafka for the event bus',
  '每周三下午两点例会',
  'I prefer Vim for Rust work',
  'the deadline is Friday',
];
const USERS = [0, 1, 2];

/** A turn as a producer of the given schema version writes it straight to the log. */
function turnEvent(version: number, userId: string, turnId: string, text: string, minute: number, extra: Record<string, unknown> = {}) {
  const eventId = deterministicId('turn', DEFAULT_TENANT, userId, turnId);
  const at = new Date(Date.UTC(2026, 10, 30, 8, minute)).toISOString();
  return {
    eventId,
    type: 'TurnRecorded',
    schemaVersion: version,
    tenantId: DEFAULT_TENANT,
    userId,
    occurredAt: at,
    recordedAt: at,
    causationId: null,
    correlationId: eventId,
    payload: { sessionId: 's1', turnId, role: 'user', text, ...extra },
  };
}

/** `mixed-<u>`: v1 and v2 alternating, a v3 in the middle; `modern-<u>`: the same turns, all v2. */
function events(u: number) {
  const mixed = `mixed-${u}`;
  const modern = `modern-${u}`;
  const out: { key: string; value: unknown }[] = [];
  TEXTS.forEach((text, i) => {
    const v1 = (i + u) % 2 === 0;
    out.push({
      key: partitionKey(DEFAULT_TENANT, mixed),
      value: v1 ? turnEvent(1, mixed, `t${i}`, text, i) : turnEvent(2, mixed, `t${i}`, text, i, { channel: 'app' }),
    });
    out.push({ key: partitionKey(DEFAULT_TENANT, modern), value: turnEvent(2, modern, `t${i}`, text, i, { channel: 'app' }) });
    if (i === 4)
      out.push({
        key: partitionKey(DEFAULT_TENANT, mixed),
        value: turnEvent(3, mixed, 'future', 'I prefer Emacs for Lisp work', i, { mood: 'new field' }),
      });
  });
  return out;
}

/** What a memory is, whoever's it is (ids and times differ between users). */
function shape(memory: MemoryRecord) {
  return {
    kind: memory.kind,
    status: memory.status,
    content: memory.content,
    version: memory.version,
    revision: memory.revision,
    mentionCount: memory.mentionCount,
    sourceTurnIds: [...memory.sourceTurnIds].sort(),
  };
}

// A fact and its episode share their content.
const byContent = (a: ReturnType<typeof shape>, b: ReturnType<typeof shape>) =>
  a.content.localeCompare(b.content) || a.kind.localeCompare(b.kind);

describe('mixed-schema replay on Kafka (TurnRecorded v1, v2 and a future v3)', () => {
  let engram: EngramHarness;
  afterAll(async () => engram?.destroy());

  const list = (userId: string) =>
    engram.app.get<FactStore>(FactStore).list({ tenantId: DEFAULT_TENANT, userId, statuses: MEMORY_STATUSES });

  async function settle(): Promise<void> {
    const progress = engram.app.get(PipelineProgress);
    const log = engram.app.get<EventLog>(EventLog);
    const screened = engram.app.get(EventPublisher).topic(Topics.screened);
    await eventually(
      async () =>
        (await progress.pending()) === 0 && lag(await log.endPosition(screened), await log.committedPosition(screened, 'sessions')) === 0,
      'the pipeline to settle',
      120_000,
    );
  }

  /** Every projection's content for the test users, through the ports. */
  async function snapshot() {
    const result: Record<string, unknown> = {};
    for (const u of USERS) {
      for (const userId of [`mixed-${u}`, `modern-${u}`]) {
        const memories = await list(userId);
        result[userId] = {
          memories,
          sessions: await engram.app.get<SessionStore>(SessionStore).recent(DEFAULT_TENANT, userId, 's1', 1000),
          search: [
            ...(
              await engram.app.get<SearchIndex>(SearchIndex).revisions(
                DEFAULT_TENANT,
                userId,
                memories.map((m) => m.memoryId),
              )
            ).entries(),
          ].sort(),
        };
      }
    }
    return result;
  }

  it('v1 turns are remembered like v2 ones, the v3 is dead-lettered without blocking, and a rebuild replays to the same projections', async () => {
    engram = await startEngram({ env: { ENGRAM_FORGETTING_INTERVAL_MS: '0' } });
    const log = engram.app.get<EventLog>(EventLog);
    const turnsTopic = engram.app.get(EventPublisher).topic(Topics.turns);
    for (const u of USERS) await log.append(turnsTopic, events(u));
    await settle();

    for (const u of USERS) {
      const mixed = (await list(`mixed-${u}`)).map(shape).sort(byContent);
      const modern = (await list(`modern-${u}`)).map(shape).sort(byContent);
      expect(mixed.length).toBeGreaterThan(3);
      expect({ u, memories: mixed }).toEqual({ u, memories: modern });
      // Every v1 and v2 turn is in the session once, the turns after the v3 included; the v3 is not.
      const turnIds = (await engram.app.get<SessionStore>(SessionStore).recent(DEFAULT_TENANT, `mixed-${u}`, 's1', 1000)).map(
        (t) => t.turnId,
      );
      expect(turnIds).toEqual(TEXTS.map((_, i) => `t${i}`));
    }
    // Reinforcement and supersession happened across versions.
    const first = await list('mixed-0');
    expect(first.some((m) => m.mentionCount > 1)).toBe(true);
    expect(first.some((m) => m.version > 1)).toBe(true);

    // The v3 events: dead-lettered by the filter, one each, with their original bytes.
    const letters = await readDeadLetters(log, turnsTopic);
    expect(letters).toHaveLength(USERS.length);
    for (const letter of letters) {
      expect(letter).toMatchObject({ reason: 'invalid', stage: 'filter', topic: turnsTopic });
      expect(letter.error).toContain('schemaVersion 3');
      // The bytes as stored: sealed (docs/security.md), opened with the user's key.
      expect(await openStoredEvent(engram.app.get(DataKeyRing), JSON.parse(letter.raw))).toMatchObject({
        schemaVersion: 3,
        payload: { turnId: 'future', mood: 'new field' },
      });
    }

    // Replay: rebuild every projection from the log, restart, and find the same state.
    const before = await snapshot();
    await engram.stop();
    expect(await rebuildOffline(engram.dataDir)).toBeGreaterThan(0);
    engram = await startEngram({ dataDir: engram.dataDir, env: { ENGRAM_FORGETTING_INTERVAL_MS: '0' } });
    await settle();
    expect(await snapshot()).toEqual(before);
    // The rebuild re-ran no stage: the v3 events were not dead-lettered a second time.
    expect(await readDeadLetters(engram.app.get<EventLog>(EventLog), turnsTopic)).toHaveLength(USERS.length);
  });
});
