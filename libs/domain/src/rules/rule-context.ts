import type { MemoryKind } from '@engram/contracts';
import { findCue } from '../text/cue-matching';
import { LAST_MENTIONED } from '../extraction/extraction.strategy';
import {
  amountToNumber,
  canonicalProduct,
  extractAmount,
  extractDate,
  extractProperNouns,
  extractQuoted,
  extractRecurrence,
  findCatalog,
  isTimeOfDay,
  stripEdges,
  uniqueCaseless,
} from '../text/text-values';
import type { Clause } from './clauses';
import { alternation } from './patterns';
import type { RuleExtractorConfig } from './rule-extractor.config';

/** What a rule found in a clause, before it becomes an item (`ClauseReader.toDraft`). */
export interface Finding {
  readonly kind: MemoryKind;
  readonly attribute: string;
  readonly value: string;
  readonly confidence: number;
  readonly importance?: number;
  readonly operation?: 'assert' | 'retract';
  readonly subject?: string;
  readonly entities?: readonly string[];
  /** Set by the correction rules: `named` when the finding names what it corrects, `open` when not. */
  readonly correction?: 'named' | 'open';
  /** A decision that only points at what was just proposed ("就按这个方案来", "let's go with that"): see `acceptedProposal`. */
  readonly accepts?: boolean;
  /** Search keys the rule adds to its attribute's words (never shown). */
  readonly keys?: readonly string[];
}

/** A rule of a family: what it finds in one clause, if anything. */
export type Rule = (clause: Clause, rules: RuleContext) => Finding[] | Finding | null;

const IMPORTANCE: Readonly<Record<MemoryKind, number>> = {
  profile: 0.9,
  decision: 0.8,
  task: 0.7,
  insight: 0.7,
  procedure: 0.85,
  summary: 0.5,
  fact: 0.6,
  preference: 0.6,
  episode: 0.3,
};

/**
 * What every rule family shares: the configuration (the merged language packs) and the readings
 * of words several families need: attributes, products, values in the shape their attribute
 * expects. `reread` reads a piece of a clause with all the user rules (a forget request's object).
 */
export class RuleContext {
  constructor(
    readonly config: RuleExtractorConfig,
    readonly reread: (text: string) => { readonly clause: Clause; readonly findings: Finding[] } | null,
  ) {}

  /** "我们", "we" at the front of a phrase. */
  get firstPerson(): RegExp {
    return alternation(this.config.words.firstPerson, '^(?:…)\\s*', 'iu');
  }

  findAttribute(text: string): { slug: string; index: number; end: number } | null {
    let best: { slug: string; index: number; end: number } | null = null;
    for (const [slug, words] of Object.entries(this.config.words.attributes)) {
      const m = findCue(text, words);
      if (m && (!best || m.index < best.index || (m.index === best.index && m.end > best.end))) {
        best = { slug, index: m.index, end: m.end };
      }
    }
    return best;
  }

  productCategory(text: string): string | null {
    return findCatalog(text, this.config.catalog)[0]?.entry.category ?? null;
  }

  /**
   * The products a verb takes as its object: the first one right after it and those joined to it
   * ("用 NestJS 和 MongoDB"). In "决定用 Debezium 读 Oracle 的 LogMiner", Oracle is what is read, not
   * what is used, so it is not the database.
   */
  objectProducts(rest: string): ReturnType<typeof findCatalog> {
    const joins = alternation(this.config.words.productJoins, '^[\\s,，、+&/]*(?:(?:…)\\s*)*$', 'iu');
    const objects: ReturnType<typeof findCatalog> = [];
    let at = 0;
    for (const product of findCatalog(rest, this.config.catalog)) {
      if (!joins.test(rest.slice(at, product.index))) break;
      objects.push(product);
      at = product.end;
    }
    return objects;
  }

  /** What a bare value is about, from its shape: 五万 → budget, Kafka → message_queue, 周五 → deadline. */
  inferAttribute(raw: string, money: boolean): string | null {
    // "改成周一三五晚上": a new schedule for whatever schedule was said last (the resolver finds it by shape).
    if (extractRecurrence(raw)) return LAST_MENTIONED;
    if (money && extractAmount(raw)) return 'budget';
    const product = this.productCategory(raw);
    if (product) return product;
    return extractDate(raw) ? 'deadline' : null;
  }

  /** The value in the shape its attribute expects, canonical where a product is known. */
  valueFor(attribute: string, raw: string, money = true): string {
    if (attribute === LAST_MENTIONED) {
      return extractRecurrence(raw)?.value ?? (money ? extractAmount(raw) : null) ?? extractDate(raw) ?? this.clean(raw);
    }
    if (attribute === 'budget') return extractAmount(raw) ?? this.clean(raw);
    if (attribute === 'deadline' || attribute.startsWith('deadline:')) return extractDate(raw) ?? this.clean(raw);
    if (attribute === 'weekly_meeting' || attribute === 'standup') {
      return extractRecurrence(raw)?.value ?? extractDate(raw) ?? this.clean(raw);
    }
    const products = findCatalog(raw, this.config.catalog);
    const fitting = products.find((p) => p.entry.category === attribute || `preferred_${p.entry.category}` === attribute);
    if (fitting) return fitting.entry.name;
    return canonicalProduct(this.clean(raw), this.config.catalog);
  }

  clean(raw: string): string {
    return stripEdges(raw, this.config.words.leadingFillers, this.config.words.trailingParticles);
  }

  importanceOf(finding: Finding): number {
    return finding.importance ?? this.config.attributeImportance[finding.attribute] ?? IMPORTANCE[finding.kind];
  }

  kindOf(attribute: string, fallback: MemoryKind): MemoryKind {
    return this.config.attributeKinds[attribute] ?? fallback;
  }

  hasRoleSuffix(text: string): boolean {
    return findCue(text, this.config.identity.roleSuffixes) !== null;
  }

  isNotEntity(word: string): boolean {
    return this.config.words.notEntities.some((w) => w.toLowerCase() === word.toLowerCase());
  }

  /** Known products (canonical names), quoted titles and proper nouns of a text: what it is found by besides its words. */
  entities(content: string, extra: readonly string[]): string[] {
    const products = findCatalog(content, this.config.catalog).map((p) => p.entry.name);
    return uniqueCaseless([
      ...extra,
      ...products,
      ...extractQuoted(content),
      ...extractProperNouns(content, this.config.words).filter(
        (noun) => !products.some((p) => p.toLowerCase() === noun.toLowerCase()) && !content.includes(`[${noun}]`),
      ),
    ]);
  }
}

/** Whether a bare value has a shape a resolver can match (amount, schedule, date, time) or is words. */
export function valueShapeOf(value: string): 'text' | 'shaped' {
  const bare = value.trim();
  if (amountToNumber(bare) !== null || extractRecurrence(bare)?.value === bare || extractDate(bare) === bare || isTimeOfDay(bare))
    return 'shaped';
  return 'text';
}
