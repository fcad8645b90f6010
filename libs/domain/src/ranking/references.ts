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
 * The question, plus the words its referents are found by that it does not hold already: the
 * attribute words their turns' episodes are keyed by (`REFERENT_ATTRIBUTES`) and the words their
 * lines hold (`ReferenceCues.keys`), of the families it points at. "就按上次说的办吧" names nothing a
 * plan says, so without them the index would find nothing. Unchanged when it points back at nothing.
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
 * are none: an episode stands for its turn's referents (`episodeReferentFamilies`).
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
 * The rule families' attributes that make an item a referent, by their first word ("decision:…",
 * "recommendation:…", "note:…"): language-neutral slugs. An episode's keys begin with them, one key
 * per fact read from its turn (`factKeys`, extraction/episodes.ts: "decision go with postgres"), so
 * a reference finds the episode of the turn that decided, recommended or noted something by them —
 * the turn whole, and without a word of it indexed for this.
 */
export const REFERENT_ATTRIBUTES: Readonly<Record<ReferentFamily, readonly string[]>> = {
  plan: ['decision', 'task'],
  recommendation: ['recommendation', 'promise', 'conclusion'],
  remembered: ['note'],
};

/**
 * The families an episode stands for: those of the facts read from its turn, by the first word of
 * its keys. (The last key may be the turn before it, `previousText`: one that opens with "Note …" or
 * "Decision …" reads as a fact's key too.)
 */
export function episodeReferentFamilies(episode: Pick<MemoryRecord, 'kind' | 'keys'>): ReferentFamily[] {
  if (episode.kind !== 'episode') return [];
  const heads = new Set((episode.keys ?? []).map((key) => key.trim().split(/\s+/u)[0]?.toLowerCase() ?? ''));
  return REFERENT_ATTRIBUTES_FAMILIES.filter((family) => REFERENT_ATTRIBUTES[family].some((head) => heads.has(head)));
}

const REFERENT_ATTRIBUTES_FAMILIES = Object.keys(REFERENT_ATTRIBUTES) as ReferentFamily[];

/** What a reference is expanded by: its families' attribute words, and the words their lines hold in every language. */
function keysOf(families: readonly ReferentFamily[], packs: readonly QueryLanguagePack[]): string[] {
  return [
    ...new Set(families.flatMap((family) => [...REFERENT_ATTRIBUTES[family], ...packs.flatMap((pack) => pack.references.keys[family])])),
  ];
}
