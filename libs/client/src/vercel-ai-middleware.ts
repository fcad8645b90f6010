import type { LanguageModelMiddleware } from 'ai';
import type { EngramClient } from './engram-client';
import type { MemoryScope } from './with-memory';

/** The client to remember with, and whose memory a wrapped model uses (the scope `withMemory` takes). */
export interface EngramMiddlewareOptions extends MemoryScope {
  readonly engram: EngramClient;
}

// What a middleware is handed, in the AI SDK's own types (derived from its middleware type, so the
// installed `ai` is their only source and this module has no other import from it).
type CallOptions = Parameters<NonNullable<LanguageModelMiddleware['transformParams']>>[0]['params'];
type Prompt = CallOptions['prompt'];
type PromptMessage = Prompt[number];
type GenerateResult = Awaited<ReturnType<NonNullable<LanguageModelMiddleware['wrapGenerate']>>>;
type StreamResult = Awaited<ReturnType<NonNullable<LanguageModelMiddleware['wrapStream']>>>;
type StreamPart = StreamResult['stream'] extends ReadableStream<infer P> ? P : never;

/** The text parts of a message or of a result's content, joined; files, reasoning and tool calls are not text. */
function textOf(parts: readonly { type: string; text?: string }[], separator: string): string {
  return parts
    .map((part) => (part.type === 'text' && typeof part.text === 'string' ? part.text : ''))
    .filter(Boolean)
    .join(separator);
}

function lastUserText(prompt: Prompt): string {
  const lastUser = [...prompt].reverse().find((m) => m.role === 'user');
  return lastUser ? textOf(lastUser.content, '\n') : '';
}

/** The prompt with engram's context block as a system message after the caller's own system messages. */
function withContext(prompt: Prompt, context: string): Prompt {
  if (!context) return prompt;
  const firstOther = prompt.findIndex((m) => m.role !== 'system');
  const at = firstOther === -1 ? prompt.length : firstOther;
  const block: PromptMessage = { role: 'system', content: context };
  return [...prompt.slice(0, at), block, ...prompt.slice(at)];
}

/**
 * A language-model middleware for the Vercel AI SDK (`wrapLanguageModel({ model, middleware })`)
 * that does what `withMemory` does for an OpenAI client: before each call it recalls for the last
 * user message and adds the context block as a system message; after the answer (generated, or
 * streamed to its end) it records the user's message and the assistant's text as turns.
 *
 * The AI SDK calls the model once per step, and a tool loop's later steps end on a tool result,
 * not on the user's message: those steps recall again (the context must be in every step's prompt)
 * but record only their text, so the user's message is remembered once.
 */
export function engramMiddleware(options: EngramMiddlewareOptions): LanguageModelMiddleware {
  const { engram, userId, sessionId } = options;
  const record = async (prompt: Prompt, reply: string) => {
    const question = prompt.at(-1)?.role === 'user' ? lastUserText(prompt) : '';
    const turns = [
      ...(question ? [{ role: 'user' as const, text: question }] : []),
      ...(reply ? [{ role: 'assistant' as const, text: reply }] : []),
    ];
    if (turns.length > 0) await engram.remember(userId, sessionId, turns);
  };
  return {
    // 'v3' is the middleware interface of ai 6, and ai 7 still takes it.
    specificationVersion: 'v3',
    async transformParams({ params }) {
      const question = lastUserText(params.prompt);
      if (!question) return params;
      const recalled = await engram.recall(userId, question, { sessionId, ...options.recall });
      return { ...params, prompt: withContext(params.prompt, recalled.context) };
    },
    async wrapGenerate({ doGenerate, params }): Promise<GenerateResult> {
      const result = await doGenerate();
      await record(params.prompt, textOf(result.content, ''));
      return result;
    },
    async wrapStream({ doStream, params }): Promise<StreamResult> {
      const result = await doStream();
      return { ...result, stream: recordingStream(result.stream, (reply) => record(params.prompt, reply)) };
    },
  };
}

/**
 * The stream as the model sends it; once it ends, the assembled text is recorded (the stream
 * closes after that, so a caller that read it to the end can recall the exchange). A stream that
 * reported an error, or that the caller cancelled, records nothing.
 */
function recordingStream(stream: ReadableStream<StreamPart>, record: (reply: string) => Promise<void>): ReadableStream<StreamPart> {
  let reply = '';
  let failed = false;
  return stream.pipeThrough(
    new TransformStream<StreamPart, StreamPart>({
      transform(part, controller) {
        if (part.type === 'text-delta') reply += part.delta;
        if (part.type === 'error') failed = true;
        controller.enqueue(part);
      },
      async flush() {
        if (!failed) await record(reply);
      },
    }),
  );
}
