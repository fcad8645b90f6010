import { JsonHttpStub, type StubAnswer, type StubHandler, type StubRequest } from '@engram/testing';
import en from '../fixtures/chat-completion-en.json';
import malformed from '../fixtures/chat-completion-malformed-items.json';
import notJson from '../fixtures/chat-completion-not-json.json';
import procedureEn from '../fixtures/chat-completion-procedure-en.json';
import procedureZh from '../fixtures/chat-completion-procedure-zh.json';
import summaryEn from '../fixtures/chat-completion-summary-en.json';
import summaryZh from '../fixtures/chat-completion-summary-zh.json';
import zh from '../fixtures/chat-completion-zh.json';
import correctionEnBefore from '../fixtures/chat-completion-correction-en-before.json';
import correctionEn from '../fixtures/chat-completion-correction-en.json';
import correctionZhBefore from '../fixtures/chat-completion-correction-zh-before.json';
import correctionZh from '../fixtures/chat-completion-correction-zh.json';

/*
 * A local OpenAI-compatible chat-completions server for tests: it answers each turn with a
 * hand-authored fixture (see ../fixtures/README.md — not recordings), chosen by the turn's text.
 */

/** Turn text (as sent in the user message) → the fixture that answers it. */
export const FIXTURE_TURNS = {
  zh: { text: '我喜欢用 VS Code 写 TypeScript，预算控制在三万以内。今天有点累。', response: zh },
  en: {
    text: "I'm a backend engineer at Stripe, and we decided to use PostgreSQL for the new service. What's the weather today?",
    response: en,
  },
  malformed: { text: 'Let me tell you about my week.', response: malformed },
  notJson: { text: 'Summarise what you know about me.', response: notJson },
  correctionZhBefore: { text: '把服务器时间改成8点', response: correctionZhBefore },
  correctionZh: { text: '不对，改成9点', response: correctionZh },
  correctionEnBefore: { text: 'set the standup to 9am', response: correctionEnBefore },
  correctionEn: { text: 'no, make it 10', response: correctionEn },
  procedureEn: { text: 'From now on, always answer in English and use TypeScript for code examples.', response: procedureEn },
  procedureZh: { text: '以后都用中文回答，报价先给区间再给明细，别用表情包。', response: procedureZh },
} as const;

interface ChatBody {
  model?: string;
  messages: { role: string; content: string }[];
  temperature?: number;
  response_format?: { type: string; json_schema?: { name: string; strict: boolean; schema: unknown } };
}
export type ChatRequest = StubRequest<ChatBody>;
export type { StubAnswer };
export type Handler = StubHandler<ChatBody>;

/** The fixture whose turn the user message carries; a 500 naming the turn when there is none. */
export const replayFixtures: Handler = ({ body }) => {
  const user = body.messages.find((m) => m.role === 'user')?.content ?? '';
  const fixture = Object.values(FIXTURE_TURNS).find((f) => user.includes(f.text));
  if (fixture) return { body: fixture.response };
  return { status: 500, body: { error: { message: `stub: no fixture for ${JSON.stringify(user)}`, type: 'server_error' } } };
};

/** An answer with nothing to remember, in the chat-completions shape (for turns without a fixture). */
export const noItems: StubAnswer = {
  body: {
    id: 'chatcmpl-stub-empty',
    object: 'chat.completion',
    created: 0,
    model: 'hand-authored-fixture',
    choices: [{ index: 0, message: { role: 'assistant', content: '{"items":[]}', refusal: null }, logprobs: null, finish_reason: 'stop' }],
  },
};

/** Hand-authored session summaries (a summary request is told by its schema name), in the language of its turns. */
export const SUMMARY_FIXTURES = { zh: summaryZh, en: summaryEn } as const;

export function isSummaryRequest(body: ChatBody): boolean {
  return body.response_format?.json_schema?.name === 'engram_session_summary';
}

/** The chat-completions stub: replays the fixtures unless a test sets another handler. */
export class ChatCompletionsStub extends JsonHttpStub<ChatBody> {
  constructor() {
    super(replayFixtures);
  }
}
