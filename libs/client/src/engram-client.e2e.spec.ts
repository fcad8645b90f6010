import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import OpenAI from 'openai';
import { JsonHttpStub, type StubHandler } from '@engram/testing';
import {
  EngramClient,
  EngramAuthError,
  EngramNotFoundError,
  EngramUnavailableError,
  EngramValidationError,
  withMemory,
} from '@engram/client';
import { startEngram, type EngramHarness } from '../../../test/support/engram-harness';
import completion from './testing/fixtures/chat-completion.json';

/*
 * The SDK against a real embedded engram listening on a port, and withMemory against a local
 * chat-completions stub replaying hand-authored answers (the only paid remote API here).
 */
const root = path.resolve(__dirname, '../../..');
const run = promisify(execFile);
const streamed = fs.readFileSync(path.join(__dirname, 'testing/fixtures/chat-completion-stream.sse'), 'utf8');

type ChatBody = { model: string; stream?: boolean; messages: { role: string; content: string }[] };
const replay: StubHandler<ChatBody> = ({ body }) =>
  body.stream ? { headers: { 'content-type': 'text/event-stream' }, body: streamed } : { body: completion };

/** A fetch that notes each request's path, body and answer's status, for what the wire carried. */
function tracingFetch() {
  const calls: { path: string; body: unknown; status: number }[] = [];
  const traced: typeof fetch = async (input, init) => {
    const request = new Request(input, init);
    const text = await request.clone().text();
    const response = await fetch(request);
    calls.push({ path: new URL(request.url).pathname, body: text ? JSON.parse(text) : undefined, status: response.status });
    return response;
  };
  return { calls, fetch: traced };
}

describe('@engram/client against a real engram', () => {
  let engram: EngramHarness;
  let url: string;
  const chat = new JsonHttpStub<ChatBody>(replay);
  let chatUrl: string;
  const client = (apiKey: string, options: Partial<ConstructorParameters<typeof EngramClient>[0]> = {}) =>
    new EngramClient({ url, apiKey, ...options });

  beforeAll(async () => {
    engram = await startEngram({
      env: { ENGRAM_API_KEYS: 'key-a=acme,key-b=beta,key-c=chat,key-t=throttled,key-r=readme,key-v=vercel', ENGRAM_TENANT_RATE_LIMIT: '2' },
    });
    await engram.app.listen(0, '127.0.0.1');
    url = `http://127.0.0.1:${(engram.app.getHttpServer().address() as AddressInfo).port}`;
    chatUrl = await chat.start();
  });
  afterAll(async () => {
    await chat.stop();
    await engram?.destroy();
  });
  beforeEach(() => chat.reset());

  it('reads its own writes: the position from remember goes to the next recall of that user as `after`', async () => {
    const traced = tracingFetch();
    const acme = client('key-a', { fetch: traced.fetch });
    const recorded = await acme.remember('laozhou', 's1', [{ role: 'user', text: '我们的数据库用 PostgreSQL' }]);
    const recalled = await acme.recall('laozhou', '数据库用什么');
    expect(recalled.consistent).toBe(true);
    expect(recalled.memories.map((m) => m.content).join('\n')).toContain('PostgreSQL');
    expect(recalled.context).toContain('PostgreSQL');
    expect(traced.calls.map((c) => c.path)).toEqual(['/v1/turns', '/v1/recall']);
    expect(traced.calls[1].body).toMatchObject({ userId: 'laozhou', query: '数据库用什么', after: recorded.position });
    // Seen by a consistent recall: the token is not sent again, nor to another user.
    await acme.recall('laozhou', '数据库用什么');
    await acme.recall('someone-else', '数据库用什么');
    expect(traced.calls.slice(2).map((c) => (c.body as { after?: string }).after)).toEqual([undefined, undefined]);
  });

  it('is scoped by its API key: another tenant sees nothing, a wrong key is an EngramAuthError', async () => {
    const acme = client('key-a');
    await acme.remember('shared-id', 's1', [{ role: 'user', text: 'I prefer aisle seats' }]);
    expect((await acme.recall('shared-id', 'which seat')).context).toContain('aisle');
    const beta = client('key-b');
    expect(await beta.memories('shared-id')).toEqual([]);
    expect((await beta.recall('shared-id', 'which seat')).context).not.toContain('aisle');
    const wrong = client('no-such-key');
    const error = await wrong.recall('shared-id', 'which seat').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EngramAuthError);
    expect((error as EngramAuthError).status).toBe(401);
  });

  it('throws typed errors carrying the server’s fields', async () => {
    const acme = client('key-a');
    const invalid = await acme
      .remember('u1', 's1', [
        { role: 'user', text: 'ok' },
        { role: 'user', text: '' },
      ])
      .catch((e: unknown) => e);
    expect(invalid).toBeInstanceOf(EngramValidationError);
    expect((invalid as EngramValidationError).fields).toEqual(['turns.1.text']);
    expect((invalid as EngramValidationError).status).toBe(400);
    const missing = await acme.revert('u1', 'no-such-memory', 1).catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(EngramNotFoundError);
    expect((missing as EngramNotFoundError).fields).toEqual(['memoryId']);
  });

  it('lists, retracts, reverts, pins a profile, exports, imports and forgets', async () => {
    const acme = client('key-a');
    await acme.remember('mei', 's1', [
      { turnId: 't1', role: 'user', text: '预算控制在三万以内', occurredAt: '2026-11-30T08:00:00Z' },
      { turnId: 't2', role: 'user', text: 'I prefer window seats', occurredAt: '2026-11-30T08:01:00Z' },
    ]);
    await acme.remember('mei', 's1', [{ turnId: 't3', role: 'user', text: '预算提到五万了', occurredAt: '2026-12-01T08:00:00Z' }]);
    await acme.recall('mei', '预算');
    const memories = await acme.memories('mei');
    const budget = memories.find((m) => m.content.includes('五万'))!;
    const seat = memories.find((m) => m.content.includes('window'))!;
    expect(budget.version).toBe(2);

    expect((await acme.revert('mei', budget.memoryId, 1)).memory).toMatchObject({ value: '三万', version: 3 });
    expect((await acme.retract('mei', seat.memoryId, '说错了')).memory).toMatchObject({ status: 'retracted', statusReason: '说错了' });
    expect((await acme.memories('mei')).map((m) => m.memoryId)).not.toContain(seat.memoryId);
    expect((await acme.memories('mei', { status: 'all' })).find((m) => m.memoryId === seat.memoryId)?.status).toBe('retracted');
    expect((await acme.profile('mei', { city: '杭州' })).memories.map((m) => m.value)).toEqual(['杭州']);

    const bundle = await acme.export('mei');
    expect(JSON.stringify(bundle)).toContain('杭州');
    const imported = await acme.import('mei-copy', bundle);
    expect(imported.added).toBeGreaterThan(0);
    expect((await acme.import('mei-copy', bundle)).added).toBe(0);
    expect((await acme.memories('mei-copy')).map((m) => m.value)).toEqual(expect.arrayContaining(['杭州', '三万']));

    expect((await acme.forget('mei')).forgotten).toBe(true);
    expect(await acme.memories('mei')).toEqual([]);
    expect((await acme.recall('mei', '预算')).context).not.toContain('三万');
  });

  it('confirms a memory whose value contradicts an earlier one: the conflict note goes', async () => {
    const acme = client('key-a');
    await acme.remember('ling', 's1', [{ turnId: 't1', role: 'user', text: '我对青霉素过敏', occurredAt: '2026-11-20T08:00:00Z' }]);
    await acme.remember('ling', 's2', [{ turnId: 't2', role: 'user', text: '我可以用青霉素', occurredAt: '2026-11-25T08:00:00Z' }]);
    const [contradicted] = await acme.memories('ling').then((all) => all.filter((m) => m.kind !== 'episode'));
    expect(contradicted.conflict).toMatchObject({ previousContent: '我对青霉素过敏' });
    const confirmed = await acme.confirm('ling', contradicted.memoryId);
    expect(confirmed).toMatchObject({ changed: true, memory: { memoryId: contradicted.memoryId, value: 'none', pinned: false } });
    expect(confirmed.memory.conflict).toBeUndefined();
    expect(await acme.confirm('ling', contradicted.memoryId)).toMatchObject({ changed: false });
  });

  it('retries a 429 after the Retry-After the server sent, and reports it once retries run out', async () => {
    // ENGRAM_TENANT_RATE_LIMIT=2: a burst of 20 turns, then 2 more turns/s.
    const turns = (n: number, from: number) =>
      Array.from({ length: n }, (_, i) => ({ turnId: `b${from + i}`, role: 'user' as const, text: `burst ${from + i}` }));
    const impatient = client('key-t', { retries: 0 });
    await impatient.remember('bursty', 's1', turns(20, 0));
    const refused = await impatient.remember('bursty', 's1', turns(2, 20)).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(EngramUnavailableError);
    expect((refused as EngramUnavailableError).status).toBe(429);
    expect((refused as EngramUnavailableError).retryAfterSeconds).toBeGreaterThanOrEqual(1);

    const traced = tracingFetch();
    const patient = client('key-t', { fetch: traced.fetch });
    const started = Date.now();
    expect((await patient.remember('bursty', 's1', turns(2, 20))).accepted).toBe(2);
    expect(traced.calls.map((c) => c.status)).toEqual([429, 202]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
  });

  it('withMemory: recalls, injects the context block as a system message, records both turns', async () => {
    const acme = client('key-c');
    await acme.remember('zhou', 's1', [{ role: 'user', text: '我们的数据库用 PostgreSQL' }]);
    const ai = withMemory(new OpenAI({ baseURL: `${chatUrl}/v1`, apiKey: 'test', maxRetries: 0 }), acme, {
      userId: 'zhou',
      sessionId: 's1',
    });
    const reply = await ai.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [
        { role: 'system', content: 'You are terse.' },
        { role: 'user', content: '我们的数据库是什么？' },
      ],
    });
    expect(reply.choices[0].message.content).toBe(completion.choices[0].message.content);

    const sent = chat.requests[0].body.messages;
    expect(sent.map((m) => m.role)).toEqual(['system', 'system', 'user']);
    expect(sent[0].content).toBe('You are terse.');
    expect(sent[1].content).toContain('PostgreSQL');
    expect(sent[2].content).toBe('我们的数据库是什么？');

    const recent = (await acme.recall('zhou', '数据库', { sessionId: 's1' })).recent.map((t) => `${t.role}: ${t.text}`);
    expect(recent).toEqual(expect.arrayContaining(['user: 我们的数据库是什么？', `assistant: ${completion.choices[0].message.content}`]));
  });

  it('withMemory: streams the reply through unchanged and records it once the stream ends', async () => {
    const acme = client('key-c');
    await acme.remember('lin', 's1', [{ role: 'user', text: 'I prefer window seats' }]);
    const ai = withMemory(new OpenAI({ baseURL: `${chatUrl}/v1`, apiKey: 'test', maxRetries: 0 }), acme, {
      userId: 'lin',
      sessionId: 's1',
    });
    const stream = await ai.chat.completions.create({
      model: 'gpt-4o-mini',
      stream: true,
      messages: [{ role: 'user', content: 'Which seat do I like?' }],
    });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
    expect(text).toBe('You said you prefer window seats.');
    expect(chat.requests[0].body.stream).toBe(true);
    expect(chat.requests[0].body.messages[0]).toMatchObject({ role: 'system' });
    expect(chat.requests[0].body.messages[0].content).toContain('window');

    const recent = (await acme.recall('lin', 'seat', { sessionId: 's1' })).recent.map((t) => `${t.role}: ${t.text}`);
    expect(recent).toEqual(expect.arrayContaining(['user: Which seat do I like?', 'assistant: You said you prefer window seats.']));
  });

  describe('the built package', () => {
    beforeAll(async () => {
      await run(process.execPath, [path.join(root, 'scripts/build-client.js')], { cwd: root });
    }, 120_000);

    it('loads as CommonJS and as ESM', async () => {
      const lib = path.join(root, 'libs/client');
      const cjs = await run(process.execPath, [
        '-e',
        `const c = require(${JSON.stringify(lib)}); console.log(typeof c.EngramClient, typeof c.withMemory, typeof c.EngramValidationError)`,
      ]);
      expect(cjs.stdout.trim()).toBe('function function function');
      const esm = await run(process.execPath, [
        '--input-type=module',
        '-e',
        `import * as c from ${JSON.stringify(path.join(lib, 'dist/esm/client/src/index.js'))}; console.log(typeof c.EngramClient, typeof c.withMemory, typeof c.EngramValidationError)`,
      ]);
      expect(esm.stdout.trim()).toBe('function function function');
    });

    it('serves the Kafka producer from @engram/client/kafka, in both formats, masking with the bundled masker', async () => {
      // An app directory where '@engram/client' is the built package, resolved through its exports map.
      const app = fs.mkdtempSync(path.join(os.tmpdir(), 'engram-sdk-kafka-'));
      try {
        fs.mkdirSync(path.join(app, 'node_modules/@engram'), { recursive: true });
        fs.symlinkSync(path.join(root, 'libs/client'), path.join(app, 'node_modules/@engram/client'));
        const probe = (k: string) =>
          `console.log(typeof ${k}.KafkaTurnProducer, ${k}.turnRecordedEvents({ tenantId: 't', userId: 'u', sessionId: 's', turns: [{ role: 'user', text: 'call 13812345678' }], recordedAt: new Date() })[0].payload.text)`;
        const cjs = await run(process.execPath, ['-e', `const k = require('@engram/client/kafka'); ${probe('k')}`], { cwd: app });
        expect(cjs.stdout.trim()).toBe('function call [PHONE]');
        fs.writeFileSync(path.join(app, 'probe.mjs'), `import * as k from '@engram/client/kafka';\n${probe('k')}\n`);
        const esm = await run(process.execPath, ['probe.mjs'], { cwd: app });
        expect(esm.stdout.trim()).toBe('function call [PHONE]');
      } finally {
        fs.rmSync(app, { recursive: true, force: true });
      }
      // The main entry never loads kafkajs: applications that do not produce need not install it.
      const main = await run(process.execPath, [
        '-e',
        `require(${JSON.stringify(path.join(root, 'libs/client'))}); console.log(Object.keys(require.cache).some((f) => f.includes('/kafkajs/')))`,
      ]);
      expect(main.stdout.trim()).toBe('false');
    });

    it('runs the README example verbatim', async () => {
      const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
      const section = readme.split('## Use it from your app')[1];
      const example = /```js\n([\s\S]*?)```/.exec(section)![1];
      // An app directory where '@engram/client' is the built package and 'openai' the installed one.
      const app = fs.mkdtempSync(path.join(os.tmpdir(), 'engram-sdk-readme-'));
      try {
        fs.mkdirSync(path.join(app, 'node_modules/@engram'), { recursive: true });
        fs.symlinkSync(path.join(root, 'libs/client'), path.join(app, 'node_modules/@engram/client'));
        fs.symlinkSync(path.join(root, 'node_modules/openai'), path.join(app, 'node_modules/openai'));
        fs.writeFileSync(path.join(app, 'example.mjs'), example);
        const { stdout } = await run(process.execPath, ['example.mjs'], {
          cwd: app,
          env: { ...process.env, ENGRAM_URL: url, ENGRAM_API_KEY: 'key-r', OPENAI_BASE_URL: `${chatUrl}/v1`, OPENAI_API_KEY: 'test' },
        });
        expect(stdout).toContain('PostgreSQL');
        expect(stdout.trim().split('\n').at(-1)).toBe(completion.choices[0].message.content);
      } finally {
        fs.rmSync(app, { recursive: true, force: true });
      }
      expect(chat.requests).toHaveLength(1);
      expect(chat.requests[0].body.messages[0].content).toContain('PostgreSQL');
      const readmeTenant = client('key-r');
      const recent = (await readmeTenant.recall('laozhou', '数据库', { sessionId: 's1' })).recent.map((t) => `${t.role}: ${t.text}`);
      expect(recent).toEqual(expect.arrayContaining(['user: 我们的数据库是什么？', `assistant: ${completion.choices[0].message.content}`]));
    });

    it('runs the Vercel AI SDK example, the README’s copy of it, against the built @engram/client/vercel-ai', async () => {
      const example = fs.readFileSync(path.join(root, 'examples/vercel-ai/chat-with-memory.mjs'), 'utf8');
      const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
      expect(/```js\n([\s\S]*?)```/.exec(readme.split('### With the Vercel AI SDK')[1])![1]).toBe(example);
      // An app directory where '@engram/client' is the built package and 'ai', '@ai-sdk/openai' the installed ones.
      const app = fs.mkdtempSync(path.join(os.tmpdir(), 'engram-sdk-vercel-'));
      try {
        fs.mkdirSync(path.join(app, 'node_modules/@engram'), { recursive: true });
        fs.mkdirSync(path.join(app, 'node_modules/@ai-sdk'), { recursive: true });
        for (const name of ['@engram/client', 'ai', '@ai-sdk/openai']) {
          const installed = name === '@engram/client' ? path.join(root, 'libs/client') : path.join(root, 'node_modules', name);
          fs.symlinkSync(installed, path.join(app, 'node_modules', name));
        }
        fs.writeFileSync(path.join(app, 'chat-with-memory.mjs'), example);
        const { stdout } = await run(process.execPath, ['chat-with-memory.mjs'], {
          cwd: app,
          env: { ...process.env, ENGRAM_URL: url, ENGRAM_API_KEY: 'key-v', OPENAI_BASE_URL: `${chatUrl}/v1`, OPENAI_API_KEY: 'test' },
        });
        expect(stdout.trim().split('\n')).toEqual([completion.choices[0].message.content, 'You said you prefer window seats.']);
        // The CommonJS build of the entry point loads too (it needs nothing of 'ai' at run time).
        const cjs = await run(
          process.execPath,
          ['-e', `console.log(require('@engram/client/vercel-ai').engramMiddleware({}).specificationVersion)`],
          {
            cwd: app,
          },
        );
        expect(cjs.stdout.trim()).toBe('v3');
      } finally {
        fs.rmSync(app, { recursive: true, force: true });
      }
      expect(chat.requests.map((r) => Boolean(r.body.stream))).toEqual([false, true]);
      expect(chat.requests[0].body.messages[0]).toMatchObject({ role: 'system' });
      expect(chat.requests[0].body.messages[0].content).toContain('PostgreSQL');
      expect(chat.requests[1].body.messages[0].content).toContain('window');
      const recent = (await client('key-v').recall('laozhou', '数据库', { sessionId: 's1' })).recent.map((t) => `${t.role}: ${t.text}`);
      expect(recent).toEqual(
        expect.arrayContaining([
          'user: 我们的数据库是什么？',
          `assistant: ${completion.choices[0].message.content}`,
          'user: Which seat do I like?',
          'assistant: You said you prefer window seats.',
        ]),
      );
    });
  });
});
