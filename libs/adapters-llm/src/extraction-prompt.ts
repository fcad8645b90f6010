import { MEMORY_KINDS, type MemoryKind } from '@engram/contracts';
import type { ExtractionInput } from '@engram/domain';

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
 * the one-off request it was said beside, see the extraction decider).
 */
export const PROMPT_VERSION = 4;

/**
 * The system prompt. It carries the rules that make extracted items mergeable over time (one fact
 * per item, an English attribute slug shared by both languages) and the rules that keep memory
 * clean (no temporary states, no one-off requests, the user's own language in `content`).
 */
export const EXTRACTION_SYSTEM_PROMPT = `You extract long-term memories from one conversation turn for a memory service.
The turn may be in Chinese, English or both. Return JSON that matches the given schema: {"items": [...]}.

Rules:
1. One fact per item. Split a turn that states several facts into several items; never combine two facts in one item.
2. Keep only what stays true beyond this conversation: preferences and habits, dislikes and prohibitions, identity and profile (name, job, employer, location, family), budgets, schedules and deadlines, decisions, tasks and their progress, facts about the user's work, projects and tools, and standing rules for how the assistant should act.
3. Drop temporary states and one-off requests: moods and feelings of the moment ("I'm tired today", "今天好累"), what the user is doing right now, greetings and thanks, questions, and requests that only concern this moment ("what's the weather today", "帮我看看这家店的营业时间"). A turn with nothing durable returns {"items": []}.
4. "content" is one self-contained sentence stating the fact, written in the language the user wrote in (Chinese stays Chinese, English stays English). Never translate it. Keep names, numbers, products and dates exactly as written, and name the subject ("用户…", "The user…").
5. "kind" is one of: preference (likes, dislikes, habits, prohibitions), fact (facts about the world of the user: their stack, their team, their projects), task (something to do, or progress on it), decision (a choice that was made), profile (identity: name, role, employer, location, family), procedure (a standing rule the user sets for how the assistant should act from now on: "以后报价先给区间再给明细", "always answer in English", "别用表情包", "代码示例用 TypeScript").
6. "subject" is whose fact it is: "user" for the person writing a user turn, "assistant" for the assistant itself, or the name of another person exactly as written ("Alice", "老王").
7. "attribute" is what the fact is about, as a short lowercase English slug with underscores ("editor", "database", "budget", "weekly_meeting", "employer", "diet"). Use the same slug whatever the language of the turn: "我喜欢用 VS Code" and "I prefer VS Code" both use "editor". Subject and attribute together identify a fact over time: a new value for the same subject and attribute replaces the old one.
8. "value" is the fact's value, short, in the user's wording ("VS Code", "五万", "every Wednesday 14:00").
9. "entities" lists the named things the item mentions (products, companies, people, places), as written.
10. "confidence" (0 to 1): how certain it is that the user stated this fact (1 explicit, 0.5 implied). "importance" (0 to 1): how useful it is for future conversations (identity and hard constraints high, passing preferences lower; said with "记住", "永远", "绝对", "以后都", "always", "never forget": higher). Words that only stress a statement never change its subject: "这条必须永远记住：我女儿对花生过敏" is the daughter's allergy.
11. "operation" is "assert" for a new or changed fact, "retract" when the user says a fact is no longer true or asks to forget it ("忘掉我之前说的喜欢吃榴莲", "forget that I like durian", "that's no longer true"). A correction ("不是三万，是五万", "I meant Friday") is an "assert" of the corrected value under the same attribute. When a retraction does not say what it refers to, use the attribute "@last".
12. "corrects" is true when the item corrects or replaces something said before: "不对，改成9点", "no, make it 10", "我改主意了，我要低卡方案", "…改成…", "不是MySQL，是PostgreSQL", "actually, …", and forget requests; false otherwise. A correction that does not name what it corrects ("不对，改成9点") uses the attribute "@last" and only the new value ("9点"): the memory service finds what it answers. An amount is a budget only when the sentence is about money ("我的收货地址改成世纪大道100号" is an address).
13. A procedure has subject "user" and the attribute "procedure:<topic>", the topic a short English slug of what the rule governs, the same for every rule on it whatever the language: "response_language" (the language of answers), "emoji", "code_examples", "quote", "length", "format", "tone", or another slug. A later rule on the same topic replaces the earlier one ("以后用中文回答" after "always answer in English": both "procedure:response_language"). Its "value" is the rule in the user's words. An instruction for this answer only ("这个问题用英文回答", "answer this one in English") is not a procedure, and neither are the user's own habits ("I never use emojis myself" is a preference).
14. Text such as [PHONE], [EMAIL] or [CARD] is a masked secret: never guess what it hides, and do not make a memory out of it alone.`;

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
        required: ['kind', 'subject', 'attribute', 'value', 'content', 'entities', 'confidence', 'importance', 'operation', 'corrects'],
        properties: {
          kind: { type: 'string', enum: [...LLM_ITEM_KINDS] },
          subject: { type: 'string', description: '"user", "assistant", or a named person as written.' },
          attribute: { type: 'string', description: 'Short lowercase English slug shared across languages, e.g. "editor", "budget".' },
          value: { type: 'string', description: "The fact's value in the user's wording." },
          content: { type: 'string', description: "One self-contained sentence in the user's language." },
          entities: { type: 'array', items: { type: 'string' }, description: 'Named things mentioned, as written.' },
          confidence: { type: 'number', description: '0 to 1.' },
          importance: { type: 'number', description: '0 to 1.' },
          operation: { type: 'string', enum: ['assert', 'retract'] },
          corrects: { type: 'boolean', description: 'True when it corrects or replaces something said before (see rule 12).' },
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
