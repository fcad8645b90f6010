import * as fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, stepCountIs, streamText, tool, wrapLanguageModel } from 'ai';
import { z } from 'zod';
import { JsonHttpStub, type StubHandler } from '@engram/testing';
import { EngramClient } from '@engram/client';
import { engramMiddleware } from '@engram/client/vercel-ai';
import { startEngram, type EngramHarness } from '../../../test/support/engram-harness';
import completion from './testing/fixtures/chat-completion.json';
import toolCall from './testing/fixtures/chat-completion-tool-call.json';

/*
 * engramMiddleware inside the real AI SDK (`ai`, with @ai-sdk/openai's chat model) against a real
 * embedded engram listening on a port, the model pointed at a local chat-completions stub that
 * replays hand-authored answers and keeps what it was sent.
 */
const fixture = (name: string) => fs.readFileSync(path.join(__dirname, 'testing/fixtures', name), 'utf8');
const streamed = fixture('chat-completion-stream.sse');
const streamedThenFailed = fixture('chat-completion-stream-error.sse');
const sse = (body: string) => ({ headers: { 'content-type': 'text/event-stream' }, body });

type ChatMessage = { role: string; content: string | null; tool_calls?: unknown[] };
type ChatBody = { model: string; stream?: boolean; tools?: unknown[]; messages: ChatMessage[] };
const replay: StubHandler<ChatBody> = ({ body }) => (body.stream ? sse(streamed) : { body: completion });

describe('engramMiddleware in the Vercel AI SDK, against a real engram', () => {
  let engram: EngramHarness;
  let url: string;
  const chat = new JsonHttpStub<ChatBody>(replay);
  let openai: ReturnType<typeof createOpenAI>;
  const client = () => new EngramClient({ url, apiKey: 'key-v' });
  /** A client that lists the turns engram has accepted from it (`role: text`), each once its answer is back. */
  const watchedClient = () => {
    const written: string[] = [];
    const watching: typeof fetch = async (input, init) => {
      const request = new Request(input, init);
      const body = await request.clone().text();
      const response = await fetch(request);
      if (new URL(request.url).pathname === '/v1/turns' && response.ok) {
        written.push(...(JSON.parse(body) as { turns: { role: string; text: string }[] }).turns.map((t) => `${t.role}: ${t.text}`));
      }
      return response;
    };
    return { memory: new EngramClient({ url, apiKey: 'key-v', fetch: watching }), written };
  };
  /** The session's recent turns as engram recalls them, `role: text`. */
  const recent = async (memory: EngramClient, userId: string) =>
    (await memory.recall(userId, 'anything', { sessionId: 's1' })).recent.map((t) => `${t.role}: ${t.text}`);

  beforeAll(async () => {
    engram = await startEngram({ env: { ENGRAM_API_KEYS: 'key-v=vercel' } });
    await engram.app.listen(0, '127.0.0.1');
    url = `http://127.0.0.1:${(engram.app.getHttpServer().address() as AddressInfo).port}`;
    openai = createOpenAI({ baseURL: `${await chat.start()}/v1`, apiKey: 'test' });
  });
  afterAll(async () => {
    await chat.stop();
    await engram?.destroy();
  });
  beforeEach(() => chat.reset());

  it('generateText: recalls, sends the context block as a system message after the caller’s, records both turns', async () => {
    const memory = client();
    await memory.remember('zhou', 's1', [{ role: 'user', text: '我们的数据库用 PostgreSQL' }]);
    const model = wrapLanguageModel({
      model: openai.chat('gpt-4o-mini'),
      middleware: engramMiddleware({ engram: memory, userId: 'zhou', sessionId: 's1' }),
    });

    const { text } = await generateText({ model, system: 'You are terse.', prompt: '我们的数据库是什么？', maxRetries: 0 });
    expect(text).toBe(completion.choices[0].message.content);

    expect(chat.requests).toHaveLength(1);
    const sent = chat.requests[0].body.messages;
    expect(sent.map((m) => m.role)).toEqual(['system', 'system', 'user']);
    expect(sent[0].content).toBe('You are terse.');
    expect(sent[1].content).toContain('PostgreSQL');
    expect(sent[2].content).toBe('我们的数据库是什么？');
    expect(await recent(memory, 'zhou')).toEqual(
      expect.arrayContaining(['user: 我们的数据库是什么？', `assistant: ${completion.choices[0].message.content}`]),
    );
  });

  it('streamText: the text streams through unchanged and the exchange is recorded by the time the stream ends', async () => {
    const { memory, written } = watchedClient();
    await memory.remember('lin', 's1', [{ role: 'user', text: 'I prefer window seats' }]);
    const model = wrapLanguageModel({
      model: openai.chat('gpt-4o-mini'),
      middleware: engramMiddleware({ engram: memory, userId: 'lin', sessionId: 's1' }),
    });

    const result = streamText({ model, prompt: 'Which seat do I like?', maxRetries: 0 });
    const deltas: string[] = [];
    for await (const delta of result.textStream) deltas.push(delta);
    // Checked before anything else is awaited: engram had accepted the exchange when the stream ended.
    expect(written).toEqual(['user: I prefer window seats', 'user: Which seat do I like?', 'assistant: You said you prefer window seats.']);
    expect(deltas).toEqual(['You said you ', 'prefer window seats.']);

    expect(chat.requests).toHaveLength(1);
    expect(chat.requests[0].body.stream).toBe(true);
    expect(chat.requests[0].body.messages.map((m) => m.role)).toEqual(['system', 'user']);
    expect(chat.requests[0].body.messages[0].content).toContain('window');
    expect(await recent(memory, 'lin')).toEqual(
      expect.arrayContaining(['user: Which seat do I like?', 'assistant: You said you prefer window seats.']),
    );
  });

  it('a tool loop: every step gets the context, the user’s message is recorded once and the final answer once', async () => {
    const memory = client();
    await memory.remember('chen', 's1', [{ role: 'user', text: '我们的数据库用 PostgreSQL' }]);
    // The model calls the tool first; once the prompt carries the tool's result it answers.
    chat.reset(({ body }) => (body.messages.some((m) => m.role === 'tool') ? { body: completion } : { body: toolCall }));
    const model = wrapLanguageModel({
      model: openai.chat('gpt-4o-mini'),
      middleware: engramMiddleware({ engram: memory, userId: 'chen', sessionId: 's1' }),
    });
    const checkDatabase = tool({
      description: 'The engine and version of the team database',
      inputSchema: z.object({}),
      execute: async () => ({ engine: 'PostgreSQL', version: '16' }),
    });

    const { text, steps } = await generateText({
      model,
      prompt: '我们的数据库是什么？',
      tools: { checkDatabase },
      stopWhen: stepCountIs(3),
      maxRetries: 0,
    });
    expect(text).toBe(completion.choices[0].message.content);
    expect(steps).toHaveLength(2);

    expect(chat.requests).toHaveLength(2);
    for (const request of chat.requests) {
      expect(request.body.messages[0].role).toBe('system');
      expect(request.body.messages[0].content).toContain('PostgreSQL');
    }
    expect(chat.requests[1].body.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool']);
    const turns = await recent(memory, 'chen');
    expect(turns.filter((t) => t === 'user: 我们的数据库是什么？')).toHaveLength(1);
    expect(turns.filter((t) => t.startsWith('assistant: '))).toEqual([`assistant: ${completion.choices[0].message.content}`]);
  });

  it('a stream that breaks off with an error records nothing', async () => {
    const memory = client();
    await memory.remember('wu', 's1', [{ role: 'user', text: 'I prefer aisle seats' }]);
    chat.reset(() => sse(streamedThenFailed));
    const model = wrapLanguageModel({
      model: openai.chat('gpt-4o-mini'),
      middleware: engramMiddleware({ engram: memory, userId: 'wu', sessionId: 's1' }),
    });

    const errors: unknown[] = [];
    const result = streamText({ model, prompt: 'Which seat do I like?', maxRetries: 0, onError: ({ error }) => void errors.push(error) });
    let text = '';
    for await (const delta of result.textStream) text += delta;
    expect(text).toBe('You said you ');
    expect(errors).toHaveLength(1);
    expect(chat.requests[0].body.messages[0].content).toContain('aisle');

    const turns = await recent(memory, 'wu');
    expect(turns).toContain('user: I prefer aisle seats');
    expect(turns).not.toContain('user: Which seat do I like?');
    expect(turns.filter((t) => t.startsWith('assistant: '))).toEqual([]);
  });

  it('adds no system message when the user has nothing to recall, and still records the exchange', async () => {
    const memory = client();
    const model = wrapLanguageModel({
      model: openai.chat('gpt-4o-mini'),
      middleware: engramMiddleware({ engram: memory, userId: 'newcomer', sessionId: 's1' }),
    });
    await generateText({ model, prompt: '你好', maxRetries: 0 });
    expect(chat.requests[0].body.messages.map((m) => m.role)).toEqual(['user']);
    expect(await recent(memory, 'newcomer')).toEqual(['user: 你好', `assistant: ${completion.choices[0].message.content}`]);
  });
});
