import type { EngramClient, RecallOptions } from './engram-client';

/** Whose memory a wrapped chat client uses, and in which session its turns are recorded. */
export interface MemoryScope {
  readonly userId: string;
  readonly sessionId: string;
  /** Passed on to every recall (k, budget, kinds…). */
  readonly recall?: RecallOptions;
}

/** The slice of an OpenAI-compatible client this wraps (the `openai` package's client has it). */
interface ChatClient {
  // `any`: the real client's `create` is overloaded (streamed or not); no narrower signature accepts it.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  chat: { completions: { create(params: any, options?: any): any } };
}

type Message = { role: string; content?: unknown };
type Completion = { choices?: { message?: { content?: string | null } }[] };
type Chunk = { choices?: { delta?: { content?: string | null } }[] };

/** A message's text, whether it is a string or an array of content parts. */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part: { type?: string; text?: string }) => (part?.type === 'text' && typeof part.text === 'string' ? part.text : ''))
    .filter(Boolean)
    .join('\n');
}

/** The messages with engram's context block as a system message after the caller's own system messages. */
function withContext(messages: readonly Message[], context: string): Message[] {
  if (!context) return [...messages];
  const firstOther = messages.findIndex((m) => m.role !== 'system' && m.role !== 'developer');
  const at = firstOther === -1 ? messages.length : firstOther;
  return [...messages.slice(0, at), { role: 'system', content: context }, ...messages.slice(at)];
}

/**
 * An OpenAI-compatible chat client with memory: before each `chat.completions.create` it recalls
 * for the last user message and injects the context block as a system message; after the answer
 * (streamed or not) it records the user's message and the assistant's reply as turns. Every other
 * property of the client is the client's own.
 */
export function withMemory<T extends ChatClient>(client: T, engram: EngramClient, scope: MemoryScope): T {
  const create = async (params: { messages: Message[]; stream?: boolean }, options?: unknown) => {
    const lastUser = [...params.messages].reverse().find((m) => m.role === 'user');
    const question = lastUser ? textOf(lastUser.content) : '';
    const recalled = question ? await engram.recall(scope.userId, question, { sessionId: scope.sessionId, ...scope.recall }) : undefined;
    const sent = { ...params, messages: withContext(params.messages, recalled?.context ?? '') };
    const answer = await client.chat.completions.create(sent, options);
    const record = async (reply: string) => {
      const turns = [
        ...(question ? [{ role: 'user' as const, text: question }] : []),
        ...(reply ? [{ role: 'assistant' as const, text: reply }] : []),
      ];
      if (turns.length > 0) await engram.remember(scope.userId, scope.sessionId, turns);
    };
    if (!params.stream) {
      await record((answer as Completion).choices?.[0]?.message?.content ?? '');
      return answer;
    }
    return recordingStream(answer as AsyncIterable<Chunk>, record);
  };
  const completions = new Proxy(client.chat.completions, {
    get: (target, key, receiver) => (key === 'create' ? create : Reflect.get(target, key, receiver)),
  });
  const chat = new Proxy(client.chat, {
    get: (target, key, receiver) => (key === 'completions' ? completions : Reflect.get(target, key, receiver)),
  });
  return new Proxy(client, { get: (target, key, receiver) => (key === 'chat' ? chat : Reflect.get(target, key, receiver)) });
}

/** The stream as the model sends it; once it ends, the assembled reply is recorded. */
function recordingStream<S extends AsyncIterable<Chunk>>(stream: S, record: (reply: string) => Promise<void>): S {
  async function* relay() {
    let reply = '';
    for await (const chunk of stream) {
      reply += chunk.choices?.[0]?.delta?.content ?? '';
      yield chunk;
    }
    await record(reply);
  }
  return new Proxy(stream, { get: (target, key, receiver) => (key === Symbol.asyncIterator ? relay : Reflect.get(target, key, receiver)) });
}
