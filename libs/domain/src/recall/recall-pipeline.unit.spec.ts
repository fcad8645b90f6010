import type { MemoryRecord } from '@engram/contracts';
import { summaryLines, summaryMergeKey } from '../summaries/session-summary';
import { memory } from '../testing/fixtures';
import { recallSpec, termVector } from '../testing/recall-spec';
import { defaultAliasTable } from '../text/entity-aliases';
import { pastCandidates, pastViews, rankableViews } from './past-candidates';
import { indexScope } from './recall-candidates';
import type { RecallTurn } from './recall-pipeline';
import { turnsNotSummarised } from './recall-pipeline';
import { embeddedText, searchableText } from './searchable-text';

/**
 * The recall pipeline (fuse → understand → rank → drop covered → assemble), given the user's
 * memories, when a question finds candidates in today's index or in the views of the past, then
 * the answer.
 */

const editor = memory({ attribute: 'editor', content: 'I prefer VS Code for TypeScript work', value: 'VS Code', sourceTurnIds: ['t1'] });
const theme = memory({
  attribute: 'theme',
  content: 'I prefer a dark theme',
  value: 'dark',
  entities: [],
  sourceTurnIds: ['t2'],
});
const database = memory({
  kind: 'fact',
  attribute: 'database',
  content: '数据库用 PostgreSQL',
  value: 'PostgreSQL',
  entities: ['PostgreSQL'],
  sourceTurnIds: ['t3'],
});
/** The episode of the turn the database fact was read from: the same source turn. */
const databaseTurn = memory({
  kind: 'episode',
  mergeKey: 'episode:s-1:t3',
  attribute: 'episode:s-1:t3',
  content: '我们的数据库用 PostgreSQL，部署在自己的机房',
  value: '',
  entities: ['PostgreSQL'],
  importance: 0.3,
  sourceTurnIds: ['t3'],
});
const name = memory({
  kind: 'profile',
  attribute: 'name',
  content: '我叫老周',
  value: '老周',
  entities: [],
  pinned: true,
  sourceTurnIds: ['t0'],
});
const rule = memory({
  kind: 'procedure',
  attribute: 'quote_format',
  content: '以后报价先给区间再给明细',
  value: '先给区间再给明细',
  entities: [],
  pinned: true,
  sourceTurnIds: ['t4'],
});

const turn = (turnId: string, text: string, occurredAt: string): RecallTurn => ({ turnId, role: 'user', text, occurredAt });

describe("recall pipeline: from today's index", () => {
  const spec = recallSpec();

  it('fuses both legs and ranks the memory that answers first', () => {
    spec
      .given([editor, theme, database])
      .when('which editor do I prefer', {
        index: {
          bm25: [
            [editor, 4.1],
            [theme, 1.2],
          ],
          cosine: [
            [editor, 0.82],
            [theme, 0.41],
          ],
        },
      })
      .then([editor, theme]);
  });

  it('drops a memory whose source turns a better-ranked one already brings (a fact and its episode)', () => {
    spec
      .given([database, databaseTurn, editor])
      .when('数据库用什么', {
        index: {
          bm25: [
            [database, 3.0],
            [databaseTurn, 2.5],
          ],
        },
      })
      .then((answer) => {
        expect(answer.memories.map((m) => m.memory.memoryId)).toEqual([database.memoryId]);
        // It was not cut by the budget: it was never offered.
        expect(answer.cut.memories).toEqual([]);
      });
  });

  it('shows pinned facts and procedures in their own sections whatever the question, and never ranks them', () => {
    spec
      .given([name, rule, editor])
      .when('which editor do I prefer, 老周', {
        index: {
          bm25: [
            [name, 5.0],
            [editor, 4.0],
          ],
        },
      })
      .then((answer) => {
        expect(answer.facts).toEqual([name]);
        expect(answer.procedures).toEqual([rule]);
        expect(answer.memories.map((m) => m.memory.memoryId)).toEqual([editor.memoryId]);
        expect(answer.context).toContain('<procedures>');
        expect(answer.context).toContain(rule.content);
      });
  });

  it('ranks first, of two memories found alike, the one recall keeps returning (the access projection)', () => {
    const twin = memory({ ...editor, mergeKey: 'user/editor-at-work', memoryId: 'twin', sourceTurnIds: ['t9'] });
    const found = (access?: Map<string, { hits: number; lastAccessAt: string }>) => ({
      index: {
        bm25: [
          [editor, 4.0],
          [twin, 4.0],
        ] as const,
        ...(access ? { access } : {}),
      },
    });
    const [first, second] = spec.given([editor, twin]).when('which editor do I prefer', found()).answer().memories;
    expect(first.score).toBe(second.score);
    spec
      .given([editor, twin])
      .when('which editor do I prefer', found(new Map([[second.memory.memoryId, { hits: 10, lastAccessAt: '2026-11-30T12:00:00.000Z' }]])))
      .then([second.memory, first.memory]);
  });

  it('does not rank a memory the index still finds after the store retracted it (the index may lag)', () => {
    const retracted = { ...editor, status: 'retracted' as const, revision: 2 };
    spec
      .given([retracted])
      .when('which editor do I prefer', { index: { bm25: [[retracted, 4.1]] } })
      .then([]);
  });

  it("leaves out what set its own time scope once the scope has ended at the question's instant, pinned or ranked", () => {
    const busy = memory({
      kind: 'episode',
      attribute: 'episode:s-2:t7',
      content: '今天很忙，别给我安排会议',
      sourceTurnIds: ['t7'],
      expiresAt: '2026-11-30T00:00:00.000Z',
    });
    const trip = memory({
      kind: 'fact',
      attribute: 'location',
      content: "I'm in Berlin this week",
      sourceTurnIds: ['t8'],
      expiresAt: '2026-12-05T00:00:00.000Z',
    });
    const vegan = memory({
      kind: 'profile',
      attribute: 'diet:vegan',
      content: "I'm vegan this week",
      pinned: true,
      sourceTurnIds: ['t9'],
      expiresAt: '2026-11-28T00:00:00.000Z',
    });
    spec
      .given([busy, trip, vegan, name])
      .when('今天忙吗 where am I this week', {
        index: {
          bm25: [
            [busy, 3.0],
            [trip, 2.0],
          ],
        },
      })
      .then((answer) => {
        expect(answer.memories.map((m) => m.memory.memoryId)).toEqual([trip.memoryId]);
        expect(answer.facts).toEqual([name]);
      });
  });

  it('narrows pinned memories and ranked ones to the filter', () => {
    spec
      .given([name, rule, editor, database])
      .when(
        { text: 'which editor and database', filter: { kinds: ['preference', 'procedure'] } },
        {
          index: {
            bm25: [
              [database, 3.0],
              [editor, 2.0],
            ],
          },
        },
      )
      .then((answer) => {
        expect(answer.facts).toEqual([]);
        expect(answer.procedures).toEqual([rule]);
        expect(answer.memories.map((m) => m.memory.memoryId)).toEqual([editor.memoryId]);
      });
  });

  it('offers k memories, and says what the budget left out', () => {
    const found = {
      index: {
        bm25: [
          [editor, 4.1],
          [theme, 3.9],
        ],
      },
    } as const;
    spec.given([editor, theme]).when({ text: 'which editor and theme do I prefer', k: 1 }, found).then([editor]);
    const whole = spec.given([editor, theme]).when('which editor and theme do I prefer', found).then([editor, theme]);
    spec
      .given([editor, theme])
      .when({ text: 'which editor and theme do I prefer', budget: { total: whole.tokens - 1 } }, found)
      .then((answer) => {
        expect(answer.memories.map((m) => m.memory.memoryId)).toEqual([editor.memoryId]);
        expect(answer.cut.memories.map((m) => m.memory.memoryId)).toEqual([theme.memoryId]);
        expect(answer.tokens).toBeLessThan(whole.tokens);
      });
  });

  it("shows the session's summary and the turns after it, and lists what it used for the access event", () => {
    const summary = memory({
      kind: 'summary',
      subject: 'session',
      mergeKey: summaryMergeKey('s-0'),
      attribute: 'summary',
      value: '2',
      content: '老周 asked for a quote\nthe quote came in two parts',
      entities: [],
      sourceTurnIds: ['t5', 't6'],
    });
    const recent = [turn('t7', 'and the budget?', '2026-11-30T09:00:00.000Z'), turn('t8', '五万以内', '2026-11-30T09:01:00.000Z')];
    spec
      .given([name, rule, editor], { summary: { memory: summary, sessionId: 's-0', previous: true }, recent })
      .when('which editor do I prefer', { index: { bm25: [[editor, 4.1]] } })
      .then((answer) => {
        expect(answer.summary).toEqual({ sessionId: 's-0', previous: true, lines: summaryLines(summary) });
        expect(answer.recent).toEqual(recent);
        expect(answer.used).toEqual([name.memoryId, rule.memoryId, summary.memoryId, editor.memoryId]);
      });
  });

  it('finds nothing when the index found nothing', () => {
    spec
      .given([name, editor])
      .when('what is the weather', { index: {} })
      .then((answer) => {
        expect(answer.memories).toEqual([]);
        expect(answer.facts).toEqual([name]);
      });
  });
});

describe('recall pipeline: from the views of the past', () => {
  const spec = recallSpec();
  /** 三万 learned on Nov 30, corrected to 五万 on Dec 5. */
  const budget: MemoryRecord = memory({
    kind: 'fact',
    attribute: 'budget',
    value: '五万',
    content: '预算提到五万了',
    entities: [],
    version: 2,
    revision: 2,
    validFrom: '2026-12-05T08:00:00.000Z',
    createdAt: '2026-11-30T09:00:00.000Z',
    updatedAt: '2026-12-05T09:00:00.000Z',
    lastSeenAt: '2026-12-05T08:00:00.000Z',
    sourceTurnIds: ['t2'],
    history: [
      {
        version: 1,
        value: '三万',
        content: '预算控制在三万以内',
        validFrom: '2026-11-30T08:00:00.000Z',
        validTo: '2026-12-05T08:00:00.000Z',
        recordedAt: '2026-11-30T09:00:00.000Z',
        supersededAt: '2026-12-05T09:00:00.000Z',
        sourceTurnIds: ['t1'],
      },
    ],
  });

  it('answers with the value engram held then (asOf), and with the value true then (validAt)', () => {
    for (const look of [{ asOf: '2026-12-01T00:00:00.000Z' }, { validAt: '2026-12-01T00:00:00.000Z' }]) {
      spec
        .given([budget])
        .when('预算是多少', { past: look })
        .then((answer) => expect(answer.memories.map((m) => m.memory.content)).toEqual(['预算控制在三万以内']));
    }
    spec
      .given([budget])
      .when('预算是多少', { past: { asOf: '2026-12-06T00:00:00.000Z' } })
      .then((answer) => expect(answer.memories.map((m) => m.memory.content)).toEqual(['预算提到五万了']));
  });

  it('drops a memory whose source turns a better-ranked one already brings, as today does', () => {
    spec
      .given([database, databaseTurn])
      .when('数据库用什么', { past: { asOf: '2026-12-01T00:00:00.000Z' } })
      .then((answer) => {
        expect(answer.memories).toHaveLength(1);
        expect([database.memoryId, databaseTurn.memoryId]).toContain(answer.memories[0].memory.memoryId);
      });
  });

  it('shows the pinned memories of then, leaves out the turns said after the instant, and records no use', () => {
    const later = { ...name, memoryId: 'name-later', createdAt: '2026-12-02T00:00:00.000Z', updatedAt: '2026-12-02T00:00:00.000Z' };
    const recent = [turn('t7', 'before', '2026-11-30T09:00:00.000Z'), turn('t8', 'after', '2026-12-02T09:00:00.000Z')];
    spec
      .given([name, later, editor], { summary: null, recent })
      .when('which editor do I prefer', { past: { asOf: '2026-12-01T00:00:00.000Z' } })
      .then((answer) => {
        expect(answer.facts).toEqual([name]);
        expect(answer.memories.map((m) => m.memory.memoryId)).toEqual([editor.memoryId]);
        expect(answer.recent.map((t) => t.turnId)).toEqual(['t7']);
        expect(answer.used).toEqual([]);
      });
  });

  it('ranks exactly as today when the index finds what the past views find', () => {
    const given = [editor, theme, database, databaseTurn];
    const question = 'what do I prefer, 数据库用什么';
    const asOf = '2026-12-01T00:00:00.000Z';
    const past = spec.given(given).when(question, { past: { asOf } }).answer();
    // The past source's own hits (as recallSpec embeds the views), handed over as if the index had found them.
    const views = rankableViews(pastViews(given, new Date(asOf), null, null));
    const vectors = { query: termVector(question), passages: views.map((view) => termVector(embeddedText(view, defaultAliasTable))) };
    const found = pastCandidates(views, question, vectors, { limit: 60, aliases: defaultAliasTable });
    const byId = new Map(given.map((m) => [m.memoryId, m]));
    const asHits = (hits: typeof found.textHits) => hits.map((hit) => [byId.get(hit.memoryId)!, hit.score] as const);
    const today = spec
      .given(given)
      .when(question, { index: { bm25: asHits(found.textHits), cosine: asHits(found.vectorHits) } })
      .answer();
    const ranking = (answer: typeof past) => answer.memories.map((m) => [m.memory.memoryId, m.score]);
    expect(ranking(past).length).toBeGreaterThan(1);
    expect(ranking(today)).toEqual(ranking(past));
  });
});

describe('the candidate sources', () => {
  it('asks the index for the filter’s kinds, and for sessions and time as the ids of the active memories that match', () => {
    expect(indexScope(null, null)).toEqual({});
    expect(indexScope({ kinds: ['fact'] }, null)).toEqual({ kinds: ['fact'] });
    const inSession = { turnIds: new Set(['t1', 't3', 't0']) };
    expect(indexScope(inSession, [editor, theme, database, name])).toEqual({ memoryIds: [editor.memoryId, database.memoryId] });
  });

  it('scores the past views with BM25 over what each is found by, best first, only those sharing a term', () => {
    const views = [editor, theme, database];
    const found = pastCandidates(
      views,
      'PostgreSQL',
      {
        query: [1, 0],
        passages: [
          [0, 1],
          [1, 0],
          [0.6, 0.8],
        ],
      },
      { limit: 2, aliases: { canonicalOf: new Map(), learned: new Map() } },
    );
    expect(found.textHits.map((hit) => hit.memoryId)).toEqual([database.memoryId]);
    // Cosine: every view is a kNN candidate, the best `limit` of them.
    expect(found.vectorHits.map((hit) => hit.memoryId)).toEqual([theme.memoryId, database.memoryId]);
    expect(searchableText(database)).toContain('PostgreSQL');
  });

  it('given no vectors (the embedder is unavailable), then the past views are BM25 candidates alone', () => {
    const found = pastCandidates([editor, theme, database], 'PostgreSQL', null, {
      limit: 2,
      aliases: { canonicalOf: new Map(), learned: new Map() },
    });
    expect(found.textHits.map((hit) => hit.memoryId)).toEqual([database.memoryId]);
    expect(found.vectorHits).toEqual([]);
  });

  it('leaves out of the ranking the pinned views and the summaries', () => {
    const summary = memory({ kind: 'summary', mergeKey: summaryMergeKey('s-1'), attribute: 'summary', sourceTurnIds: ['t9'] });
    expect(rankableViews([name, rule, summary, editor])).toEqual([editor]);
  });

  it('shows the turns a summary does not cover', () => {
    const turns = [turn('t1', 'a', '2026-11-30T08:00:00.000Z'), turn('t2', 'b', '2026-11-30T08:01:00.000Z')];
    expect(turnsNotSummarised(turns, undefined)).toEqual(turns);
    expect(turnsNotSummarised(turns, memory({ sourceTurnIds: ['t1'] }))).toEqual([turns[1]]);
  });
});

describe('recall pipeline: a follow-up ("那个方案后来怎么样了", "how did it go")', () => {
  const spec = recallSpec({ now: '2026-11-20T09:00:00.000Z' });
  const said = (id: string, kind: 'decision' | 'episode', day: string, content: string, extra: Partial<MemoryRecord> = {}) =>
    memory({
      kind,
      attribute: kind === 'episode' ? `episode:s-${id}:${id}` : `decision:${id}`,
      mergeKey: `user/${id}`,
      value: kind === 'episode' ? '' : content,
      content,
      entities: [],
      confidence: kind === 'episode' ? 0.7 : 0.8,
      sourceTurnIds: [id],
      validFrom: `2026-11-${day}T09:00:00.000Z`,
      lastSeenAt: `2026-11-${day}T09:00:00.000Z`,
      createdAt: `2026-11-${day}T09:00:00.000Z`,
      updatedAt: `2026-11-${day}T09:00:00.000Z`,
      ...extra,
    });
  const plan = said('t1', 'decision', '02', 'We decided to go with Postgres for the new billing service', { entities: ['PostgreSQL'] });
  const wentLive = said('t5', 'episode', '10', 'The Postgres migration went live yesterday without any issues', {
    entities: ['PostgreSQL'],
  });
  const keyboard = said('t7', 'episode', '12', 'I bought a new keyboard');
  const earlier = said('t0', 'episode', '01', 'Postgres or MySQL for the billing service?');
  /** What else the user said: "new" is a common word, "Postgres" is not. */
  const chat = ['A new week, a new start', 'My sister has a new job', 'Any new films worth seeing?', 'Happy new month'].map((text, i) =>
    said(`c${i}`, 'episode', `1${i}`, text),
  );

  it('from the views of the past: what was said after the plan on its subject first, then the plan; not what shares a common word', () => {
    spec
      .given([plan, wentLive, keyboard, earlier, ...chat])
      .when({ text: 'How did that plan go?', k: 3 }, { past: { asOf: '2026-11-20T09:00:00.000Z' } })
      .then((answer) => {
        const order = answer.memories.map((m) => m.memory.memoryId);
        expect(order.slice(0, 2)).toEqual([wentLive.memoryId, plan.memoryId]);
        expect(order).not.toContain(earlier.memoryId); // said before the plan: not what followed it
        expect(order.indexOf(keyboard.memoryId) === -1 || order.indexOf(keyboard.memoryId) > 1).toBe(true);
      });
  });

  it('a plan naming no entity: what shares several of its words follows it, what shares one common word does not', () => {
    const redesign = said('z1', 'decision', '02', '我们决定下个月把官网改版成暗色主题');
    const launched = said('z5', 'episode', '10', '官网改版上周上线了，用户反馈不错');
    const checkup = said('z7', 'episode', '12', '下个月要去医院体检');
    const talk = ['这个月好忙', '下个月去杭州出差', '上个月的房租交了'].map((text, i) => said(`zc${i}`, 'episode', `1${i}`, text));
    spec
      .given([redesign, launched, checkup, ...talk])
      .when({ text: '那个方案后来怎么样了', k: 3 }, { past: { asOf: '2026-11-20T09:00:00.000Z' } })
      .then((answer) => {
        const order = answer.memories.map((m) => m.memory.memoryId);
        expect(order.slice(0, 2)).toEqual([launched.memoryId, redesign.memoryId]);
        expect(order.indexOf(checkup.memoryId) === -1 || order.indexOf(checkup.memoryId) > 1).toBe(true);
      });
  });

  it("from today's index: the second search's hits, said after the plan, rank first", () => {
    spec
      .given([plan, wentLive, keyboard])
      .when('How did that plan go?', {
        index: {
          bm25: [[plan, 2.0]],
          followUp: {
            bm25: [
              [plan, 9.0],
              [wentLive, 3.1],
              [keyboard, 0.4],
            ],
          },
        },
      })
      .then((answer) => expect(answer.memories.map((m) => m.memory.memoryId).slice(0, 2)).toEqual([wentLive.memoryId, plan.memoryId]));
  });

  it('given a question that is no follow-up, then nothing is searched again and the plan alone answers', () => {
    spec
      .given([plan, wentLive])
      .when('Remind me of the plan we discussed', { index: { bm25: [[plan, 2.0]], followUp: { bm25: [[wentLive, 9.0]] } } })
      .then([plan]);
  });
});
