import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { EngramHarness, EngramMode, engramMode, rebuildOffline, startEngram, turnsBody, useEngramMode } from '../engram-harness';

/**
 * The HTTP API end to end on the real all-in-one server: every stage runs.
 * Embedded, every store is the SQLite file under a temporary data directory;
 * distributed, the stores are Kafka topics, a MongoDB database and
 * Elasticsearch indices named for the test. The same assertions for both:
 * test/e2e runs this embedded, test/infra distributed.
 */
export function httpApiSuite(mode?: EngramMode): void {
  useEngramMode(mode);

  describe(`engram HTTP API (${engramMode()})`, () => {
    let engram: EngramHarness;

    beforeEach(async () => {
      engram = await startEngram({ env: { ENGRAM_BODY_LIMIT_BYTES: '65536', ENGRAM_MAX_TEXT_LENGTH: '2000' } });
    });
    afterEach(async () => engram.destroy());

    async function ingest(userId: string, sessionId: string, turns: Parameters<typeof turnsBody>[2]) {
      const response = await engram
        .http()
        .post('/v1/turns')
        .send(turnsBody(userId, sessionId, turns))
        .expect(202);
      return response.body as { accepted: number; position: string };
    }

    async function recall(body: Record<string, unknown>) {
      const response = await engram.http().post('/v1/recall').send(body).expect(200);
      return response.body as {
        facts: { id: string; content: string; value: string; sourceTurnIds: string[] }[];
        memories: {
          id: string;
          kind: string;
          content: string;
          score: number;
          sourceTurnIds: string[];
          components?: Record<string, number>;
        }[];
        recent: { turnId: string; text: string }[];
        context: string;
        consistent: boolean;
      };
    }

    const everything = (r: Awaited<ReturnType<typeof recall>>) => [...r.facts, ...r.memories];

    it('GET /health answers once ready', async () => {
      await engram.http().get('/health').expect(200, { status: 'ok', mode: engram.mode });
    });

    it('serves its OpenAPI document at /docs, identical to docs/openapi.json', async () => {
      const served = await engram.http().get('/docs-json').expect(200);
      const committed = JSON.parse(readFileSync(join(__dirname, '../../../docs/openapi.json'), 'utf8'));
      // If this fails after an API change, regenerate with `npm run openapi`.
      expect(served.body).toEqual(committed);
      await engram.http().get('/docs').expect(200);
    });

    it('remembers what was said, in Chinese and English, with the source turn ids', async () => {
      const { position } = await ingest('laozhou', 's1', [
        { turnId: 't1', text: '我叫老周，我们的技术栈是 Spring Boot，数据库用 PostgreSQL' },
        { turnId: 't2', text: 'I prefer VS Code for TypeScript work' },
      ]);

      const database = await recall({ userId: 'laozhou', query: '数据库用什么', after: position });
      expect(database.consistent).toBe(true);
      const postgres = everything(database).find((m) => m.content.includes('PostgreSQL'));
      expect(postgres).toBeDefined();
      expect(postgres!.sourceTurnIds).toEqual(['t1']);

      const editor = await recall({ userId: 'laozhou', query: 'which editor does he like' });
      const vscode = everything(editor).find((m) => m.content.includes('VS Code'));
      expect(vscode).toBeDefined();
      expect(vscode!.sourceTurnIds).toEqual(['t2']);
      expect(editor.context).toContain('VS Code');
    });

    it('keeps every turn that says anything, with its speaker, and finds a short answer by the question it answers', async () => {
      const { position } = await ingest('pair', 's1', [
        { turnId: 'q', speaker: 'Caroline', text: 'Your cats are adorable! What are their names?' },
        { turnId: 'a', speaker: 'Melanie', text: 'Luna and Oliver! They are so sweet and playful.' },
        { turnId: 'w', speaker: 'Caroline', text: 'Wow! Did you see that band?' },
        { turnId: 'ok', speaker: 'Melanie', text: 'ok thanks!' },
      ]);
      // "Luna and Oliver!" shares no word with the question: its key, the turn it answers, does.
      const names = await recall({ userId: 'pair', query: "What are the names of Melanie's cats?", after: position, debug: true });
      expect(names.memories[0].sourceTurnIds).toEqual(['a']);
      expect(names.memories[0].components).toMatchObject({ steering: 1 });
      // A turn with no cue and no detail is still an episode; a content-free one is not.
      const band = await recall({ userId: 'pair', query: 'did Caroline see the band' });
      expect(band.memories.map((m) => m.sourceTurnIds[0])).toContain('w');
      const { body } = await engram.http().get('/v1/users/pair/memories').expect(200);
      const sources = body.memories.flatMap((m: { sourceTurnIds: string[] }) => m.sourceTurnIds);
      expect(new Set(sources)).toEqual(new Set(['q', 'a', 'w']));
    });

    it('returns score components only when debug is asked for', async () => {
      const { position } = await ingest('u1', 's1', [{ turnId: 't1', text: 'I prefer VS Code for TypeScript work' }]);
      const plain = await recall({ userId: 'u1', query: 'editor VS Code', after: position });
      expect(plain.memories.length).toBeGreaterThan(0);
      expect(plain.memories[0].components).toBeUndefined();
      const debug = await recall({ userId: 'u1', query: 'editor VS Code', debug: true });
      expect(debug.memories[0].components).toEqual(
        expect.objectContaining({ relevance: expect.any(Number), decay: expect.any(Number), importance: expect.any(Number) }),
      );
    });

    it('stores a turn sent twice once', async () => {
      await ingest('u1', 's1', [{ turnId: 't1', text: 'I prefer VS Code for TypeScript work' }]);
      const again = await ingest('u1', 's1', [
        { turnId: 't1', text: 'I prefer VS Code for TypeScript work' },
        { turnId: 't1', text: 'I prefer VS Code for TypeScript work' },
      ]);
      expect(again.accepted).toBe(1);
      const result = await recall({ userId: 'u1', query: 'editor', sessionId: 's1', after: again.position });
      expect(result.recent.map((t) => t.turnId)).toEqual(['t1']);
      const { body } = await engram.http().get('/v1/users/u1/memories').expect(200);
      const vscode = body.memories.filter((m: { value: string }) => m.value.includes('VS Code'));
      expect(vscode).toHaveLength(1);
      expect(vscode[0].mentionCount).toBe(1);
    });

    it('keeps the session window in order', async () => {
      const { position } = await ingest('u1', 's1', [
        { turnId: 'a', text: '你好', occurredAt: '2026-11-30T08:00:00Z' },
        { turnId: 'b', text: 'I prefer tea over coffee', occurredAt: '2026-11-30T08:01:00Z' },
        { turnId: 'c', text: 'ok', occurredAt: '2026-11-30T08:02:00Z', role: 'assistant' },
      ]);
      const result = await recall({ userId: 'u1', query: 'drinks', sessionId: 's1', after: position });
      expect(result.recent.map((t) => t.turnId)).toEqual(['a', 'b', 'c']);
      expect(result.context.indexOf('tea')).toBeGreaterThan(-1);
    });

    it('masks phone numbers, e-mails and card numbers before anything is stored', async () => {
      const { position } = await ingest('u1', 's1', [
        { turnId: 't1', text: '我的手机号是13812345678，邮箱 laozhou@example.com，记住我的卡号 4111 1111 1111 1111' },
      ]);
      const result = await recall({ userId: 'u1', query: '手机号 邮箱 卡号', sessionId: 's1', after: position });
      const body = JSON.stringify(result);
      expect(body).not.toMatch(/13812345678|laozhou@example\.com|4111 1111 1111 1111/);
      expect(result.recent[0].text).toContain('[PHONE]');
      await engram.stop();
      expect(await engram.storedData()).not.toMatch(/13812345678|laozhou@example\.com|4111 1111 1111 1111|4111111111111111/);
    });

    describe('bad input: 400 naming the field, nothing stored, never a 500', () => {
      async function logEnd(): Promise<number> {
        const { body } = await engram.http().get('/v1/pipeline/status').expect(200);
        return body.ingested;
      }

      async function expectNothingStored() {
        const { body } = await engram.http().get('/v1/users/u1/memories').expect(200);
        expect(body.memories).toEqual([]);
        const r = await recall({ userId: 'u1', query: 'anything', sessionId: 's1' });
        expect(r.recent).toEqual([]);
      }

      it.each([
        [
          'missing userId',
          { sessionId: 's1', turns: [{ turnId: 't', role: 'user', text: 'hi there friend', occurredAt: '2026-11-30T08:00:00Z' }] },
          'userId',
        ],
        ['missing turns', { userId: 'u1', sessionId: 's1' }, 'turns'],
        ['empty turns', { userId: 'u1', sessionId: 's1', turns: [] }, 'turns'],
        [
          'text not a string',
          { userId: 'u1', sessionId: 's1', turns: [{ turnId: 't', role: 'user', text: 42, occurredAt: '2026-11-30T08:00:00Z' }] },
          'turns.0.text',
        ],
        [
          'bad role',
          {
            userId: 'u1',
            sessionId: 's1',
            turns: [{ turnId: 't', role: 'admin', text: 'I prefer tea', occurredAt: '2026-11-30T08:00:00Z' }],
          },
          'turns.0.role',
        ],
        [
          'bad occurredAt',
          { userId: 'u1', sessionId: 's1', turns: [{ turnId: 't', role: 'user', text: 'I prefer tea', occurredAt: 'yesterday' }] },
          'turns.0.occurredAt',
        ],
        [
          'turnId with spaces',
          {
            userId: 'u1',
            sessionId: 's1',
            turns: [{ turnId: 'a b', role: 'user', text: 'I prefer tea', occurredAt: '2026-11-30T08:00:00Z' }],
          },
          'turns.0.turnId',
        ],
        [
          'oversized text',
          {
            userId: 'u1',
            sessionId: 's1',
            turns: [{ turnId: 't', role: 'user', text: 'x'.repeat(2001), occurredAt: '2026-11-30T08:00:00Z' }],
          },
          'turns.0.text',
        ],
        [
          'one bad turn among good ones',
          {
            userId: 'u1',
            sessionId: 's1',
            turns: [
              { turnId: 't1', role: 'user', text: 'I prefer tea over coffee', occurredAt: '2026-11-30T08:00:00Z' },
              { turnId: 't2', role: 'user', occurredAt: '2026-11-30T08:00:00Z' },
            ],
          },
          'turns.1.text',
        ],
      ])('POST /v1/turns with %s → 400', async (_name, body, field) => {
        const before = await logEnd();
        const response = await engram.http().post('/v1/turns').send(body).expect(400);
        expect(response.body.fields).toContain(field);
        expect(response.body.message.join(' ')).toContain(field);
        expect(await logEnd()).toBe(before);
        await expectNothingStored();
      });

      it('answers 413 for a body over the configured size, and stores nothing', async () => {
        const turns = Array.from({ length: 60 }, (_, i) => ({
          turnId: `t${i}`,
          role: 'user',
          text: 'y'.repeat(1500),
          occurredAt: '2026-11-30T08:00:00Z',
        }));
        const response = await engram.http().post('/v1/turns').send({ userId: 'u1', sessionId: 's1', turns }).expect(413);
        expect(response.body.statusCode).toBe(413);
        await expectNothingStored();
      });

      it('answers 400 for malformed JSON', async () => {
        const response = await engram.http().post('/v1/turns').set('content-type', 'application/json').send('{"userId": ').expect(400);
        expect(response.body).toMatchObject({ message: ['request body must be valid JSON'], fields: ['body'] });
      });

      it.each([
        ['missing query', { userId: 'u1' }, 'query'],
        ['k out of range', { userId: 'u1', query: 'x', k: 0 }, 'k'],
        ['k not a number', { userId: 'u1', query: 'x', k: 'five' }, 'k'],
        ['now not an instant', { userId: 'u1', query: 'x', now: 'tomorrow' }, 'now'],
        ['after not a position', { userId: 'u1', query: 'x', after: 'not-a-position' }, 'after'],
        ['debug not a boolean', { userId: 'u1', query: 'x', debug: 'yes' }, 'debug'],
      ])('POST /v1/recall with %s → 400', async (_name, body, field) => {
        const response = await engram.http().post('/v1/recall').send(body).expect(400);
        expect(response.body.fields).toContain(field);
      });

      it.each([
        ['null', 'null'],
        ['array', '[]'],
        ['string', '"turns"'],
        ['number', '42'],
        ['nested junk', '{"userId":{"$gt":""},"sessionId":[1],"turns":[null]}'],
      ])('never answers 500 to a %s body', async (_name, raw) => {
        for (const route of ['/v1/turns', '/v1/recall']) {
          const response = await engram.http().post(route).set('content-type', 'application/json').send(raw);
          expect(response.status).toBeGreaterThanOrEqual(400);
          expect(response.status).toBeLessThan(500);
        }
      });
    });

    it('keeps users apart', async () => {
      const a = await ingest('alice', 's1', [{ turnId: 't1', text: '我喜欢用 Vim 写代码' }]);
      await ingest('bob', 's1', [{ turnId: 't1', text: 'I prefer Emacs for coding' }]);
      const bob = await recall({ userId: 'bob', query: 'Vim 写代码 编辑器', sessionId: 's1', after: a.position });
      expect(JSON.stringify(bob)).not.toContain('Vim');
      const alice = await recall({ userId: 'alice', query: 'Emacs editor coding', sessionId: 's1' });
      expect(JSON.stringify(alice)).not.toContain('Emacs');
    });

    it('reports pending work truthfully', async () => {
      const { position } = await ingest('u1', 's1', [{ turnId: 't1', text: 'I prefer tea over coffee' }]);
      await recall({ userId: 'u1', query: 'tea', after: position });
      const { body } = await engram.http().get('/v1/pipeline/status').expect(200);
      expect(body.pending).toBe(0);
    });

    it('forgets a user in every store, and the user stays forgotten after a rebuild', async () => {
      const { position } = await ingest('u1', 's1', [
        { turnId: 't1', text: '我叫老周，数据库用 PostgreSQL' },
        { turnId: 't2', text: 'I prefer VS Code for TypeScript work' },
      ]);
      await ingest('u2', 's1', [{ turnId: 't1', text: 'I prefer Emacs for coding' }]);
      await recall({ userId: 'u1', query: 'x', after: position });

      await engram.http().delete('/v1/users/u1').expect(200);

      const gone = async () => {
        const { body } = await engram.http().get('/v1/users/u1/memories?status=all').expect(200);
        expect(body.memories).toEqual([]);
        const r = await recall({ userId: 'u1', query: 'PostgreSQL VS Code 老周', sessionId: 's1' });
        expect(r.facts).toEqual([]);
        expect(r.memories).toEqual([]);
        expect(r.recent).toEqual([]);
      };
      await gone();

      await engram.stop();
      expect(await rebuildOffline(engram.dataDir)).toBeGreaterThan(0);
      engram = await startEngram({ dataDir: engram.dataDir });
      await gone();
      const other = await recall({ userId: 'u2', query: 'Emacs editor' });
      expect(everything(other).some((m) => m.content.includes('Emacs'))).toBe(true);
    });
  });

  describe('tenancy with API keys', () => {
    let engram: EngramHarness;
    beforeAll(async () => {
      engram = await startEngram({ env: { ENGRAM_API_KEYS: 'key-a=acme,key-b=globex' } });
    });
    afterAll(async () => engram.destroy());

    it('rejects requests without a valid key', async () => {
      await engram.http().post('/v1/recall').send({ userId: 'u1', query: 'x' }).expect(401);
      await engram.http().post('/v1/recall').set('authorization', 'Bearer nope').send({ userId: 'u1', query: 'x' }).expect(401);
      await engram.http().get('/health').expect(200);
    });

    it('never shows one tenant the data of another, even for the same user id', async () => {
      const posted = await engram
        .http()
        .post('/v1/turns')
        .set('authorization', 'Bearer key-a')
        .send(turnsBody('u1', 's1', [{ turnId: 't1', text: 'I prefer VS Code for TypeScript work' }]))
        .expect(202);
      const own = await engram
        .http()
        .post('/v1/recall')
        .set('authorization', 'Bearer key-a')
        .send({ userId: 'u1', query: 'VS Code editor', sessionId: 's1', after: posted.body.position })
        .expect(200);
      expect(JSON.stringify(own.body)).toContain('VS Code');
      const other = await engram
        .http()
        .post('/v1/recall')
        .set('authorization', 'Bearer key-b')
        .send({ userId: 'u1', query: 'VS Code editor', sessionId: 's1' })
        .expect(200);
      expect(JSON.stringify(other.body)).not.toContain('VS Code');
      const list = await engram.http().get('/v1/users/u1/memories').set('authorization', 'Bearer key-b').expect(200);
      expect(list.body.memories).toEqual([]);
    });
  });
}
