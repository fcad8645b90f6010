import { type EngramHarness, type TestClock, turnsBody } from './engram-harness';

export const DAY = 86_400_000;

/** A user's turn, or another role's. */
export type Said = string | { readonly role: 'user' | 'assistant'; readonly text: string };

/** What recall is asked in these tests. */
export interface RecallAsked {
  readonly userId: string;
  readonly query: string;
  /** The position of the last ingest the answer must see. */
  readonly after: string;
  readonly sessionId?: string;
  readonly debug?: boolean;
}

/**
 * Sessions days apart, through the HTTP API of an embedded engram whose clock the test moves: issue
 * 30's reproductions are written so ("on Monday…, on Wednesday in a new session…, other sessions in
 * between"). Turn ids are unique across the users of one engram.
 */
export class DaysApart {
  private turnNo = 0;

  constructor(
    private readonly engram: EngramHarness,
    private readonly clock: TestClock,
  ) {}

  /** The turns of one session at the clock's time, a minute apart (one request), then the clock moves on `days`. */
  async session(userId: string, sessionId: string, said: readonly Said[], days = 0): Promise<{ position: string; turnIds: string[] }> {
    const turns = said.map((turn, index) => {
      this.turnNo += 1;
      const { role, text } = typeof turn === 'string' ? { role: 'user' as const, text: turn } : turn;
      return { turnId: `t${this.turnNo}`, role, text, occurredAt: new Date(this.clock.now().getTime() + index * 60_000).toISOString() };
    });
    const response = await this.engram
      .http()
      .post('/v1/turns')
      .send(turnsBody(userId, sessionId, turns))
      .expect(202);
    this.later(days * DAY);
    return { position: response.body.position as string, turnIds: turns.map((t) => t.turnId) };
  }

  /** `session`, when only the position of its ingest matters. */
  async say(userId: string, sessionId: string, said: readonly Said[], days = 0): Promise<string> {
    return (await this.session(userId, sessionId, said, days)).position;
  }

  /** The clock moves on. */
  later(ms: number): void {
    this.clock.set(new Date(this.clock.now().getTime() + ms));
  }

  async recall<T>(asked: RecallAsked): Promise<T> {
    const { sessionId, debug, ...rest } = asked;
    const body = { ...rest, ...(sessionId ? { sessionId } : {}), ...(debug ? { debug } : {}) };
    return (await this.engram.http().post('/v1/recall').send(body).expect(200)).body as T;
  }

  /** The user's memories but episodes: the active ones, or all with their history. */
  async memories<T extends { kind: string }>(userId: string, status: 'active' | 'all' = 'active'): Promise<T[]> {
    const query = status === 'all' ? '?status=all' : '';
    const all = (await this.engram.http().get(`/v1/users/${userId}/memories${query}`).expect(200)).body.memories as T[];
    return all.filter((m) => m.kind !== 'episode');
  }
}

/**
 * One session in which `userId` said `statement` among `smallTalk` (after its first line), a day
 * apart each: the memory a question must find, with others beside it that it must not be.
 */
export async function saidAmong(
  engram: EngramHarness,
  userId: string,
  statement: string,
  smallTalk: readonly string[],
): Promise<{ userId: string; after: string }> {
  const texts = [smallTalk[0], statement, ...smallTalk.slice(1)];
  const turns = texts.map((text, i) => ({ turnId: `t${i + 1}`, text, occurredAt: `2026-11-2${i}T08:00:00Z` }));
  const response = await engram
    .http()
    .post('/v1/turns')
    .send(turnsBody(userId, 's1', turns))
    .expect(202);
  return { userId, after: response.body.position as string };
}

/** The contents of the memories recall ranks for `query`, best first. */
export async function recalledContents(engram: EngramHarness, said: { userId: string; after: string }, query: string): Promise<string[]> {
  const response = await engram.http().post('/v1/recall').send({ userId: said.userId, query, after: said.after }).expect(200);
  return (response.body.memories as { content: string }[]).map((m) => m.content);
}
