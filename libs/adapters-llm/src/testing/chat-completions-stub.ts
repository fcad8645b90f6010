import { JsonHttpStub, type StubAnswer, type StubHandler } from '@engram/testing';
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
import constraintsZh from '../fixtures/chat-completion-constraints-zh.json';
import constraintsEn from '../fixtures/chat-completion-constraints-en.json';
import scopeZh from '../fixtures/chat-completion-scope-zh.json';
import scopeEn from '../fixtures/chat-completion-scope-en.json';
import scopeInvalid from '../fixtures/chat-completion-scope-invalid.json';
import favouriteZh from '../fixtures/chat-completion-favourite-zh.json';
import favouriteHabitZh from '../fixtures/chat-completion-favourite-habit-zh.json';
import likingZh from '../fixtures/chat-completion-liking-zh.json';
import favouriteEn from '../fixtures/chat-completion-favourite-en.json';
import likingEn from '../fixtures/chat-completion-liking-en.json';
import changeZhBefore from '../fixtures/chat-completion-change-zh-before.json';
import changeZh from '../fixtures/chat-completion-change-zh.json';
import changeEnBefore from '../fixtures/chat-completion-change-en-before.json';
import changeEn from '../fixtures/chat-completion-change-en.json';
import planZhBefore from '../fixtures/chat-completion-plan-zh-before.json';
import planZh from '../fixtures/chat-completion-plan-zh.json';
import planEnBefore from '../fixtures/chat-completion-plan-en-before.json';
import planEn from '../fixtures/chat-completion-plan-en.json';
import contradictionZhBefore from '../fixtures/chat-completion-contradiction-zh-before.json';
import contradictionZh from '../fixtures/chat-completion-contradiction-zh.json';
import contradictionZhDoctor from '../fixtures/chat-completion-contradiction-zh-doctor.json';
import contradictionEnBefore from '../fixtures/chat-completion-contradiction-en-before.json';
import contradictionEn from '../fixtures/chat-completion-contradiction-en.json';
import contradictionEnActually from '../fixtures/chat-completion-contradiction-en-actually.json';

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
  // Prompt 5: what is true now (constraints, scopes, favourites, changes across sessions, contradictions).
  constraintsZh: { text: '我女儿对花生过敏，我老婆吃素。我有高血压，也不吃香菜。我妈妈坐轮椅。', response: constraintsZh },
  constraintsEn: {
    text: "My daughter is allergic to peanuts and my wife is vegetarian. I have asthma, I don't eat cilantro, and my mother uses a wheelchair.",
    response: constraintsEn,
  },
  scopeZh: { text: '这两天在杭州出差，这周先别给我推荐新课程。这次报告先用简版模板。从今天起我不喝咖啡。', response: scopeZh },
  scopeEn: {
    text: "I'm in Berlin this week for a conference. For this trip I'm only packing a carry-on. Use the staging database for this task. From today on I'm vegan.",
    response: scopeEn,
  },
  scopeInvalid: { text: 'Here is what I have planned.', response: scopeInvalid },
  favouriteZh: { text: '乌龙茶是我最爱的茶', response: favouriteZh },
  favouriteHabitZh: { text: '我平时最常喝的就是乌龙茶', response: favouriteHabitZh },
  likingZh: { text: '我喜欢喝乌龙茶', response: likingZh },
  favouriteEn: { text: 'Window seats are my favourite when I fly, and Neovim is my editor of choice.', response: favouriteEn },
  likingEn: { text: 'I really love window seats', response: likingEn },
  changeZhBefore: { text: '我在阿里巴巴工作，住在杭州', response: changeZhBefore },
  changeZh: { text: '我已经搬到上海了，现在在字节跳动工作，以后快递寄到上海市浦东新区世纪大道100号', response: changeZh },
  changeEnBefore: { text: 'I work at Stripe and I live in Porto', response: changeEnBefore },
  changeEn: { text: 'I moved to Lisbon and I work at Google now', response: changeEn },
  planZhBefore: { text: '我喜欢高热量的饮食方案', response: planZhBefore },
  planZh: { text: '我改主意了，我要低卡方案', response: planZh },
  planEnBefore: { text: 'I prefer a high-calorie meal plan', response: planEnBefore },
  planEn: { text: "I've changed my mind, I want a low-calorie plan", response: planEn },
  contradictionZhBefore: { text: '我对青霉素过敏', response: contradictionZhBefore },
  contradictionZh: { text: '我可以用青霉素', response: contradictionZh },
  contradictionZhDoctor: { text: '医生说我其实对青霉素不过敏，可以用青霉素', response: contradictionZhDoctor },
  contradictionEnBefore: { text: "I'm allergic to penicillin", response: contradictionEnBefore },
  contradictionEn: { text: 'I can take penicillin now', response: contradictionEn },
  contradictionEnActually: { text: 'Actually I can take penicillin, I am not allergic to it', response: contradictionEnActually },
} as const;

interface ChatBody {
  model?: string;
  messages: { role: string; content: string }[];
  temperature?: number;
  response_format?: { type: string; json_schema?: { name: string; strict: boolean; schema: unknown } };
}
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
