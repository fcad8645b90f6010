import type { MemoryRecord } from '@engram/contracts';
import { hasCue } from '../text/cue-matching';
import { tokenize } from '../text/tokenizer';
import { defaultQueryLanguagePacks, REFERENT_FAMILIES, type QueryLanguagePack, type ReferentFamily } from './query-understanding.config';

/**
 * References: a question that points back at something said in an earlier conversation — "就按上次
 * 说的办吧", "Remind me of the plan we discussed", "我之前让你记的那个配置项是什么", "那个方案后来怎么样了".
 * What it points at is a *referent*: a decision or plan, what the assistant recommended, or what
 * the user asked to remember, read from the record itself (`referentFamiliesOf`), so it holds
 * for every extraction strategy and for imports. Ranking steers such a question to the latest
 * referent that matches it (ranking.ts), and a follow-up ("后来怎么样了") to what was said after it
 * (`followUpsOf`, recall-pipeline.ts).
 */
export interface ReferenceQuestion {
  /** What it points back at: the families it names ("那个方案": plan), or all of them. */
  readonly families: readonly ReferentFamily[];
  /** It asks what came of it ("后来怎么样了", "how did it go"). */
  readonly followUp: boolean;
}

/**
 * What the user asked to remember: the rules give "记住…", "remember that…" items this confidence
 * or more (docs/memory-model.md §2), and nothing else they read from conversation but allergies,
 * which are pinned (never ranked).
 */
export const REMEMBERED_CONFIDENCE = 0.9;

/** Null when the question points back at nothing. */
export function referenceAskedFor(
  query: string,
  packs: readonly QueryLanguagePack[] = Object.values(defaultQueryLanguagePacks),
): ReferenceQuestion | null {
  const text = query.normalize('NFKC').toLowerCase();
  const followUp = packs.some((pack) => pack.references.followUp.some((pattern) => compiled(pattern).test(text)));
  const back = packs.some((pack) => pack.references.back.some((pattern) => compiled(pattern).test(text)));
  if (!back && !followUp) return null;
  const named = REFERENT_FAMILIES.filter((family) => packs.some((pack) => hasCue(text, pack.references.families[family])));
  return { families: named.length > 0 ? named : [...REFERENT_FAMILIES], followUp };
}

const patterns = new Map<string, RegExp>();

function compiled(source: string): RegExp {
  let re = patterns.get(source);
  if (!re) {
    re = new RegExp(source, 'iu');
    patterns.set(source, re);
  }
  return re;
}

/**
 * The question, plus the words its referents are found by (`ReferenceCues.keys` of the families it
 * points at) that it does not hold already: "就按上次说的办吧" names nothing a plan says, so without
 * them the index would find nothing. Unchanged when it points back at nothing.
 */
export function expandReference(query: string, packs: readonly QueryLanguagePack[] = Object.values(defaultQueryLanguagePacks)): string {
  const reference = referenceAskedFor(query, packs);
  if (!reference) return query;
  const held = new Set(tokenize(query));
  const extra = keysOf(reference.families, packs).filter((word) => tokenize(word).some((term) => !held.has(term)));
  return extra.length === 0 ? query : `${query} ${extra.join(' ')}`;
}

/**
 * The families a memory may be pointed back at as: what the assistant said it recommends, promises
 * or concludes (`recommendation`), a decision or a plan (`plan`), what the user asked to remember
 * (`remembered`, `REMEMBERED_CONFIDENCE`). Episodes, summaries, insights and the user's rules
 * are none: an episode stands for its turn's referents through ranking (`referentTurns`).
 */
export function referentFamiliesOf(memory: Pick<MemoryRecord, 'kind' | 'subject' | 'confidence'>): ReferentFamily[] {
  if (memory.kind === 'episode' || memory.kind === 'summary' || memory.kind === 'insight' || memory.kind === 'procedure') return [];
  if (memory.subject === 'assistant') return ['recommendation'];
  const families: ReferentFamily[] = [];
  if (memory.kind === 'decision' || memory.kind === 'task') families.push('plan');
  if (memory.confidence >= REMEMBERED_CONFIDENCE) families.push('remembered');
  return families;
}

/**
 * The words a decision or a recommendation is found by besides its own (see `ReferenceCues.keys`),
 * every language's; none for other memories. Not for a task ("I'm working on my screenplay"): what
 * the user is doing is found by its own words, and a key on every task lengthened thousands of
 * LoCoMo's memories for nothing (recall@10 0.7658 → 0.7645). Not for what the user asked to
 * remember: its content holds the words it was asked with (the rules keep "记住…", "remember that…"
 * in it), and an LLM's explicit facts reach the same confidence, so keying them would make
 * "remember" a word of every fact.
 */
export function referenceKeysOf(
  memory: Pick<MemoryRecord, 'kind' | 'subject' | 'confidence'>,
  packs: readonly QueryLanguagePack[] = Object.values(defaultQueryLanguagePacks),
): string[] {
  const families = referentFamiliesOf(memory).filter(
    (family) => family === 'recommendation' || (family === 'plan' && memory.kind === 'decision'),
  );
  return families.length === 0 ? [] : keysOf(families, packs);
}

function keysOf(families: readonly ReferentFamily[], packs: readonly QueryLanguagePack[]): string[] {
  return [...new Set(families.flatMap((family) => packs.flatMap((pack) => pack.references.keys[family])))];
}
