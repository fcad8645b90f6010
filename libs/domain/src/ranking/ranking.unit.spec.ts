import 'reflect-metadata'; // @engram/contracts' validation decorators need it
import type { MemoryKind } from '@engram/contracts';
import type { Lexicon } from '@engram/ports';
import { coverageOf } from './coverage';
import { dropCovered, fuse, rankMemories, usageOf, type FusionScore } from './ranking';
import { defaultRankingConfig as config } from './ranking.config';
import { tokenize } from '../text/tokenizer';
import { memory } from '../testing/fixtures';

const NOW = new Date('2026-12-31T00:00:00.000Z');
const daysAgo = (days: number) => new Date(NOW.getTime() - days * 86_400_000).toISOString();
const top: FusionScore = { rrf: 2 / (config.rrfK + 1) };

function candidate(kind: MemoryKind, ageDays: number, id: string, extra = {}) {
  return {
    memory: memory({
      memoryId: id,
      kind,
      validFrom: daysAgo(ageDays),
      lastSeenAt: daysAgo(ageDays),
      importance: 1,
      confidence: 1,
      ...extra,
    }),
    fusion: top,
  };
}

describe('fuse', () => {
  it('given BM25 and kNN hits, then RRF sums 1/(k + rank) and keeps per-engine ranks and scores', () => {
    const fused = fuse(
      [
        { memoryId: 'a', score: 9 },
        { memoryId: 'b', score: 5 },
      ],
      [
        { memoryId: 'b', score: 0.9 },
        { memoryId: 'c', score: 0.8 },
      ],
      60,
    );
    expect(fused.get('a')).toEqual({ rrf: 1 / 61, bm25Rank: 1, bm25: 9 });
    expect(fused.get('b')).toEqual({ rrf: 1 / 62 + 1 / 61, bm25Rank: 2, bm25: 5, knnRank: 1, cosine: 0.9 });
    expect(fused.get('c')).toEqual({ rrf: 1 / 62, knnRank: 2, cosine: 0.8 });
  });

  it('given hits with equal scores in any order, then ranks are assigned by id (deterministic)', () => {
    const one = fuse(
      [
        { memoryId: 'y', score: 1 },
        { memoryId: 'x', score: 1 },
      ],
      [],
      60,
    );
    const two = fuse(
      [
        { memoryId: 'x', score: 1 },
        { memoryId: 'y', score: 1 },
      ],
      [],
      60,
    );
    expect(one).toEqual(two);
    expect(one.get('x')?.bm25Rank).toBe(1);
  });
});

describe('rankMemories', () => {
  it('given the best possible fusion, fresh, important and certain, then relevance and score are 1', () => {
    const [ranked] = rankMemories([candidate('preference', 0, 'a')], NOW, config);
    expect(ranked.components).toEqual({
      relevance: 1,
      coverage: 1,
      decay: 1,
      importance: 1,
      confidence: 1,
      ageDays: 0,
      usage: 0,
      prior: 0.75,
      steering: 1,
    });
    // Never recalled: the use prior is 0, so the priors' mean is 3/4 and takes 1/4 of their 10% share.
    expect(ranked.score).toBeCloseTo(1 - 0.1 * 0.25, 10);
  });

  it('given a profile fact a year old, then it does not decay', () => {
    expect(rankMemories([candidate('profile', 365, 'a')], NOW, config)[0].components.decay).toBe(1);
  });

  it('given one half-life of age, then the decay is one half (preference 30 days, task 7 days)', () => {
    expect(rankMemories([candidate('preference', 30, 'a')], NOW, config)[0].components.decay).toBeCloseTo(0.5, 10);
    expect(rankMemories([candidate('task', 7, 'a')], NOW, config)[0].components.decay).toBeCloseTo(0.5, 10);
  });

  it('given a task and a preference of the same age, then the task decays faster', () => {
    const ranked = rankMemories([candidate('task', 10, 'task'), candidate('preference', 10, 'pref')], NOW, config);
    expect(ranked.map((r) => r.memory.memoryId)).toEqual(['pref', 'task']);
    expect(ranked[1].components.decay).toBeLessThan(ranked[0].components.decay);
  });

  it('given age from the last mention, then a reinforced old memory counts as fresh', () => {
    const reinforced = candidate('task', 0, 'a', { validFrom: daysAgo(60), lastSeenAt: daysAgo(1) });
    expect(rankMemories([reinforced], NOW, config)[0].components.ageDays).toBeCloseTo(1, 6);
  });

  it('given a memory from the future, then its age clamps to 0', () => {
    expect(rankMemories([candidate('task', -3, 'a')], NOW, config)[0].components.ageDays).toBe(0);
  });

  it("given importance and confidence, then they move the score within the priors' bounded share only", () => {
    const [ranked] = rankMemories([candidate('profile', 0, 'a', { importance: 0, confidence: 0.5 })], NOW, config);
    // prior = mean(decay 1, importance 0, confidence 0.5, use 0) = 0.375; score = 1 × (0.9 + 0.1 × 0.375)
    expect(ranked.components.prior).toBeCloseTo(0.375, 10);
    expect(ranked.score).toBeCloseTo(0.9 + 0.1 * 0.375, 10);
  });

  it('given the least important, least certain, oldest memory that answers, then it still outranks one that answers less', () => {
    const buried = { ...candidate('task', 400, 'answers', { importance: 0, confidence: 0 }), fusion: { rrf: 0, bm25: 10, cosine: 0.5 } };
    const favoured = { ...candidate('profile', 0, 'less', { importance: 1, confidence: 1 }), fusion: { rrf: 0, bm25: 8.5, cosine: 0.5 } };
    expect(rankMemories([favoured, buried], NOW, config).map((r) => r.memory.memoryId)).toEqual(['answers', 'less']);
  });

  it('given a score below the threshold, then the memory is dropped however fresh it is', () => {
    const weak = { ...candidate('profile', 0, 'weak'), fusion: { rrf: 0.04 * (2 / 61) } };
    expect(rankMemories([weak, candidate('profile', 0, 'ok')], NOW, config).map((r) => r.memory.memoryId)).toEqual(['ok']);
  });

  it('given an old memory that answers and a fresh one that barely does, then the old one ranks first (decay is gentle)', () => {
    const old = { ...candidate('task', 70, 'old'), fusion: { rrf: 0, bm25: 8, cosine: 0.6 } };
    const fresh = { ...candidate('task', 0, 'fresh'), fusion: { rrf: 0, bm25: 2, cosine: 0.15 } };
    const ranked = rankMemories([fresh, old], NOW, config);
    expect(ranked.map((r) => r.memory.memoryId)).toEqual(['old', 'fresh']);
    expect(ranked[0].components.decay).toBeLessThan(0.01);
    expect(ranked[0].score).toBeGreaterThan(0.85);
  });

  it('given two equally relevant memories, then the fresher one ranks first (a correction beats the old value)', () => {
    const fusion = { rrf: 0, bm25: 5, cosine: 0.5 };
    const ranked = rankMemories(
      [
        { ...candidate('fact', 60, 'old'), fusion },
        { ...candidate('fact', 1, 'new'), fusion },
      ],
      NOW,
      config,
    );
    expect(ranked.map((r) => r.memory.memoryId)).toEqual(['new', 'old']);
  });

  it('given raw scores, then relevance is BM25 over the best BM25 plus the cosine above its floor', () => {
    const best = { ...candidate('profile', 0, 'best'), fusion: { rrf: 0, bm25: 10, cosine: 1 } };
    const half = { ...candidate('profile', 0, 'half'), fusion: { rrf: 0, bm25: 5 } };
    const noise = { ...candidate('profile', 0, 'noise'), fusion: { rrf: 0, cosine: 0.1 } };
    const ranked = rankMemories([best, half, noise], NOW, config);
    // Without query terms there is no coverage to weigh: (1 × 0.5 + 0.1 × 0) / (1 + 0.1)
    expect(ranked.map((r) => [r.memory.memoryId, r.components.relevance])).toEqual([
      ['best', 1],
      ['half', 0.5 / 1.1],
    ]); // noise: cosine at the floor is worth nothing, so it falls under the threshold
  });

  it('given a question no memory shares terms with or is close to, then nothing is relevant: no memory at all', () => {
    const mango = {
      ...candidate('profile', 0, 'a', { content: '我对芒果过敏', value: '芒果', entities: [] }),
      fusion: { rrf: 0, bm25: 3, cosine: 0.2 },
    };
    expect(rankMemories([mango], NOW, config, { terms: tokenize('What car do I drive?') })).toEqual([]);
  });

  it('given one memory that answers and one that shares no term and is not close, then only the one that answers', () => {
    const unrelated = {
      ...candidate('profile', 0, 'a', { content: '我对芒果过敏', value: '芒果', entities: [] }),
      fusion: { rrf: 0, cosine: 0.3 },
    };
    const related = {
      ...candidate('profile', 0, 'b', { content: '我的血型是 O 型', value: 'O', entities: [] }),
      fusion: { rrf: 0, bm25: 1, cosine: 0.2 },
    };
    const ranked = rankMemories([unrelated, related], NOW, { ...config, threshold: 0 }, { terms: tokenize('我的血型是什么？') });
    expect(ranked.map((r) => r.memory.memoryId)).toEqual(['b']);
  });

  it('given a memory the lexical index matched on what coverage does not count (its speaker), then it is a candidate; one neither leg vouches for is not', () => {
    const answer = {
      ...candidate('episode', 0, 'answer', { content: 'I went to a support group yesterday', value: '', entities: [] }),
      fusion: { rrf: 0, bm25: 5, cosine: 0.6 },
    };
    const bySpeaker = {
      ...candidate('episode', 0, 'by-speaker', { content: 'Thanks, that means a lot!', value: '', entities: [], speaker: 'Caroline' }),
      fusion: { rrf: 0, bm25: 1, cosine: 0.2 },
    };
    const neither = {
      ...candidate('episode', 0, 'neither', { content: 'Bye!', value: '', entities: [] }),
      fusion: { rrf: 0, cosine: 0.2 },
    };
    const query = { terms: tokenize('When did Caroline go to the support group?') };
    expect(coverageOf(query.terms, bySpeaker.memory)).toBe(0);
    const ranked = rankMemories([answer, bySpeaker, neither], NOW, { ...config, threshold: 0 }, query);
    expect(ranked.map((r) => r.memory.memoryId)).toEqual(['answer', 'by-speaker']);
  });

  describe('with a semantic embedder (admit below the gate)', () => {
    const semantic = {
      ...config,
      threshold: 0,
      relevance: { ...config.relevance, cosineFloor: 0.78, cosineGate: 0.88, cosineAdmit: 0.78 },
    };
    const macs = () => ({
      ...candidate('episode', 0, 'macs', { content: "I've always used Macs", value: '', entities: [] }),
      fusion: { rrf: 0, cosine: 0.85 },
    });
    const shop = () => ({
      ...candidate('episode', 0, 'shop', { content: 'I prefer buying from B&H', value: '', entities: [] }),
      fusion: { rrf: 0, bm25: 2, cosine: 0.82 },
    });

    it('given a question one memory shares terms with, then a memory that says it in other words (cosine above the floor) is a candidate too', () => {
      const ranked = rankMemories([macs(), shop()], NOW, semantic, { terms: tokenize('What operating system do I prefer?') });
      expect(ranked.map((r) => r.memory.memoryId).sort()).toEqual(['macs', 'shop']);
    });

    it('given a question no memory shares terms with and none reaches the gate, then nothing, however many are above the floor', () => {
      expect(rankMemories([macs(), shop()], NOW, semantic, { terms: tokenize('Which car do I drive?') })).toEqual([]);
    });

    it('given a question no memory shares terms with but one reaches the gate, then that one and the others above the floor', () => {
      const close = { ...macs(), fusion: { rrf: 0, cosine: 0.9 } };
      const far = { ...shop(), fusion: { rrf: 0, cosine: 0.7 } };
      const ranked = rankMemories(
        [close, far, { ...shop(), memory: { ...shop().memory, memoryId: 'near' }, fusion: { rrf: 0, cosine: 0.8 } }],
        NOW,
        semantic,
        {
          terms: tokenize('Which laptop brand?'),
        },
      );
      expect(ranked.map((r) => r.memory.memoryId)).toEqual(['macs', 'near']);
    });
  });

  it('given an insight and the memories it stands on, then it is as relevant as the best of them and its importance breaks the tie', () => {
    const source = {
      ...candidate('episode', 10, 'source', { importance: 0.4, confidence: 0.7 }),
      fusion: { rrf: 0, bm25: 9, cosine: 0.5 },
    };
    const insight = {
      ...candidate('insight', 10, 'insight', { importance: 0.9, confidence: 0.8, sources: ['source'] }),
      fusion: { rrf: 0, bm25: 3, cosine: 0.4 },
    };
    const ranked = rankMemories([source, insight], NOW, config);
    expect(ranked.map((r) => r.memory.memoryId)).toEqual(['insight', 'source']);
    expect(ranked[0].components.relevance).toBe(ranked[1].components.relevance);
  });

  it('given kNN candidates, then the cosine counts above their median: the farther half gains nothing from the semantic leg', () => {
    const near = { ...candidate('profile', 0, 'near'), fusion: { rrf: 0, cosine: 0.9 } };
    const middle = { ...candidate('profile', 0, 'middle'), fusion: { rrf: 0, cosine: 0.8 } };
    const far = { ...candidate('profile', 0, 'far'), fusion: { rrf: 0, cosine: 0.7 } };
    const relevance = rankMemories([near, middle, far], NOW, { ...config, threshold: 0 }).map((r) => [
      r.memory.memoryId,
      r.components.relevance,
    ]);
    const w = config.relevance!.cosineWeight!; // without BM25 hits or query terms: w · 1 / (1 + w) at most
    expect(relevance).toEqual([
      ['near', w / (config.relevance!.bm25Weight! + w)],
      ['far', 0],
      ['middle', 0],
    ]);
  });

  it('given a query naming the attribute ("which editor" / "用什么编辑器"), then the memory covers it through its attribute', () => {
    const vscode = memory({
      content: 'I prefer VS Code for TypeScript work',
      value: 'VS Code',
      attribute: 'editor',
      entities: ['VS Code'],
    });
    expect(coverageOf(tokenize('which editor does he like'), vscode)).toBe(0.5);
    const postgres = memory({ content: 'PostgreSQL', value: 'PostgreSQL', attribute: 'database', entities: [] });
    expect(coverageOf(tokenize('what database'), postgres)).toBe(1);
  });

  it('given a Chinese question segmented differently from the statement, then coverage still counts the characters', () => {
    const moved = memory({ content: '搬家定在 11 月 8 号周日', value: '', entities: [] });
    expect(coverageOf(tokenize('我是哪天搬的家？'), moved)).toBeGreaterThan(0.3);
  });

  it('given a lexicon, then a term counts when the memory says it in the other language or in other Chinese words', () => {
    const lexicon: Lexicon = {
      id: 'test',
      longestWord: 2,
      sensesOf: (word) => ({ 过敏: [['oversensitive'], ['allergic']], 照片: [['photograph'], ['picture']], 拍照: [['picture']] })[word],
      relatedOf: () => undefined,
    };
    const peanuts = memory({ content: '我对花生过敏', value: '', entities: [] });
    const english = memory({ content: "I'm allergic to peanuts", value: '', entities: [] });
    const photos = memory({ content: '明天要上传商品照片', value: '', entities: [] });
    expect(coverageOf(tokenize('what am I allergic to'), peanuts)).toBe(0);
    expect(coverageOf(tokenize('what am I allergic to'), peanuts, lexicon)).toBe(1);
    expect(coverageOf(['过敏'], english)).toBe(0);
    expect(coverageOf(['过敏'], english, lexicon)).toBe(1);
    expect(coverageOf(['拍照'], photos)).toBe(0);
    expect(coverageOf(['拍照'], photos, lexicon)).toBe(1);
    // English with English: the lexicon changes nothing.
    expect(coverageOf(tokenize('which editor'), english, lexicon)).toBe(coverageOf(tokenize('which editor'), english));
  });

  it('given a thesaurus, then an English term counts when the memory says it in other words or more specifically', () => {
    const lexicon: Lexicon = {
      id: 'test',
      longestWord: 0,
      sensesOf: () => undefined,
      relatedOf: (word) =>
        ({
          physician: { forms: [], same: ['doctor'], broader: [] },
          lands: { forms: ['land'], same: [], broader: ['arrive'] },
          arriv: { forms: ['arrive'], same: [], broader: [] },
        })[word],
    };
    const physician = memory({ content: 'My physician told me to walk more', value: '', entities: [] });
    const flight = memory({ content: 'My flight lands at 6 am', value: '', entities: [] });
    expect(coverageOf(tokenize('what did my doctor say'), physician)).toBe(0);
    expect(coverageOf(tokenize('what did my doctor say'), physician, lexicon)).toBe(0.5);
    expect(coverageOf(tokenize('when do I arrive'), flight, lexicon)).toBe(1);
    // "arrived" is tokenized "arriv": held through its dictionary form.
    expect(coverageOf(tokenize('when have I arrived'), flight, lexicon)).toBe(1);
    expect(coverageOf(tokenize('when have I arrived'), flight)).toBe(0);
  });

  it('given an English question about a Chinese memory, then it is relevant only with the lexicon', () => {
    const lexicon: Lexicon = {
      id: 'test',
      longestWord: 2,
      sensesOf: (word) => (word === '过敏' ? [['oversensitive'], ['allergic']] : undefined),
      relatedOf: () => undefined,
    };
    const peanuts = {
      ...candidate('preference', 1, 'peanuts', { content: '我对花生过敏', value: '', entities: [] }),
      fusion: { rrf: 1 / 61, bm25Rank: 1, bm25: 2 },
    };
    const query = { terms: tokenize('what am I allergic to') };
    expect(rankMemories([peanuts], NOW, config, query)).toEqual([]);
    expect(rankMemories([peanuts], NOW, config, { ...query, lexicon }).map((r) => r.memory.memoryId)).toEqual(['peanuts']);
  });

  it('given equal scores, then ties are broken by memoryId whatever the input order', () => {
    const items = [candidate('profile', 0, 'b'), candidate('profile', 0, 'a'), candidate('profile', 0, 'c')];
    expect(rankMemories(items, NOW, config).map((r) => r.memory.memoryId)).toEqual(['a', 'b', 'c']);
    expect(rankMemories([...items].reverse(), NOW, config).map((r) => r.memory.memoryId)).toEqual(['a', 'b', 'c']);
  });

  it("given the best match in one session, then the rest of that session gains on other sessions' equally weak matches", () => {
    const turn = (session: string, turnId: string, bm25: number, extra = {}) => ({
      memory: memory({
        memoryId: `${turnId}-m`,
        kind: 'episode',
        attribute: `episode:${session}:${turnId}`,
        sourceTurnIds: [turnId],
        validFrom: daysAgo(1),
        lastSeenAt: daysAgo(1),
        ...extra,
      }),
      fusion: { rrf: 0, bm25 },
    });
    const fact = {
      memory: memory({
        memoryId: 'fact-m',
        kind: 'fact',
        attribute: 'pet',
        sourceTurnIds: ['a2'],
        validFrom: daysAgo(1),
        lastSeenAt: daysAgo(1),
      }),
      fusion: { rrf: 0, bm25: 3.8 },
    };
    const candidates = [turn('s1', 'a1', 10), turn('s1', 'a2', 4), turn('s2', 'b1', 4.4), fact];
    const ranked = rankMemories(candidates, NOW, config);
    expect(ranked.map((r) => r.memory.memoryId)).toEqual(['a1-m', 'a2-m', 'fact-m', 'b1-m']);
    const gain = (id: string) => ranked.find((r) => r.memory.memoryId === id)!.components.session;
    expect(gain('a1-m')).toBeCloseTo(0.1, 10); // the best session gains the full weight…
    expect(gain('fact-m')).toBeCloseTo(0.1, 10); // …a fact through its turn's episode…
    expect(gain('b1-m')).toBeCloseTo(
      (0.1 * (ranked.find((r) => r.memory.memoryId === 'b1-m')!.score - gain('b1-m')!)) / (ranked[0].score - 0.1),
      10,
    ); // …another its share
    const without = rankMemories(candidates, NOW, { ...config, sessions: { weight: 0 } });
    expect(without.map((r) => r.memory.memoryId)).toEqual(['a1-m', 'b1-m', 'a2-m', 'fact-m']);
    expect(without.every((r) => r.components.session === undefined)).toBe(true);
  });

  it("given a question asking for a time, then a turn without one keeps `mismatch` of its session's gain, the other speaker's turn all of it", () => {
    const turn = (turnId: string, bm25: number, extra = {}) => ({
      memory: memory({
        memoryId: `${turnId}-m`,
        kind: 'episode',
        attribute: `episode:s1:${turnId}`,
        sourceTurnIds: [turnId],
        validFrom: daysAgo(1),
        lastSeenAt: daysAgo(1),
        ...extra,
      }),
      fusion: { rrf: 0, bm25 },
    });
    const candidates = [
      turn('a1', 10, { content: 'the flight leaves at 20:55' }),
      turn('a2', 9, { content: 'I need a flight', speaker: 'Joanna' }),
      turn('a3', 8, { content: 'at 7:40', speaker: 'Nate' }),
    ];
    const answer = { kind: 'time' as const, shapes: [/\b\d{1,2}:\d{2}\b/u] };
    const ranked = rankMemories(candidates, NOW, config, { answer, speakers: ['Joanna'] });
    const gain = (id: string) => ranked.find((r) => r.memory.memoryId === id)!.components.session!;
    expect(gain('a2-m') / gain('a3-m')).toBeCloseTo(config.steering!.mismatch, 10);
  });

  it('given a retracted memory still in the index, then it is not ranked', () => {
    expect(rankMemories([candidate('profile', 0, 'a', { status: 'retracted' })], NOW, config)).toEqual([]);
  });
});

describe('dropCovered', () => {
  it('given a fact and the episode of the same turn, then only the better ranked one stays', () => {
    const fact = {
      memory: memory({ memoryId: 'fact', sourceTurnIds: ['t1'] }),
      score: 0.9,
      components: { relevance: 0.9, decay: 1, importance: 1, confidence: 1, ageDays: 0, usage: 0, prior: 1, steering: 1 },
    };
    const episode = { ...fact, memory: memory({ memoryId: 'episode', kind: 'episode', sourceTurnIds: ['t1'] }), score: 0.8 };
    const other = { ...fact, memory: memory({ memoryId: 'other', sourceTurnIds: ['t1', 't2'] }), score: 0.7 };
    expect(dropCovered([fact, episode, other]).map((r) => r.memory.memoryId)).toEqual(['fact', 'other']);
  });

  it('given a fact said twice and the episodes of both sayings ranked above it, then the fact takes the first place, once', () => {
    const ranked = (id: string, extra: object, score: number) => ({
      memory: memory({ memoryId: id, ...extra }),
      score,
      components: { relevance: score, decay: 1, importance: 1, confidence: 1, ageDays: 0, usage: 0, prior: 1, steering: 1 },
    });
    const second = ranked('ep-2', { kind: 'episode', content: '乌龙茶是我最爱的茶', sourceTurnIds: ['t2'] }, 0.9);
    const first = ranked('ep-1', { kind: 'episode', content: '我喜欢喝乌龙茶', sourceTurnIds: ['t1'] }, 0.8);
    const other = ranked('other', { kind: 'fact', content: '数据库用 PostgreSQL', sourceTurnIds: ['t3'] }, 0.75);
    const fact = ranked('oolong', { kind: 'preference', content: '我喜欢喝乌龙茶', sourceTurnIds: ['t1', 't2'] }, 0.7);
    expect(dropCovered([second, first, other, fact]).map((r) => r.memory.memoryId)).toEqual(['oolong', 'other']);
  });

  it('given a long turn that also said other things, then its episode keeps its own words beside the restated fact', () => {
    const ranked = (id: string, extra: object, score: number) => ({
      memory: memory({ memoryId: id, ...extra }),
      score,
      components: { relevance: score, decay: 1, importance: 1, confidence: 1, ageDays: 0, usage: 0, prior: 1, steering: 1 },
    });
    const long = 'We went hiking at Yosemite with my sister last weekend and it was amazing, I love hiking';
    const episode = ranked('ep-1', { kind: 'episode', content: long, sourceTurnIds: ['t1'] }, 0.9);
    const fact = ranked('hiking', { kind: 'preference', content: 'I love hiking', sourceTurnIds: ['t1', 't2'] }, 0.7);
    expect(dropCovered([episode, fact]).map((r) => r.memory.memoryId)).toEqual(['ep-1', 'hiking']);
  });
});

describe('use by recall (access stats) in ranking', () => {
  const used = (hits: number, daysSince: number) => ({ hits, lastAccessAt: daysAgo(daysSince) });

  it('given two equally relevant memories, when one was recalled often and lately, then it ranks first', () => {
    const ranked = rankMemories([candidate('fact', 3, 'a'), { ...candidate('fact', 3, 'b'), access: used(10, 1) }], NOW, config);
    expect(ranked.map((r) => r.memory.memoryId)).toEqual(['b', 'a']);
    expect(ranked[0].components.usage).toBeGreaterThan(0.8);
    expect(ranked[1].components.usage).toBe(0);
  });

  it("given heavy use, then the gain is bounded by the priors' share: a more relevant memory still wins", () => {
    const relevant = { memory: candidate('fact', 0, 'relevant').memory, fusion: { rrf: 0, bm25: 10, cosine: 0.9 } };
    const popular = { memory: candidate('fact', 0, 'popular').memory, fusion: { rrf: 0, bm25: 8, cosine: 0.7 }, access: used(1000, 0) };
    const ranked = rankMemories([popular, relevant], NOW, config);
    expect(ranked.map((r) => r.memory.memoryId)).toEqual(['relevant', 'popular']);
    expect(ranked[1].score / ranked[1].components.relevance).toBeLessThanOrEqual(1);
  });

  it('saturates in hits and fades with the time since the last access', () => {
    expect(usageOf(undefined, NOW, 30)).toBe(0);
    expect(usageOf(used(0, 0), NOW, 30)).toBe(0);
    expect(usageOf(used(5, 0), NOW, 30)).toBeCloseTo(1 - Math.exp(-1), 6);
    expect(usageOf(used(50, 0), NOW, 30)).toBeGreaterThan(0.99);
    expect(usageOf(used(5, 30), NOW, 30)).toBeCloseTo((1 - Math.exp(-1)) / 2, 6);
    expect(usageOf(used(5, 300), NOW, 30)).toBeLessThan(0.001);
  });

  it('given use weight 0, then use changes nothing', () => {
    const off = { ...config, priors: { ...config.priors, use: 0 } };
    const [plain] = rankMemories([candidate('fact', 3, 'a')], NOW, off);
    const [popular] = rankMemories([{ ...candidate('fact', 3, 'a'), access: used(100, 0) }], NOW, off);
    expect(popular.score).toBe(plain.score);
  });
});

describe('steering by what the question asks for', () => {
  const said = (id: string, extra: object) => ({ ...candidate('episode', 10, id, extra), fusion: { rrf: 0, bm25: 5, cosine: 0.3 } });

  it("given a question naming a speaker, then that speaker's turns keep their score and the others' keep `mismatch` of it", () => {
    const joanna = said('joanna', { speaker: 'Joanna', content: 'I love Spider-Man' });
    const nate = said('nate', { speaker: 'Nate', content: 'Hey Joanna, I love Spider-Man too' });
    const ranked = rankMemories([nate, joanna], NOW, config, { speakers: ['Joanna'] });
    expect(ranked.map((r) => [r.memory.memoryId, r.components.steering])).toEqual([
      ['joanna', 1],
      ['nate', config.steering!.mismatch],
    ]);
  });

  it("given a question about what the assistant said, then the assistant's turns rank first", () => {
    const user = said('user', { subject: 'user', content: '我想找清淡的川菜' });
    const assistant = said('assistant', { subject: 'assistant', content: '可以去松云泽，清淡的川菜' });
    expect(rankMemories([user, assistant], NOW, config, { assistant: true }).map((r) => r.memory.memoryId)).toEqual(['assistant', 'user']);
  });

  it('given a question asking for a time of day, then memories holding one rank first; nothing else is dropped', () => {
    const flight = { ...said('flight', { content: 'I need to book a flight to Mumbai' }), fusion: { rrf: 0, bm25: 6, cosine: 0.3 } };
    const departing = said('departing', { content: 'BA 199 departs on 18 December at 20:55' });
    const answer = { kind: 'time' as const, shapes: [/\b\d{1,2}:\d{2}\b/u] };
    const ranked = rankMemories([flight, departing], NOW, config, { answer });
    expect(ranked.map((r) => [r.memory.memoryId, r.components.steering])).toEqual([
      ['departing', 1],
      ['flight', config.steering!.mismatch],
    ]);
    expect(rankMemories([flight, departing], NOW, config).map((r) => r.memory.memoryId)).toEqual(['flight', 'departing']);
  });

  it('given a time window, then what was said within it ranks first; nothing outside is dropped', () => {
    const inside = said('inside', { validFrom: daysAgo(10), lastSeenAt: daysAgo(10) });
    const outside = {
      ...said('outside', { validFrom: daysAgo(100), lastSeenAt: daysAgo(100) }),
      fusion: { rrf: 0, bm25: 5.2, cosine: 0.3 },
    };
    const window = { from: daysAgo(14), to: daysAgo(7) };
    expect(rankMemories([outside, inside], NOW, config, { window }).map((r) => r.memory.memoryId)).toEqual(['inside', 'outside']);
    expect(rankMemories([outside, inside], NOW, config).map((r) => r.memory.memoryId)).toEqual(['outside', 'inside']);
  });

  describe('a question pointing back at something said before', () => {
    const plans = { families: ['plan' as const], followUp: false };
    /** A decision said `ageDays` ago in `session`, found with `bm25`, with the episode of its turn. */
    const decided = (id: string, session: string, ageDays: number, bm25: number, content: string) => {
      const turn = `${id}-turn`;
      const at = { validFrom: daysAgo(ageDays), lastSeenAt: daysAgo(ageDays), sourceTurnIds: [turn], importance: 0.8, confidence: 0.8 };
      return [
        { ...candidate('decision', ageDays, id, { ...at, subject: 'user', content }), fusion: { rrf: 0, bm25, cosine: 0.3 } },
        {
          ...candidate('episode', ageDays, `${id}-episode`, { ...at, attribute: `episode:${session}:${turn}`, content, confidence: 0.7 }),
          fusion: { rrf: 0, bm25: bm25 / 2, cosine: 0.3 },
        },
      ];
    };

    it('given two plans of two sessions, the earlier three times as relevant to the words searched, then the later one ranks first', () => {
      const tahoe = decided('tahoe', 's1', 10, 9, 'We agreed on Lake Tahoe');
      const migration = decided('migration', 's2', 6, 3, 'OK, let us go with the migration plan: reports first, then orders');
      const ranked = rankMemories([...tahoe, ...migration], NOW, config, { terms: tokenize('the plan we discussed'), reference: plans });
      const order = ranked.map((r) => r.memory.memoryId);
      expect(order[0]).toBe('migration');
      expect(order.indexOf('tahoe')).toBeGreaterThan(order.indexOf('migration'));
      expect(order.indexOf('tahoe-episode')).toBeGreaterThan(order.indexOf('migration'));
      expect(ranked.find((r) => r.memory.memoryId === 'tahoe')?.components.steering).toBe(config.steering!.mismatch);
      // Asked without pointing back, the more relevant plan comes first.
      expect(rankMemories([...tahoe, ...migration], NOW, config, { terms: tokenize('the plan we discussed') })[0].memory.memoryId).toBe(
        'tahoe',
      );
    });

    it('given an earlier plan the question names by its words, then a later plan it does not name does not outrank it', () => {
      const tahoe = decided('tahoe', 's1', 10, 9, 'We agreed on Lake Tahoe for the offsite');
      const migration = decided('migration', 's2', 6, 3, 'OK, let us go with the migration: reports first, then orders');
      const ranked = rankMemories([...tahoe, ...migration], NOW, config, {
        terms: tokenize('the offsite plan we discussed'),
        reference: plans,
      });
      expect(ranked[0].memory.memoryId).toBe('tahoe');
    });

    it('given a memory that is no referent, then it keeps `mismatch` of its score; nothing is dropped', () => {
      const plan = decided('plan', 's1', 6, 3, 'We decided to migrate the reports first');
      const chat = {
        ...candidate('episode', 2, 'chat', { content: 'The reports were late again today' }),
        fusion: { rrf: 0, bm25: 4, cosine: 0.3 },
      };
      const ranked = rankMemories([...plan, chat], NOW, config, {
        terms: tokenize('what did we decide about the reports'),
        reference: plans,
      });
      expect(ranked[0].memory.memoryId).toBe('plan');
      expect(Object.fromEntries(ranked.map((r) => [r.memory.memoryId, r.components.steering]))).toEqual({
        plan: 1,
        'plan-episode': 1,
        chat: config.steering!.mismatch,
      });
    });
  });
});
