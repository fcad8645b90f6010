import { MEMORY_KINDS, type MemoryKind } from '@engram/contracts';
import { TIME_SCOPES, type ExtractionInput } from '@engram/domain';

/**
 * Whether an LLM may return each kind: episodes, insights and summaries are derived elsewhere,
 * never extracted. Every kind is named, so a new kind is a decision here (the compiler asks).
 */
const EXTRACTED_BY_LLM = {
  preference: true,
  fact: true,
  task: true,
  decision: true,
  profile: true,
  episode: false,
  insight: false,
  procedure: true,
  summary: false,
} as const satisfies Readonly<Record<MemoryKind, boolean>>;

export type LlmItemKind = { [K in MemoryKind]: (typeof EXTRACTED_BY_LLM)[K] extends true ? K : never }[MemoryKind];

/** The kinds an LLM may return, in the contracts' order. */
export const LLM_ITEM_KINDS: readonly LlmItemKind[] = MEMORY_KINDS.filter((kind): kind is LlmItemKind => EXTRACTED_BY_LLM[kind]);

/**
 * Bumped whenever the prompt, the schema or what extraction makes of the answer changes: it is part
 * of the extractor version (4: a user's preference, profile fact or procedure no longer expires with
 * the one-off request it was said beside, see the extraction decider; 5: standing constraints and
 * `avoid`, favourites keyed as likings, changes of mind across sessions on the standing fact's
 * attribute, contradictions retracted, and a time scope per item; 6: a constraint said not to hold is
 * denied — asserted with the value "none" on its own attribute — not retracted, so the resolver keeps
 * the newer statement current and notes the contradiction, as it does for the rules).
 */
export const PROMPT_VERSION = 6;

/**
 * The time scopes the model may give an item: none (it holds until changed) or one of the domain's
 * (`TIME_SCOPES`: the same scopes, and lengths, as the rules read from words).
 */
export const LLM_SCOPES = ['none', ...TIME_SCOPES] as const;

/**
 * The system prompt. It carries the rules that make extracted items mergeable over time (one fact
 * per item, an English attribute slug shared by both languages, fixed names for standing facts, the
 * families of constraints and likings keyed by their thing) and the rules that keep memory clean (no
 * moods of the moment, no one-off requests, a time scope for what holds only a while, the user's own
 * language in `content`). The conventions are the rule extractor's (docs/memory-model.md §2), so both
 * strategies key the same fact the same way.
 */
export const EXTRACTION_SYSTEM_PROMPT = `You extract long-term memories from one conversation turn for a memory service.
The turn may be in Chinese, English or both. Return JSON that matches the given schema: {"items": [...]}.

Rules:
1. One fact per item. Split a turn that states several facts into several items; never combine two facts in one item.
2. Keep what stays true beyond this conversation: preferences and habits, dislikes and prohibitions, identity and profile (name, job, employer, location, family), standing constraints of the user and of the people they speak of (allergies, diets, health conditions, accessibility needs, foods or drinks someone does not take), budgets, schedules and deadlines, decisions, tasks and their progress, facts about the user's work, projects and tools, and standing rules for how the assistant should act. Keep also what the turn says holds for a stated while (today, these few days, this week, this trip, this task), with its scope (rule 18).
3. Drop temporary states and one-off requests: moods and feelings of the moment ("I'm tired today", "今天好累"), what the user is doing right now, greetings and thanks, questions, and requests that only concern this moment ("what's the weather today", "帮我看看这家店的营业时间"). What holds for a stated while and matters during it ("这周先别给我推荐新课程", "I'm in Berlin this week") is kept, with its scope (rule 18). A turn with nothing durable returns {"items": []}.
4. "content" is one self-contained sentence stating the fact, written in the language the user wrote in (Chinese stays Chinese, English stays English). Never translate it. Keep names, numbers, products and dates exactly as written, and name the subject ("用户…", "The user…", "用户的女儿…").
5. "kind" is one of: preference (likes, dislikes, habits, prohibitions, foods or drinks not taken), fact (facts about the world of the user: their stack, their team, their projects), task (something to do, or progress on it), decision (a choice that was made), profile (identity: name, role, employer, location, family; and standing constraints: allergies, diets, health conditions, accessibility needs), procedure (a standing rule the user sets for how the assistant should act from now on: "以后报价先给区间再给明细", "always answer in English", "别用表情包", "代码示例用 TypeScript").
6. "subject" is whose fact it is: "user" for the person writing a user turn, "assistant" for the assistant itself; a person the user names by their relation to them is that relation as one English word, whatever the language: "daughter", "son", "wife", "husband", "mother", "father", "partner", "boss" ("我女儿对花生过敏" → "daughter", "my mom uses a wheelchair" → "mother"); anyone else is their name exactly as written ("Alice", "老王").
7. "attribute" is what the fact is about, as a short lowercase English slug with underscores ("editor", "database", "budget", "weekly_meeting", "employer"). Use the same slug whatever the language of the turn: "我喜欢用 VS Code" and "I prefer VS Code" both use "editor". Subject and attribute together identify a fact over time: a new value for the same subject and attribute replaces the old one. These facts always use these names: "name", "role" (job title), "employer" (the organisation the person works for), "location" (the city or place where the person lives), "hometown", "shipping_address" (where deliveries go), "birthday", "editor", "database", "language" (the programming language the user works in), "meal_plan" (the diet plan chosen: "高热量", "低卡"), "budget", "weekly_meeting".
8. "value" is the fact's value, short, in the user's wording ("VS Code", "五万", "every Wednesday 14:00").
9. "entities" lists the named things the item mentions (products, companies, people, places), as written.
10. "confidence" (0 to 1): how certain it is that the user stated this fact (1 explicit, 0.5 implied). "importance" (0 to 1): how useful it is for future conversations (identity and hard constraints high, passing preferences lower; said with "记住", "永远", "绝对", "以后都", "always", "never forget": higher). Words that only stress a statement never change its subject: "这条必须永远记住：我女儿对花生过敏" is the daughter's allergy.
11. "operation" is "assert" for a new or changed fact, "retract" when the user says a fact is no longer true or asks to forget it ("忘掉我之前说的喜欢吃榴莲", "forget that I like durian", "that's no longer true"); a standing constraint said not to hold is rule 17. A correction ("不是三万，是五万", "I meant Friday") is an "assert" of the corrected value under the same attribute. When a retraction does not say what it refers to, use the attribute "@last".
12. "corrects" is true when the item corrects or replaces something said before: "不对，改成9点", "no, make it 10", "我改主意了，我要低卡方案", "…改成…", "不是MySQL，是PostgreSQL", "actually, …", forget requests, and the changes and contradictions of rules 16 and 17; false otherwise. A correction that does not name what it corrects ("不对，改成9点", "no, make it 10") uses the attribute "@last" and only the new value ("9点"): the memory service finds what it answers. An amount is a budget only when the sentence is about money ("我的收货地址改成世纪大道100号" is an address).
13. A procedure has subject "user" and the attribute "procedure:<topic>", the topic a short English slug of what the rule governs, the same for every rule on it whatever the language: "response_language" (the language of answers), "emoji", "code_examples", "quote", "length", "format", "tone", or another slug. A later rule on the same topic replaces the earlier one ("以后用中文回答" after "always answer in English": both "procedure:response_language"). Its "value" is the rule in the user's words. An instruction for this answer only ("这个问题用英文回答", "answer this one in English") is not a procedure, and neither are the user's own habits ("I never use emojis myself" is a preference).
14. Standing constraints are kind "profile", for whoever they concern (rule 6), the attribute a family and the thing it is about, the thing written as in the turn (not translated): an allergy is "allergy:<what>" with the value <what> ("我对花生过敏" → "allergy:花生" = "花生", "she's allergic to shellfish" → "allergy:shellfish"); a diet the person keeps is "diet:<diet>" ("我吃素" → "diet:吃素" = "吃素", "my wife is vegetarian" → "diet:vegetarian"); a health condition is "health:<condition>" ("我有高血压" → "health:高血压", "I have asthma" → "health:asthma"); an accessibility need is "accessibility:<need>" ("我妈妈坐轮椅" → "accessibility:轮椅", "I'm colour blind" → "accessibility:colour blind"). Only what is said of someone counts: "a vegetarian restaurant" and "I'm not vegetarian" are none.
15. A liking, dislike or habit of a thing is kind "preference" with the attribute "preference:<thing>", the thing in the turn's words without verb, time or condition ("香菜" for "我不吃香菜", "coffee" for "I never drink coffee after 3pm"), and the value exactly one of: "like" (likes it, loves it, it is a favourite), "dislike" (dislikes or hates it), "avoid" (does not or cannot eat or drink it: "我不吃香菜", "我老婆一点辣都不能吃", "I don't drink", "I can't eat gluten": a standing constraint), "habit" ("我习惯早上跑步"); or "none" when it is taken again after it was avoided (rule 17). A favourite said the other way round or in other words is the same liking, keyed the same: "乌龙茶是我最爱的茶", "我平时最常喝的就是乌龙茶" and "我喜欢喝乌龙茶" are all "preference:乌龙茶" = "like"; "Window seats are my favourite" and "I really love window seats" are both "preference:window seats" = "like". A choice of the one thing of a kind the user has (an editor, a database, a meal plan) uses that kind's attribute instead: "Neovim is my editor of choice" is "editor" = "Neovim"; "我喜欢高热量的饮食方案" is "meal_plan" = "高热量".
16. A change of mind or of circumstance is a correction whenever and wherever it is said, in another session days later too, with or without a correction word: a new job, city, address, tool, plan or preference ("我已经搬到上海了", "现在在字节跳动工作", "以后快递寄到深圳市南山区…", "I moved to Lisbon", "I work at Google now", "I switched to Neovim", "我改主意了，我要低卡方案") has "corrects" true, the new value, and exactly the attribute the standing fact has (rules 7, 14, 15: "location", "employer", "shipping_address", "editor", "meal_plan", "preference:<thing>"), never "@last": it names what changed, so it replaces the old value.
17. A statement that a standing constraint does not hold, or no longer does, denies it: "我可以用青霉素" (after an allergy to it), "医生说我其实对青霉素不过敏", "I can eat peanuts now", "我现在吃香菜了", "我不吃素了", "my asthma is gone" are "operation" "assert", "corrects" true, the constraint's own attribute ("allergy:青霉素", "allergy:peanuts", "preference:香菜", "diet:吃素", "health:asthma"), the value "none", and a content that says what is true now ("用户可以用青霉素。"). It is not a retraction: the memory service keeps it as what is true now and flags the contradiction until the user confirms it. Only a request to forget ("忘掉我对花生过敏") retracts a constraint.
18. "scope" is how long the item holds when the turn limits it: "day" (today, tonight, right now: "今天", "今晚", "眼下"), "days" (a few days: "这两天", "for a few days"), "week" ("这周", "this week"), "trip" (a trip or a stay: "这次出差", "for this trip"), "task" (the task at hand only: "这次先用0.5g的", "for this task", "just for now"); otherwise "none": standing facts, what starts now and lasts ("从今天起我吃素", "from today on", "以后", "from now on"), and what happened ("我今天入职了", "I moved today"). A scoped item never takes the attribute of a standing fact it only sets aside for a while, or it would replace it: "I'm in Berlin this week" is "whereabouts", not "location"; "use the staging database for this task" is "task_database", not "database".
19. Text such as [PHONE], [EMAIL] or [CARD] is a masked secret: never guess what it hides, and do not make a memory out of it alone.`;

/** The JSON schema of the answer (OpenAI structured outputs, strict: every field required, nothing else). */
export const EXTRACTION_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['items'],
  properties: {
    items: {
      type: 'array',
      description: 'One durable fact per item; empty when the turn states nothing worth remembering.',
      items: {
        type: 'object',
        additionalProperties: false,
        required: [
          'kind',
          'subject',
          'attribute',
          'value',
          'content',
          'entities',
          'confidence',
          'importance',
          'operation',
          'corrects',
          'scope',
        ],
        properties: {
          kind: { type: 'string', enum: [...LLM_ITEM_KINDS] },
          subject: { type: 'string', description: '"user", "assistant", a relation ("daughter", "mother"), or a named person as written.' },
          attribute: {
            type: 'string',
            description:
              'Short lowercase English slug shared across languages ("editor", "employer"), or a family and its thing ("allergy:花生", "preference:coffee").',
          },
          value: { type: 'string', description: "The fact's value in the user's wording." },
          content: { type: 'string', description: "One self-contained sentence in the user's language." },
          entities: { type: 'array', items: { type: 'string' }, description: 'Named things mentioned, as written.' },
          confidence: { type: 'number', description: '0 to 1.' },
          importance: { type: 'number', description: '0 to 1.' },
          operation: { type: 'string', enum: ['assert', 'retract'] },
          corrects: { type: 'boolean', description: 'True when it corrects or replaces something said before (rules 12, 16, 17).' },
          scope: {
            type: 'string',
            enum: [...LLM_SCOPES],
            description: 'How long it holds when the turn limits it (rule 18); "none" otherwise.',
          },
        },
      },
    },
  },
} as const;

export const EXTRACTION_SCHEMA_NAME = 'engram_memory_items';

/** The user message: the turn and what the model needs to read it (who said it, and when). */
export function extractionUserMessage(input: ExtractionInput): string {
  const speaker = input.speaker ? ` (${input.speaker})` : '';
  return [`Role: ${input.role}${speaker}`, `Said at: ${input.occurredAt}`, 'Turn:', '"""', input.text, '"""'].join('\n');
}
