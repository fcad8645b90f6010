import { findCue } from '../text/cue-matching';
import { slugify, trimPunctuation } from '../text/text-values';
import type { Clause } from './clauses';
import { alternation } from './patterns';
import type { Finding, RuleContext } from './rule-context';
import type { RuleExtractorConfig } from './rule-extractor.config';

/**
 * The procedure family: "以后报价先给区间再给明细", "always answer in English", "别用表情包", "代码示例用
 * TypeScript": a standing rule for the assistant, kind `procedure`, attribute `procedure:<topic>` so a
 * later rule on the same topic ("以后用中文回答") supersedes it. Tried first: "代码示例改成 Python" is a
 * new rule, not a new programming language of the user's. Cues: `procedures` of the language packs.
 */
export function procedure(c: Clause, rules: RuleContext): Finding | null {
  if (c.subject !== 'user') return null;
  const found = procedureOf(c.body, rules.config);
  if (!found) return null;
  const value = trimPunctuation(c.body);
  return {
    kind: 'procedure',
    attribute: `procedure:${found.topic ?? slugify(value)}`,
    value,
    confidence: 0.85,
  };
}

/** Whether a clause is a rule for the assistant, and the topic it is about (null: none named). */
export function procedureOf(body: string, config: RuleExtractorConfig): { topic: string | null } | null {
  const cues = config.procedures;
  const text = trimPunctuation(body);
  if (findCue(text, cues.oneOff)) return null;
  // "我不用表情包", "I always answer emails at night": the user's own habits, not the assistant's rules.
  const aboutSelf = alternation(cues.selfOpeners, '^(?:…)', 'iu');
  if (aboutSelf.test(text) && !findCue(text, cues.addressing)) return null;
  const topic = procedureTopic(text, config);
  const response = findCue(text, cues.responses);
  if (!topic && !response) return null;
  const instructs = response !== null || findCue(text, cues.actions) !== null;
  const standing = findCue(text, cues.standing) !== null;
  const ask = findCue(text, cues.asks) !== null || findCue(text, cues.addressing) !== null;
  // "用中文回答", "use TypeScript for code examples": an imperative naming a topic.
  const imperative = topic !== null && findCue(text, cues.actions)?.index === 0;
  // "代码示例用 TypeScript", "code examples in TypeScript".
  const topicLed = topic?.index === 0 && findCue(text.slice(topic.end).trimStart(), cues.topicInstructions)?.index === 0;
  const rule = imperative || topicLed || (standing && instructs) || (ask && topic !== null && instructs);
  return rule ? { topic: topic?.slug ?? null } : null;
}

/** The topic named first (the longest word when two start at the same place). */
function procedureTopic(text: string, config: RuleExtractorConfig): { slug: string; index: number; end: number } | null {
  let best: { slug: string; index: number; end: number } | null = null;
  for (const [slug, words] of Object.entries(config.procedures.topics)) {
    const m = findCue(text, words);
    if (m && (!best || m.index < best.index || (m.index === best.index && m.end > best.end))) best = { slug, index: m.index, end: m.end };
  }
  return best;
}
