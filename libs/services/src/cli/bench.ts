import { INestApplication } from '@nestjs/common';
import { Presets, SingleBar } from 'cli-progress';
import { Command, InvalidArgumentError } from 'commander';
import * as fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { loadConfig } from '@engram/config';
import type { MemoryRecord, MemoryVersion } from '@engram/contracts';
import { Embedder, FactStore } from '@engram/ports';
import { startApp } from '../bootstrap';
import { IngestService } from '../http/ingest.service';
import type { RecallDto, RecallResponse } from '../http/recall.dto';
import { RecallService } from '../http/recall.service';
import { DEFAULT_TENANT } from '../http/tenancy';
import type { PostTurnsDto, TurnDto } from '../http/turns.dto';
import type { RebuildStatus } from '../pipeline/online-rebuild';
import { PipelineProgress } from '../pipeline/pipeline-progress';
import { PROJECTION_NAMES, Rebuilder } from '../pipeline/rebuilder';
import type { CliModules } from './cli-modules';
import { percentile } from './eval';

/*
 * `engram bench`: how fast is engram on a synthetic bilingual workload of a given size?
 *
 * Phases, in order, on one engram (embedded in a fresh temporary data directory, or --url):
 *   1. ingest     every turn of the workload, as fast as it is accepted; turns/s from the first POST
 *                 until nothing is pending on the read path;
 *   2. freshness  more turns at a steady rate; for probe turns (each carrying a unique word), the
 *                 time from the POST until recall returns a memory sourced from that turn;
 *   3. recall     latency at that size, sequential, then with `concurrency` overlapping clients;
 *   4. rebuild    (embedded only) the server closes, a maintenance app on the same data directory
 *                 replays the log into fresh projections: events/s.
 * Peak RSS is this process's (the whole embedded engram); a server behind --url is not measured.
 *
 * With --online-rebuild, phases 2–4 give way to a rebuild under ingest, through HTTP only (the
 * embedded server then listens on a free loopback port): every projection rebuilt online while
 * turns keep coming and recall keeps answering, then the read side compared with a from-scratch
 * online rebuild of the same log (`measureOnlineRebuild`).
 */

// ---------------------------------------------------------------------------------------------
// Workload
// ---------------------------------------------------------------------------------------------

/** mulberry32: a small, fast, well-mixed 32-bit PRNG; returns floats in [0, 1). */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A 32-bit seed for one stream (a user, the queries) derived from the run's seed: streams are independent. */
export function streamSeed(seed: number, ...parts: readonly (string | number)[]): number {
  let h = (0x811c9dc5 ^ seed) >>> 0;
  for (const ch of parts.join('\u0000')) {
    h ^= ch.codePointAt(0)!;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

type Random = () => number;
const pick = <T>(random: Random, items: readonly T[]): T => items[Math.floor(random() * items.length)];

/** A generated statement and what it is about (the words a question about it would use). */
export interface Statement {
  readonly text: string;
  readonly topic: string;
  readonly language: 'zh' | 'en';
}

const ZH = {
  drinkAdj: ['冰', '热', '无糖', '少糖', '低脂', '手冲', '现磨', '加浓', '双份', '燕麦'],
  drinks: ['美式咖啡', '拿铁', '乌龙茶', '龙井', '普洱', '豆浆', '椰子水', '抹茶', '柠檬茶', '气泡水', '酸梅汤', '红茶'],
  foods: [
    '火锅',
    '小笼包',
    '牛肉面',
    '烤鸭',
    '麻辣烫',
    '寿司',
    '煎饼果子',
    '酸菜鱼',
    '螺蛳粉',
    '肠粉',
    '羊肉串',
    '担担面',
    '香菜',
    '榴莲',
    '臭豆腐',
  ],
  weekly: ['每周一', '每周二', '每周三', '每周四', '每周五', '每周六', '每周日'],
  timeOfDay: ['早上', '中午', '下午', '晚上'],
  activities: ['打羽毛球', '去游泳', '去爬山', '骑车', '练瑜伽', '下围棋', '练书法', '弹钢琴', '打篮球', '跑步', '上英语课', '去健身房'],
  deadlines: ['下周一', '下周三', '周五', '月底', '明天下午', '后天', '下个月初'],
  documents: [
    '季度报告',
    '预算表',
    '年会方案',
    '周报',
    '合同',
    '演讲稿',
    '测试计划',
    '招聘需求',
    '产品文档',
    '发布说明',
    '复盘材料',
    '培训课件',
  ],
  handOff: ['交给老板', '发给客户', '提交评审', '整理完', '改好', '发给财务'],
  allergens: ['花生', '芒果', '海鲜', '牛奶', '鸡蛋', '青霉素', '花粉', '猫毛', '小麦', '虾'],
  cities: ['杭州', '成都', '深圳', '西安', '南京', '苏州', '厦门', '青岛', '武汉', '长沙', '昆明', '大连'],
};

const EN = {
  drinkAdj: ['iced', 'hot', 'decaf', 'oat milk', 'black', 'double shot', 'sugar-free', 'cold brew', 'spiced', 'honey'],
  drinks: [
    'latte',
    'green tea',
    'espresso',
    'chai',
    'matcha',
    'kombucha',
    'flat white',
    'mocha',
    'earl grey',
    'cappuccino',
    'rooibos',
    'americano',
  ],
  hobbies: [
    'rock climbing',
    'sourdough baking',
    'chess',
    'jazz piano',
    'trail running',
    'bird watching',
    'kayaking',
    'woodworking',
    'sketching',
    'pottery',
    'salsa dancing',
    'astronomy',
  ],
  weekdays: ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'],
  taskVerbs: ['renew', 'submit', 'review', 'finish', 'send', 'update', 'sign', 'print'],
  taskObjects: [
    'passport',
    'tax return',
    'quarterly report',
    'insurance form',
    'lease',
    'design doc',
    'expense claim',
    'grant proposal',
    'slide deck',
    'visa application',
    'budget sheet',
    'release notes',
  ],
  deadlines: ['Friday', 'next Monday', 'the end of the month', 'tomorrow', 'next Wednesday', 'the 15th'],
  callees: ['the dentist', 'my landlord', 'the plumber', 'my accountant', 'the vet', 'my sister', 'the bank', 'the school'],
  allergens: ['shellfish', 'peanuts', 'penicillin', 'pollen', 'gluten', 'lactose', 'cats', 'latex', 'sesame', 'kiwi'],
  cities: ['Berlin', 'Lisbon', 'Toronto', 'Osaka', 'Melbourne', 'Denver', 'Dublin', 'Seoul', 'Austin', 'Vienna', 'Oslo', 'Prague'],
};

/** Preference, profile, fact and task sentences in both languages, the kinds a memory holds. */
const TEMPLATES: readonly ((r: Random) => Statement)[] = [
  (r) => {
    const topic = `${pick(r, ZH.drinkAdj)}${pick(r, ZH.drinks)}`;
    return { text: `我喜欢喝${topic}`, topic, language: 'zh' };
  },
  (r) => {
    const topic = pick(r, ZH.foods);
    return { text: `我不喜欢吃${topic}`, topic, language: 'zh' };
  },
  (r) => {
    const activity = pick(r, ZH.activities);
    return { text: `我${pick(r, ZH.weekly)}${pick(r, ZH.timeOfDay)}${activity}`, topic: activity, language: 'zh' };
  },
  (r) => {
    const topic = `${pick(r, ZH.documents)}${pick(r, ZH.handOff)}`;
    return { text: `${pick(r, ZH.deadlines)}之前要把${topic}`, topic, language: 'zh' };
  },
  (r) => {
    const topic = pick(r, ZH.allergens);
    return { text: `我对${topic}过敏`, topic, language: 'zh' };
  },
  (r) => {
    const topic = pick(r, ZH.cities);
    return { text: `我住在${topic}`, topic, language: 'zh' };
  },
  (r) => {
    const topic = `${pick(r, EN.drinkAdj)} ${pick(r, EN.drinks)}`;
    return { text: `I prefer ${topic}`, topic, language: 'en' };
  },
  (r) => {
    const topic = pick(r, EN.hobbies);
    return { text: `I usually do ${topic} on ${pick(r, EN.weekdays)} mornings`, topic, language: 'en' };
  },
  (r) => {
    const topic = `${pick(r, EN.taskVerbs)} the ${pick(r, EN.taskObjects)}`;
    return { text: `I need to ${topic} by ${pick(r, EN.deadlines)}`, topic, language: 'en' };
  },
  (r) => {
    const topic = `call ${pick(r, EN.callees)}`;
    return { text: `Remind me to ${topic} on ${pick(r, EN.weekdays)}`, topic, language: 'en' };
  },
  (r) => {
    const topic = pick(r, EN.allergens);
    return { text: `I am allergic to ${topic}`, topic, language: 'en' };
  },
  (r) => {
    const topic = pick(r, EN.cities);
    return { text: `I live in ${topic}`, topic, language: 'en' };
  },
];

/** A question about a statement, in its language. */
export function questionAbout(statement: Statement, random: Random): string {
  return statement.language === 'zh'
    ? pick(random, [`关于${statement.topic}我说过什么`, `${statement.topic}怎么样`, `我和${statement.topic}有什么关系`])
    : pick(random, [`what did I say about ${statement.topic}`, `anything about ${statement.topic}?`, `remind me about ${statement.topic}`]);
}

export interface WorkloadOptions {
  /** Turns in all (spread as evenly as possible over the users). */
  readonly turns: number;
  readonly users: number;
  readonly seed: number;
  /** Turns per POST (one session each). Default 10. */
  readonly turnsPerRequest?: number;
  /** occurredAt of the first turn. Default 2026-01-01T00:00:00Z. */
  readonly start?: string;
}

export const userIdOf = (user: number) => `bench-u${user}`;

/** Turns of one user: the same for the same (seed, user, count), whatever the other users get. */
export function userStatements(seed: number, user: number, count: number): Statement[] {
  const random = seededRandom(streamSeed(seed, 'user', user));
  return Array.from({ length: count }, () => pick(random, TEMPLATES)(random));
}

/**
 * The workload as POST /v1/turns bodies, sessions of all users interleaved (session 0 of every
 * user, then session 1, …) as if the users were talking at the same time. Lazy: 100,000 turns
 * are never held at once.
 */
export function* workloadRequests(options: WorkloadOptions): Generator<PostTurnsDto> {
  const perRequest = options.turnsPerRequest ?? 10;
  const start = Date.parse(options.start ?? '2026-01-01T00:00:00Z');
  const countOf = (user: number) => Math.floor(options.turns / options.users) + (user < options.turns % options.users ? 1 : 0);
  const sessions = Math.ceil(countOf(0) / perRequest);
  const statements = new Map<number, Statement[]>();
  for (let session = 0; session < sessions; session++) {
    for (let user = 0; user < options.users; user++) {
      const count = countOf(user);
      const from = session * perRequest;
      if (from >= count) continue;
      if (session === 0) statements.set(user, userStatements(options.seed, user, count));
      const own = statements.get(user)!;
      const turns: TurnDto[] = [];
      for (let i = from; i < Math.min(count, from + perRequest); i++) {
        turns.push({
          turnId: `t${i}`,
          role: 'user',
          text: own[i].text,
          // A minute per turn, an hour between sessions: well inside every half-life.
          occurredAt: new Date(start + (session * 60 + (i - from)) * 60_000).toISOString(),
        } as TurnDto);
      }
      yield { userId: userIdOf(user), sessionId: `s${session}`, turns } as PostTurnsDto;
      if (from + perRequest >= count) statements.delete(user);
    }
  }
}

/** `count` recall questions about what random users said, deterministic for the seed. */
export function workloadQueries(options: Pick<WorkloadOptions, 'turns' | 'users' | 'seed'>, count: number): RecallDto[] {
  const random = seededRandom(streamSeed(options.seed, 'queries'));
  const perUser = Math.max(1, Math.floor(options.turns / options.users));
  return Array.from({ length: count }, () => {
    const user = Math.floor(random() * Math.min(options.users, options.turns));
    const statements = userStatements(options.seed, user, perUser);
    return { userId: userIdOf(user), query: questionAbout(pick(random, statements), random) } as RecallDto;
  });
}

/** A freshness probe: a statement with a word no other turn has, so recall can only find it from this turn. */
export function probeStatement(seed: number, n: number): Statement & { readonly marker: string } {
  const random = seededRandom(streamSeed(seed, 'probe', n));
  const marker = `zq${Math.floor(random() * 36 ** 4).toString(36)}${n}x`;
  return n % 2 === 0
    ? { text: `我喜欢喝${marker}牌的${pick(random, ZH.drinks)}`, topic: marker, language: 'zh', marker }
    : { text: `I prefer ${marker} brand ${pick(random, EN.drinks)}`, topic: marker, language: 'en', marker };
}

// ---------------------------------------------------------------------------------------------
// Statistics
// ---------------------------------------------------------------------------------------------

export interface LatencySummary {
  readonly p50: number;
  readonly p95: number;
  readonly p99: number;
  readonly max: number;
  readonly mean: number;
  readonly samples: number;
}

const round2 = (value: number) => Math.round(value * 100) / 100;

/** Nearest-rank percentiles (as `engram eval`), rounded to 0.01 ms; zeros for no samples. */
export function summariseLatencies(values: readonly number[]): LatencySummary {
  const mean = values.length === 0 ? 0 : values.reduce((s, v) => s + v, 0) / values.length;
  return {
    p50: round2(percentile(values, 50)),
    p95: round2(percentile(values, 95)),
    p99: round2(percentile(values, 99)),
    max: round2(values.length === 0 ? 0 : Math.max(...values)),
    mean: round2(mean),
    samples: values.length,
  };
}

// ---------------------------------------------------------------------------------------------
// Engines
// ---------------------------------------------------------------------------------------------

/** What bench needs of an engram: the embedded one in-process, or a running one over HTTP. */
export interface BenchEngine {
  readonly mode: 'embedded' | 'http';
  readonly embedder: string | null;
  /** Where its HTTP API answers (--url, or the embedded server when a phase needs HTTP); null when in-process only. */
  readonly url: string | null;
  /** Returns the position token of the accepted turns (for `after`). */
  ingest(request: PostTurnsDto): Promise<string>;
  pending(): Promise<number>;
  recall(body: RecallDto): Promise<RecallResponse>;
  /** Active memories of a user. */
  memories(userId: string): Promise<number>;
  /** Replays the log into fresh projections (embedded only; closes the engine first). */
  rebuild?(onProgress: (done: number, total: number, projection: string) => void): Promise<{ events: number; seconds: number }>;
  close(): Promise<void>;
}

function httpEngine(url: string, apiKey?: string): BenchEngine {
  const call = async <T>(method: string, route: string, body?: unknown): Promise<T> => {
    for (let attempt = 0; ; attempt++) {
      const response = await fetch(new URL(route, url), {
        method,
        headers: { 'content-type': 'application/json', ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}) },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
      const text = await response.text();
      // Backpressure: the server asks producers to slow down; a bench producer obeys.
      if (response.status === 429 && attempt < 100) {
        await sleep(Math.min(2000, 50 * 2 ** Math.min(attempt, 5)));
        continue;
      }
      if (!response.ok) throw new Error(`${method} ${route} → ${response.status}: ${text}`);
      return JSON.parse(text) as T;
    }
  };
  return {
    mode: 'http',
    embedder: null,
    url,
    ingest: async (request) => (await call<{ position: string }>('POST', '/v1/turns', request)).position,
    pending: async () => (await call<{ pending: number }>('GET', '/v1/pipeline/status')).pending,
    recall: (body) => call<RecallResponse>('POST', '/v1/recall', body),
    memories: async (userId) =>
      (await call<{ memories: unknown[] }>('GET', `/v1/users/${encodeURIComponent(userId)}/memories`)).memories.length,
    close: async () => undefined,
  };
}

/** The embedded engram in this process; with `http`, its API also listens on a free loopback port (phases that go through HTTP). */
async function embeddedEngine(modules: CliModules, env: Record<string, string | undefined>, http = false): Promise<BenchEngine> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'engram-bench-'));
  const config = loadConfig({ ...env, LOG_LEVEL: 'silent', ENGRAM_DATA_DIR: dataDir, ...(http ? { PORT: '0', HOST: '127.0.0.1' } : {}) });
  let server: INestApplication;
  try {
    server = await startApp(modules.server(config), { http, stages: true });
  } catch (error) {
    fs.rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
  const ingest = server.get(IngestService);
  const recall = server.get(RecallService);
  const progress = server.get(PipelineProgress);
  const facts = server.get<FactStore>(FactStore);
  let closed = false;
  const closeServer = async () => {
    if (closed) return;
    closed = true;
    await server.close();
  };
  const address = http ? (server.getHttpServer().address() as AddressInfo) : null;
  return {
    mode: 'embedded',
    embedder: server.get<Embedder>(Embedder).modelId,
    url: address ? `http://127.0.0.1:${address.port}` : null,
    ingest: async (request) => (await ingest.ingest(DEFAULT_TENANT, request)).position,
    pending: () => progress.pending(),
    recall: (body) => recall.recall(DEFAULT_TENANT, body),
    memories: async (userId) => (await facts.list({ tenantId: DEFAULT_TENANT, userId, statuses: ['active'] })).length,
    rebuild: async (onProgress) => {
      await closeServer();
      const maintenance = await startApp(modules.rebuild(config), { http: false, stages: false });
      try {
        const started = performance.now();
        const { events } = await maintenance.get(Rebuilder).rebuild(PROJECTION_NAMES, (p) => onProgress(p.done, p.total, p.projection));
        return { events, seconds: (performance.now() - started) / 1000 };
      } finally {
        await maintenance.close();
      }
    },
    close: async () => {
      try {
        await closeServer();
      } finally {
        fs.rmSync(dataDir, { recursive: true, force: true });
      }
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Online rebuild under ingest (opt-in: --online-rebuild)
// ---------------------------------------------------------------------------------------------

/** What two builds of the facts projection must agree on for one memory: not when it was processed. */
export interface MemorySnapshot {
  readonly id: string;
  readonly kind: string;
  readonly status: string;
  readonly value: string;
  readonly content: string;
  readonly version: number;
  readonly mentionCount: number;
  /** Past values, oldest first. */
  readonly history: readonly string[];
}

/** One user as the read side serves them: every memory (status=all) and one recall answer. */
export interface UserSnapshot {
  readonly memories: readonly MemorySnapshot[];
  /**
   * Ids recall returned (facts and memories), sorted: the set, not the order — recall's own access
   * events between two dumps move the usage component of the ranking, never which projection
   * version answered. Recent turns (sessions projection) in the order recall gives them.
   */
  readonly recall: { readonly memoryIds: readonly string[]; readonly recentTurnIds: readonly string[] };
}

/** Users by id. */
export type ProjectionSnapshot = Readonly<Record<string, UserSnapshot>>;

type MemoryDocument = Pick<MemoryRecord, 'memoryId' | 'kind' | 'status' | 'value' | 'content' | 'version' | 'mentionCount'> & {
  readonly history: readonly Pick<MemoryVersion, 'value'>[];
};

/** A user's memories (as `GET /v1/users/:id/memories?status=all` returns them) reduced to what must be equal, by id. */
export function snapshotMemories(documents: readonly MemoryDocument[]): MemorySnapshot[] {
  return documents
    .map((m) => ({
      id: m.memoryId,
      kind: m.kind,
      status: m.status,
      value: m.value,
      content: m.content,
      version: m.version,
      mentionCount: m.mentionCount,
      history: m.history.map((h) => h.value),
    }))
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

export function snapshotRecall(response: Pick<RecallResponse, 'facts' | 'memories' | 'recent'>): UserSnapshot['recall'] {
  return {
    memoryIds: [...new Set([...response.facts.map((f) => f.id), ...response.memories.map((m) => m.id)])].sort(),
    recentTurnIds: response.recent.map((t) => t.turnId),
  };
}

export interface SnapshotComparison {
  readonly equal: boolean;
  readonly users: number;
  readonly memories: { readonly left: number; readonly right: number };
  readonly differenceCount: number;
  /** The first `limit` differences, in user then memory id order. */
  readonly differences: readonly string[];
}

const show = (value: unknown) => JSON.stringify(value);

/** Compares two dumps of the read side: every user, memory and recall answer; lists the first differences. */
export function compareSnapshots(left: ProjectionSnapshot, right: ProjectionSnapshot, limit = 10): SnapshotComparison {
  const differences: string[] = [];
  let count = 0;
  const differ = (text: string) => {
    count++;
    if (differences.length < limit) differences.push(text);
  };
  const users = [...new Set([...Object.keys(left), ...Object.keys(right)])].sort();
  const total = (snapshot: ProjectionSnapshot) => Object.values(snapshot).reduce((sum, user) => sum + user.memories.length, 0);
  for (const userId of users) {
    const a = left[userId];
    const b = right[userId];
    if (!a || !b) {
      differ(`${userId}: only in the ${a ? 'first' : 'second'} dump`);
      continue;
    }
    const byId = new Map(b.memories.map((m) => [m.id, m]));
    for (const memory of a.memories) {
      const other = byId.get(memory.id);
      byId.delete(memory.id);
      if (!other) {
        differ(`${userId} ${memory.id}: only in the first dump (${memory.kind} ${show(memory.value)})`);
        continue;
      }
      for (const field of ['kind', 'status', 'value', 'content', 'version', 'mentionCount', 'history'] as const) {
        if (show(memory[field]) !== show(other[field]))
          differ(`${userId} ${memory.id}: ${field} ${show(memory[field])} ≠ ${show(other[field])}`);
      }
    }
    for (const memory of byId.values()) differ(`${userId} ${memory.id}: only in the second dump (${memory.kind} ${show(memory.value)})`);
    if (show(a.recall.memoryIds) !== show(b.recall.memoryIds))
      differ(`${userId}: recall memories ${show(a.recall.memoryIds)} ≠ ${show(b.recall.memoryIds)}`);
    if (show(a.recall.recentTurnIds) !== show(b.recall.recentTurnIds))
      differ(`${userId}: recall recent turns ${show(a.recall.recentTurnIds)} ≠ ${show(b.recall.recentTurnIds)}`);
  }
  return {
    equal: count === 0,
    users: users.length,
    memories: { left: total(left), right: total(right) },
    differenceCount: count,
    differences,
  };
}

export interface OnlineRebuildReport {
  /** Events of the rebuilds' input topics when the rebuild started, each topic once (memory.facts.v1 + memory.screened.v1). */
  readonly logEvents: number;
  /** Under ingest: messages each projection's rebuild applied (facts and search both read memory.facts.v1). */
  readonly rebuilt: readonly { readonly projection: string; readonly version: number; readonly events: number }[];
  readonly events: number;
  /** From the POST until every projection swapped; events/s over that. */
  readonly secondsToSwap: number;
  readonly eventsPerSec: number;
  /** Until every rebuild was done (the grace period after the swap included). */
  readonly secondsToDone: number;
  /** GET /v1/admin/rebuilds answers other than 200 while following both rebuilds (retried). */
  readonly statusErrors: number;
  /** Turns accepted while the rebuild ran (asked `rate` turns/s, one per POST, sequential: `turnsPerSec` is what the server took). */
  readonly ingest: { readonly rate: number; readonly turns: number; readonly turnsPerSec: number; readonly failures: number };
  readonly recall: LatencySummary & {
    readonly calls: number;
    readonly failures: number;
    readonly errors: number;
    readonly missing: number;
    readonly probes: number;
  };
  /** The second rebuild: the same log, nothing ingested meanwhile. */
  readonly fromScratch: { readonly events: number; readonly secondsToSwap: number; readonly eventsPerSec: number };
  readonly equal: boolean;
  readonly comparison: SnapshotComparison;
}

interface HttpAnswer<T> {
  readonly status: number;
  readonly body: T;
}

function httpClient(url: string, apiKey: string | undefined, adminKey: string | undefined) {
  return async <T>(method: 'GET' | 'POST', route: string, body?: unknown, admin = false): Promise<HttpAnswer<T>> => {
    const key = admin ? adminKey : apiKey;
    const response = await fetch(new URL(route, url), {
      method,
      headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // not JSON: keep the text for the error message
    }
    return { status: response.status, body: parsed as T };
  };
}

type Call = ReturnType<typeof httpClient>;

async function ok<T>(answer: Promise<HttpAnswer<T>>, what: string): Promise<T> {
  const { status, body } = await answer;
  if (status < 200 || status >= 300) throw new Error(`${what} → ${status}: ${typeof body === 'string' ? body : JSON.stringify(body)}`);
  return body;
}

/** Starts an online rebuild of every projection and follows it until each is done (throws if one failed). */
async function onlineRebuild(
  call: Call,
  bars: boolean,
  label: string,
): Promise<{
  rebuilt: OnlineRebuildReport['rebuilt'];
  inputAtStart: number;
  doneAtSwap: number;
  secondsToSwap: number;
  secondsToDone: number;
  statusErrors: number;
}> {
  const started = performance.now();
  const { rebuilds } = await ok(
    call<{ rebuilds: RebuildStatus[] }>('POST', '/v1/admin/rebuilds', { projection: 'all' }, true),
    'POST /v1/admin/rebuilds',
  );
  const key = (r: Pick<RebuildStatus, 'projection' | 'version'>) => `${r.projection}@${r.version}`;
  const wanted = new Set(rebuilds.map(key));
  const atSwap = new Map<string, number>();
  // The input topics' sizes when the rebuild began: the first total a rebuild reports (0 until it looked).
  const totalAtStart = new Map<string, number>();
  let swappedAt: number | null = null;
  const bar = progressBar(bars, label, 1);
  let statusErrors = 0;
  for (let consecutive = 0; ;) {
    // A status read that fails now and then (a store connection reset) is counted, not fatal: the rebuild runs server-side.
    const answer = await call<{ rebuilds: RebuildStatus[] }>('GET', '/v1/admin/rebuilds', undefined, true).catch((error: unknown) => ({
      status: 0,
      body: String(error),
    }));
    if (answer.status !== 200) {
      statusErrors++;
      if (++consecutive >= 40) throw new Error(`GET /v1/admin/rebuilds → ${answer.status}: ${JSON.stringify(answer.body)}`);
      await sleep(500);
      continue;
    }
    consecutive = 0;
    const listed = answer.body as { rebuilds: RebuildStatus[] };
    const mine = listed.rebuilds.filter((r) => wanted.has(key(r)));
    const failed = mine.find((r) => r.phase === 'failed');
    if (failed) {
      bar.stop();
      throw new Error(`online rebuild of ${failed.projection} failed: ${failed.error}`);
    }
    bar.setTotal(
      Math.max(
        1,
        mine.reduce((sum, r) => sum + Math.max(r.total, r.done), 0),
      ),
    );
    bar.update(mine.reduce((sum, r) => sum + r.done, 0));
    for (const r of mine) {
      if (r.total > 0 && !totalAtStart.has(key(r))) totalAtStart.set(key(r), r.total);
      if (r.phase !== 'replaying' && !atSwap.has(key(r))) atSwap.set(key(r), r.done);
    }
    if (swappedAt === null && atSwap.size === wanted.size) swappedAt = performance.now();
    if (mine.length === wanted.size && mine.every((r) => r.phase === 'done')) {
      bar.stop();
      return {
        rebuilt: mine.map((r) => ({ projection: r.projection, version: r.version, events: r.done })),
        // facts and search both replay memory.facts.v1: count that topic once
        inputAtStart: mine.filter((r) => r.projection !== 'search').reduce((sum, r) => sum + (totalAtStart.get(key(r)) ?? r.total), 0),
        doneAtSwap: [...atSwap.values()].reduce((sum, n) => sum + n, 0),
        secondsToSwap: round2(((swappedAt ?? performance.now()) - started) / 1000),
        secondsToDone: round2((performance.now() - started) / 1000),
        statusErrors,
      };
    }
    await sleep(250);
  }
}

/**
 * Every workload user's memories (status=all) and a recall answer about their first statement, with
 * their first session, ranked at `now`. The recalls record accesses like any other: with
 * ENGRAM_ACCESS_WEIGHT > 0 a second dump ranks with the first one's accesses (read-side feedback,
 * not part of any rebuilt projection), so compare rebuilds with the weight at 0.
 */
async function dumpReadSide(call: Call, options: BenchOptions, bars: boolean, label: string, now: string): Promise<ProjectionSnapshot> {
  const users = Math.min(options.users, options.turns);
  const bar = progressBar(bars, label, users);
  const snapshot: Record<string, UserSnapshot> = {};
  for (let user = 0; user < users; user++) {
    const userId = userIdOf(user);
    const { memories } = await ok(
      call<{ memories: MemoryDocument[] }>('GET', `/v1/users/${encodeURIComponent(userId)}/memories?status=all`),
      `memories of ${userId}`,
    );
    const query = questionAbout(userStatements(options.seed, user, 1)[0], seededRandom(streamSeed(options.seed, 'dump', user)));
    const answer = await ok(call<RecallResponse>('POST', '/v1/recall', { userId, query, sessionId: 's0', now }), `recall of ${userId}`);
    snapshot[userId] = { memories: snapshotMemories(memories), recall: snapshotRecall(answer) };
    bar.increment();
  }
  bar.stop();
  return snapshot;
}

async function drainHttp(call: Call): Promise<void> {
  while ((await ok(call<{ pending: number }>('GET', '/v1/pipeline/status'), 'GET /v1/pipeline/status')).pending > 0) await sleep(100);
}

const PROBE_TIMEOUT_MS = 120_000;
/** Turn posts in flight at once while an online rebuild runs under ingest. */
const REBUILD_POSTS_IN_FLIGHT = 8;

/**
 * The rebuild under ingest: probe turns first (each with a word no other turn has, recalled before
 * the rebuild starts), then, while every projection is rebuilt online, turns posted at a steady
 * rate and a sequential recall loop over the probes — a failure is a non-200 or a probe's memory
 * missing. Then the ingest stops, the read side drains and is dumped; a second online rebuild of
 * the same log with nothing ingested (a from-scratch build) must give the same dump.
 */
async function measureOnlineRebuild(url: string, options: BenchOptions, bars: boolean): Promise<OnlineRebuildReport> {
  const call = httpClient(url, options.apiKey ?? process.env.ENGRAM_API_KEY, options.adminKey ?? process.env.ENGRAM_ADMIN_KEY);
  const users = Math.min(options.users, options.turns);

  const probes = Array.from({ length: Math.min(20, users) }, (_, n) => ({
    userId: userIdOf(n),
    turnId: `orp${n}`,
    ...probeStatement(options.seed, 1_000_000 + n),
  }));
  const probeBar = progressBar(bars, 'probes   ', probes.length);
  for (const probe of probes) {
    const turn = { turnId: probe.turnId, role: 'user', text: probe.text, occurredAt: new Date().toISOString() };
    const { position } = await ok(
      call<{ position: string }>('POST', '/v1/turns', { userId: probe.userId, sessionId: 'online-rebuild', turns: [turn] }),
      'POST /v1/turns',
    );
    const found = await waitUntilRecalled(
      { recall: (body) => ok(call<RecallResponse>('POST', '/v1/recall', body), 'POST /v1/recall') },
      probe.userId,
      probe.marker,
      probe.turnId,
      position,
      performance.now(),
      PROBE_TIMEOUT_MS,
    );
    if (found === null)
      throw new Error(`probe ${probe.turnId} of ${probe.userId} not recalled within ${PROBE_TIMEOUT_MS / 1000} s before the rebuild`);
    probeBar.increment();
  }
  probeBar.stop();
  await drainHttp(call);

  let stop = false;
  const ingestStats = { turns: 0, failures: 0 };
  const random = seededRandom(streamSeed(options.seed, 'online-rebuild'));
  // Up to REBUILD_POSTS_IN_FLIGHT posts at once, so a slow answer does not hold the rate down.
  const inFlight = new Set<Promise<void>>();
  const ingestLoop = (async () => {
    const started = performance.now();
    for (let i = 0; !stop; i++) {
      const due = started + (i * 1000) / options.rebuildIngestRate;
      const now = performance.now();
      if (due > now) await sleep(due - now);
      while (inFlight.size >= REBUILD_POSTS_IN_FLIGHT) await Promise.race(inFlight);
      if (stop) break;
      const userId = userIdOf(Math.floor(random() * users));
      const turn = { turnId: `or${i}`, role: 'user', text: pick(random, TEMPLATES)(random).text, occurredAt: new Date().toISOString() };
      const post = call('POST', '/v1/turns', { userId, sessionId: 'online-rebuild', turns: [turn] }).then(
        (answer) => void (answer.status === 202 ? ingestStats.turns++ : ingestStats.failures++),
        () => void ingestStats.failures++,
      );
      inFlight.add(post);
      void post.finally(() => inFlight.delete(post));
    }
    await Promise.all(inFlight);
  })();
  const latencies: number[] = [];
  const recallStats = { errors: 0, missing: 0 };
  const recallLoop = (async () => {
    for (let i = 0; !stop; i++) {
      const probe = probes[i % probes.length];
      const started = performance.now();
      try {
        const answer = await call<RecallResponse>('POST', '/v1/recall', { userId: probe.userId, query: probe.marker, k: 5 });
        latencies.push(performance.now() - started);
        if (answer.status !== 200) recallStats.errors++;
        else if (![...answer.body.facts, ...answer.body.memories].some((m) => m.sourceTurnIds.includes(probe.turnId)))
          recallStats.missing++;
      } catch {
        latencies.push(performance.now() - started);
        recallStats.errors++;
      }
    }
  })();

  let underIngest: Awaited<ReturnType<typeof onlineRebuild>>;
  try {
    underIngest = await onlineRebuild(call, bars, 'rebuild (under ingest) ');
  } finally {
    stop = true;
    await Promise.all([ingestLoop, recallLoop]);
  }
  await drainHttp(call);
  // Both dumps rank at one instant, so time decay cannot tell them apart.
  const dumpNow = new Date().toISOString();
  const first = await dumpReadSide(call, options, bars, 'dump     ', dumpNow);
  const scratch = await onlineRebuild(call, bars, 'rebuild (from scratch) ');
  await drainHttp(call);
  const second = await dumpReadSide(call, options, bars, 'dump     ', dumpNow);
  const comparison = compareSnapshots(first, second);
  const events = underIngest.rebuilt.reduce((sum, r) => sum + r.events, 0);
  const scratchEvents = scratch.rebuilt.reduce((sum, r) => sum + r.events, 0);
  return {
    logEvents: underIngest.inputAtStart,
    rebuilt: underIngest.rebuilt,
    events,
    secondsToSwap: underIngest.secondsToSwap,
    eventsPerSec: Math.round(underIngest.doneAtSwap / Math.max(underIngest.secondsToSwap, 0.001)),
    secondsToDone: underIngest.secondsToDone,
    statusErrors: underIngest.statusErrors + scratch.statusErrors,
    ingest: {
      rate: options.rebuildIngestRate,
      ...ingestStats,
      turnsPerSec: round2(ingestStats.turns / Math.max(underIngest.secondsToDone, 0.001)),
    },
    recall: {
      ...summariseLatencies(latencies),
      calls: latencies.length,
      failures: recallStats.errors + recallStats.missing,
      errors: recallStats.errors,
      missing: recallStats.missing,
      probes: probes.length,
    },
    fromScratch: {
      events: scratchEvents,
      secondsToSwap: scratch.secondsToSwap,
      eventsPerSec: Math.round(scratch.doneAtSwap / Math.max(scratch.secondsToSwap, 0.001)),
    },
    equal: comparison.equal,
    comparison,
  };
}

// ---------------------------------------------------------------------------------------------
// Runner
// ---------------------------------------------------------------------------------------------

export interface BenchOptions {
  readonly turns: number;
  readonly users: number;
  readonly seed: number;
  readonly json: boolean;
  readonly url?: string;
  readonly apiKey?: string;
  /** Turns per POST in the ingest phase. */
  readonly turnsPerRequest: number;
  /** Steady ingest rate of the freshness phase, turns/s, and how many probes it measures. */
  readonly freshnessRate: number;
  readonly freshnessSamples: number;
  /** Recall questions asked sequentially, then (as many again) by `concurrency` clients. */
  readonly queries: number;
  readonly concurrency: number;
  /**
   * Instead of phases 2–4: every projection rebuilt online (through HTTP) while turns keep coming
   * at `rebuildIngestRate` turns/s and recall keeps answering; then a from-scratch rebuild must
   * give the same read side.
   */
  readonly onlineRebuild?: boolean;
  readonly rebuildIngestRate: number;
  readonly adminKey?: string;
  readonly print?: (line: string) => void;
  readonly progress?: boolean;
}

export interface BenchReport {
  readonly mode: 'embedded' | 'http';
  readonly embedder: string | null;
  readonly turns: number;
  readonly users: number;
  readonly seed: number;
  readonly memories: number;
  readonly ingest: { readonly turnsPerSec: number; readonly turns: number; readonly seconds: number; readonly turnsPerRequest: number };
  readonly freshnessMs: {
    readonly p50: number;
    readonly p99: number;
    readonly max: number;
    readonly samples: number;
    readonly missed: number;
    readonly rate: number;
  };
  readonly recallMs: LatencySummary & { readonly concurrent: LatencySummary & { readonly clients: number } };
  readonly rebuild: { readonly eventsPerSec: number | null; readonly events: number | null; readonly seconds: number | null };
  /** With --online-rebuild (phases 2–4 are skipped then: their figures are zeros / null). */
  readonly onlineRebuild?: OnlineRebuildReport;
  /** Of this process (the whole embedded engram); null with --url, where the server is another process. */
  readonly peakRssMb: number | null;
  /** Peaks of the V8 heap and of memory outside it, and the CPU this process used: to read the figures on a busy machine. */
  readonly process: {
    readonly peakHeapMb: number;
    readonly peakExternalMb: number;
    /** Peak RSS reached by the end of each phase. */
    readonly peakRssMbAfter: Readonly<Record<'ingest' | 'freshness' | 'recall' | 'rebuild', number>>;
    readonly cpuSeconds: number;
    readonly wallSeconds: number;
    /**
     * CPU seconds this process used in each phase, and throughput per CPU second: what a phase
     * costs, which a shared machine's load does not change as much as turns/s (embedded only).
     */
    readonly phaseCpuSeconds: Readonly<Record<'ingest' | 'freshness' | 'recall' | 'rebuild', number>> | null;
    readonly ingestTurnsPerCpuSecond: number | null;
    readonly rebuildEventsPerCpuSecond: number | null;
  };
}

const FRESHNESS_TIMEOUT_MS = 30_000;
const MB = 1024 * 1024;

export async function runBench(options: BenchOptions, startEmbedded: (http: boolean) => Promise<BenchEngine>): Promise<BenchReport> {
  const print = options.print ?? ((line: string) => console.log(line));
  const bars = options.progress ?? true;
  const engine = options.url
    ? httpEngine(options.url, options.apiKey ?? process.env.ENGRAM_API_KEY)
    : await startEmbedded(options.onlineRebuild === true);
  const rss = new RssSampler();
  const cpuAtStart = process.cpuUsage();
  const wallAtStart = performance.now();
  let cpuMark = cpuAtStart;
  const cpuSince = (): number => {
    const now = process.cpuUsage();
    const seconds = (now.user - cpuMark.user + now.system - cpuMark.system) / 1e6;
    cpuMark = now;
    return round2(seconds);
  };
  try {
    // 1. Ingest at full speed, until the read side has caught up.
    const ingestBar = progressBar(bars, 'ingest   ', options.turns);
    const ingestStarted = performance.now();
    for (const request of workloadRequests(options)) {
      await engine.ingest(request);
      ingestBar.increment(request.turns.length);
    }
    ingestBar.stop();
    await drain(engine, bars);
    const ingestSeconds = (performance.now() - ingestStarted) / 1000;
    const peakRssMbAfter = { ingest: rss.mark(), freshness: 0, recall: 0, rebuild: 0 };
    const phaseCpuSeconds = { ingest: cpuSince(), freshness: 0, recall: 0, rebuild: 0 };

    let freshness: BenchReport['freshnessMs'] = { p50: 0, p99: 0, max: 0, samples: 0, missed: 0, rate: options.freshnessRate };
    const sequential: number[] = [];
    const concurrent: number[] = [];
    let memories = 0;
    let rebuild: BenchReport['rebuild'] = { eventsPerSec: null, events: null, seconds: null };
    let onlineRebuild: OnlineRebuildReport | undefined;
    if (options.onlineRebuild) {
      if (!engine.url) throw new Error("--online-rebuild needs the engram's HTTP API");
      onlineRebuild = await measureOnlineRebuild(engine.url, options, bars);
      memories = onlineRebuild.comparison.memories.right;
    } else {
      // 2. Freshness at a steady rate, at that size.
      freshness = await measureFreshness(engine, options, bars);
      await drain(engine, bars); // recall is timed on a pipeline at rest, not on freshness's backlog
      peakRssMbAfter.freshness = rss.mark();
      phaseCpuSeconds.freshness = cpuSince();

      // 3. Recall latency: sequential, then overlapping clients.
      const queries = workloadQueries(options, options.queries);
      const recallBar = progressBar(bars, 'recall   ', queries.length);
      for (const query of queries) {
        const started = performance.now();
        await engine.recall(query);
        sequential.push(performance.now() - started);
        recallBar.increment();
      }
      recallBar.stop();
      const concurrentBar = progressBar(bars, `recall×${options.concurrency} `, queries.length);
      let next = 0;
      await Promise.all(
        Array.from({ length: options.concurrency }, async () => {
          while (next < queries.length) {
            const query = queries[next++];
            const started = performance.now();
            await engine.recall(query);
            concurrent.push(performance.now() - started);
            concurrentBar.increment();
          }
        }),
      );
      concurrentBar.stop();

      const memoriesBar = progressBar(bars, 'count    ', Math.min(options.users, options.turns));
      for (let user = 0; user < Math.min(options.users, options.turns); user++) {
        memories += await engine.memories(userIdOf(user));
        memoriesBar.increment();
      }
      memoriesBar.stop();
      peakRssMbAfter.recall = rss.mark();
      phaseCpuSeconds.recall = cpuSince();

      // 4. Rebuild (embedded only: offline, on the same data directory).
      if (engine.rebuild) {
        let bar: SingleBar | undefined;
        let current = '';
        const result = await engine.rebuild((done, total, projection) => {
          if (projection !== current) {
            bar?.stop();
            current = projection;
            bar = progressBar(bars, `rebuild ${projection.padEnd(12)}`, total);
          }
          bar?.update(done);
        });
        bar?.stop();
        rebuild = {
          eventsPerSec: Math.round(result.events / Math.max(result.seconds, 0.001)),
          events: result.events,
          seconds: round2(result.seconds),
        };
      }
    }
    peakRssMbAfter.rebuild = rss.mark();
    phaseCpuSeconds.rebuild = cpuSince();
    const embedded = engine.mode === 'embedded';

    const report: BenchReport = {
      mode: engine.mode,
      embedder: engine.embedder,
      turns: options.turns,
      users: options.users,
      seed: options.seed,
      memories,
      ingest: {
        turnsPerSec: Math.round(options.turns / ingestSeconds),
        turns: options.turns,
        seconds: round2(ingestSeconds),
        turnsPerRequest: options.turnsPerRequest,
      },
      freshnessMs: freshness,
      recallMs: { ...summariseLatencies(sequential), concurrent: { ...summariseLatencies(concurrent), clients: options.concurrency } },
      rebuild,
      ...(onlineRebuild ? { onlineRebuild } : {}),
      peakRssMb: engine.mode === 'embedded' ? rss.peakMb() : null,
      process: {
        peakHeapMb: rss.breakdownMb().heapUsed,
        peakExternalMb: rss.breakdownMb().external,
        peakRssMbAfter,
        cpuSeconds: round2(((cpu) => (cpu.user + cpu.system) / 1e6)(process.cpuUsage(cpuAtStart))),
        wallSeconds: round2((performance.now() - wallAtStart) / 1000),
        phaseCpuSeconds: embedded ? phaseCpuSeconds : null,
        ingestTurnsPerCpuSecond: embedded ? Math.round(options.turns / Math.max(phaseCpuSeconds.ingest, 0.01)) : null,
        rebuildEventsPerCpuSecond:
          embedded && rebuild.events !== null ? Math.round(rebuild.events / Math.max(phaseCpuSeconds.rebuild, 0.01)) : null,
      },
    };
    print(formatBenchReport(report));
    if (options.json) print(JSON.stringify(report));
    return report;
  } finally {
    rss.stop();
    await engine.close();
  }
}

/**
 * Posts turns for existing users at `freshnessRate` turns/s (one turn per POST, so the rate is
 * even); every k-th turn is a probe, timed from its POST until recall returns a memory sourced
 * from it. The probe's recall passes the POST's position as `after`, so the server tells when the
 * read side has caught up (cheap offset checks) instead of the bench polling recall in a loop —
 * dozens of probes polling a full recall every few milliseconds would load the very pipeline they
 * time. Waiting does not make the pipeline faster: this is still how long it takes on its own.
 */
async function measureFreshness(engine: BenchEngine, options: BenchOptions, bars: boolean): Promise<BenchReport['freshnessMs']> {
  const samples = options.freshnessSamples;
  const probeEvery = 5;
  const total = samples * probeEvery;
  const random = seededRandom(streamSeed(options.seed, 'freshness'));
  const users = Math.min(options.users, options.turns);
  const bar = progressBar(bars, 'freshness', samples);
  const waits: Promise<number | null>[] = [];
  const started = performance.now();
  for (let i = 0; i < total; i++) {
    const due = started + (i * 1000) / options.freshnessRate;
    const now = performance.now();
    if (due > now) await sleep(due - now);
    const user = Math.floor(random() * users);
    const userId = userIdOf(user);
    const turnId = `f${i}`;
    const probe = i % probeEvery === 0 ? probeStatement(options.seed, i / probeEvery) : null;
    const text = probe ? probe.text : pick(random, TEMPLATES)(random).text;
    const posted = performance.now();
    const ingested = engine.ingest({
      userId,
      sessionId: 'fresh',
      turns: [{ turnId, role: 'user', text, occurredAt: new Date().toISOString() } as TurnDto],
    } as PostTurnsDto);
    if (probe) {
      waits.push(
        ingested
          .then((position) => waitUntilRecalled(engine, userId, probe.marker, turnId, position, posted))
          .then((ms) => {
            bar.increment();
            return ms;
          }),
      );
    } else {
      await ingested;
    }
  }
  const results = await Promise.all(waits);
  bar.stop();
  const found = results.filter((ms): ms is number => ms !== null);
  const summary = summariseLatencies(found);
  return {
    p50: summary.p50,
    p99: summary.p99,
    max: summary.max,
    samples: found.length,
    missed: results.length - found.length,
    rate: options.freshnessRate,
  };
}

async function waitUntilRecalled(
  engine: Pick<BenchEngine, 'recall'>,
  userId: string,
  marker: string,
  turnId: string,
  position: string,
  posted: number,
  timeoutMs = FRESHNESS_TIMEOUT_MS,
): Promise<number | null> {
  while (performance.now() - posted < timeoutMs) {
    // Answers once the read side has reached `position` (or after ENGRAM_AFTER_TIMEOUT_MS): then look.
    const response = await engine.recall({ userId, query: marker, k: 5, after: position } as RecallDto);
    if ([...response.facts, ...response.memories].some((m) => m.sourceTurnIds.includes(turnId))) return performance.now() - posted;
    await sleep(20);
  }
  return null;
}

/**
 * Peak resident set (the kernel's high-water mark, plus samples in case maxRSS is unavailable),
 * with the peaks of the V8 heap and of memory outside it (SQLite's page cache, buffers), to tell
 * where it goes.
 */
class RssSampler {
  private peak = { rss: 0, heapUsed: 0, external: 0 };
  private readonly timer = setInterval(() => this.sample(), 250);

  constructor() {
    this.sample();
  }

  private sample(): void {
    const usage = process.memoryUsage();
    this.peak = {
      rss: Math.max(this.peak.rss, usage.rss),
      heapUsed: Math.max(this.peak.heapUsed, usage.heapUsed),
      external: Math.max(this.peak.external, usage.external + usage.arrayBuffers),
    };
  }

  peakMb(): number {
    const kernel = process.resourceUsage().maxRSS * 1024; // kilobytes
    return Math.round(Math.max(this.peak.rss, kernel) / MB);
  }

  /** Peak RSS so far, in MB (marks the end of a phase). */
  mark(): number {
    this.sample();
    return this.peakMb();
  }

  breakdownMb(): { heapUsed: number; external: number } {
    return { heapUsed: Math.round(this.peak.heapUsed / MB), external: Math.round(this.peak.external / MB) };
  }

  stop(): void {
    clearInterval(this.timer);
  }
}

async function drain(engine: BenchEngine, bars: boolean): Promise<void> {
  let pending = await engine.pending();
  const bar = progressBar(bars, 'pipeline ', Math.max(1, pending));
  const total = Math.max(1, pending);
  while (pending > 0) {
    await sleep(20);
    pending = await engine.pending();
    bar.update(Math.max(0, total - pending));
  }
  bar.update(total);
  bar.stop();
}

export function formatBenchReport(report: BenchReport): string {
  const ms = (v: number | null) => (v === null ? '—' : `${v} ms`);
  const r = report.recallMs;
  const o = report.onlineRebuild;
  const phases = o
    ? [
        `online rebuild of ${o.logEvents} log events (facts + screened topics) under ingest: ${o.events} events applied (${o.rebuilt.map((p) => `${p.projection} ${p.events}`).join(', ')}), ` +
          `${o.eventsPerSec} events/s, swapped after ${o.secondsToSwap} s, done after ${o.secondsToDone} s (grace period included)` +
          (o.statusErrors > 0 ? `; ${o.statusErrors} status reads failed (retried)` : ''),
        `  ingest   ${o.ingest.turns} turns meanwhile (${o.ingest.turnsPerSec}/s of ${o.ingest.rate}/s asked), ${o.ingest.failures} failed`,
        `  recall   ${o.recall.calls} calls over ${o.recall.probes} probes, ${o.recall.failures} failures (${o.recall.errors} non-200, ${o.recall.missing} probe missing); ` +
          `p50 ${ms(o.recall.p50)}  p99 ${ms(o.recall.p99)}  max ${ms(o.recall.max)}`,
        `from scratch ${o.fromScratch.events} events, ${o.fromScratch.eventsPerSec} events/s, swapped after ${o.fromScratch.secondsToSwap} s`,
        `equal      ${o.equal} (${o.comparison.users} users, ${o.comparison.memories.left} / ${o.comparison.memories.right} memories, status=all, and a recall each)` +
          (o.equal ? '' : `; ${o.comparison.differenceCount} differences, first: ${o.comparison.differences.join(' | ')}`),
      ]
    : [
        `freshness  p50 ${ms(report.freshnessMs.p50)}  p99 ${ms(report.freshnessMs.p99)}  max ${ms(report.freshnessMs.max)}  at ${report.freshnessMs.rate} turns/s (${report.freshnessMs.samples} probes, ${report.freshnessMs.missed} not recalled within ${FRESHNESS_TIMEOUT_MS / 1000} s)`,
        `recall     p50 ${ms(r.p50)}  p95 ${ms(r.p95)}  p99 ${ms(r.p99)}  (sequential, ${r.samples} queries)`,
        `           p50 ${ms(r.concurrent.p50)}  p95 ${ms(r.concurrent.p95)}  p99 ${ms(r.concurrent.p99)}  (${r.concurrent.clients} concurrent clients)`,
        report.rebuild.eventsPerSec === null
          ? 'rebuild    — (only embedded: a running server is rebuilt offline with `engram rebuild`)'
          : `rebuild    ${report.rebuild.eventsPerSec} events/s (${report.rebuild.events} events in ${report.rebuild.seconds} s)`,
      ];
  return [
    `engram bench (${report.mode}${report.embedder ? `, ${report.embedder}` : ''}): ${report.turns} turns over ${report.users} users → ${report.memories} memories`,
    `ingest     ${report.ingest.turnsPerSec} turns/s (${report.ingest.turns} turns in ${report.ingest.seconds} s, ${report.ingest.turnsPerRequest} per POST, until nothing pending)`,
    ...phases,
    report.peakRssMb === null
      ? 'peak RSS   — (the server behind --url is another process)'
      : `peak RSS   ${report.peakRssMb} MB (this process: the whole embedded engram; heap peak ${report.process.peakHeapMb} MB, outside the heap ${report.process.peakExternalMb} MB; ` +
        `after ingest ${report.process.peakRssMbAfter.ingest}, freshness ${report.process.peakRssMbAfter.freshness}, recall ${report.process.peakRssMbAfter.recall}, rebuild ${report.process.peakRssMbAfter.rebuild})`,
    `CPU        ${report.process.cpuSeconds} s in ${report.process.wallSeconds} s (${Math.round((100 * report.process.cpuSeconds) / Math.max(report.process.wallSeconds, 0.001))}% of one core)` +
      (report.process.phaseCpuSeconds
        ? `; ingest ${report.process.phaseCpuSeconds.ingest} s (${report.process.ingestTurnsPerCpuSecond} turns per CPU second), ` +
          `recall ${report.process.phaseCpuSeconds.recall} s, rebuild ${report.process.phaseCpuSeconds.rebuild} s (${report.process.rebuildEventsPerCpuSecond ?? '—'} events per CPU second)`
        : ''),
    ...(!o && report.freshnessMs.rate > report.ingest.turnsPerSec
      ? [
          `note       freshness was measured at ${report.freshnessMs.rate} turns/s, above the ingest throughput (${report.ingest.turnsPerSec}/s): it includes the growing backlog`,
        ]
      : []),
  ].join('\n');
}

function progressBar(enabled: boolean, label: string, total: number): SingleBar {
  const bar = new SingleBar(
    {
      format: `${label} [{bar}] {percentage}% | {value}/{total} | {eta_formatted} left`,
      stream: process.stderr,
      noTTYOutput: false,
      hideCursor: true,
    },
    Presets.shades_classic,
  );
  if (enabled) bar.start(total, 0);
  else bar.setTotal(total);
  return bar;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function positiveInt(name: string, max = Number.MAX_SAFE_INTEGER) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < 1 || n > max) throw new InvalidArgumentError(`${name} must be an integer from 1 to ${max}`);
    return n;
  };
}

/** Adds `engram bench [--turns N] [--users U] [--json] [--url <url>] …`. */
export function registerBenchCommand(program: Command, modules: CliModules): Command {
  return program
    .command('bench')
    .description('measure ingest throughput, freshness, recall latency, rebuild throughput and peak RSS on a synthetic bilingual workload')
    .option('--turns <n>', 'turns to ingest (about one memory each)', positiveInt('turns'), 100_000)
    .option('--users <n>', 'users the turns are spread over', positiveInt('users'), 1_000)
    .option('--seed <n>', 'workload seed', positiveInt('seed'), 42)
    .option('--json', 'print the report as one JSON object on the last line of stdout')
    .option('--url <url>', 'benchmark a running engram (its data is added to; no rebuild, no RSS)')
    .option('--api-key <key>', 'API key for --url (or ENGRAM_API_KEY)')
    .option('--turns-per-request <n>', 'turns per POST while ingesting', positiveInt('turns-per-request', 500), 10)
    .option('--freshness-rate <n>', 'turns/s posted while measuring freshness', positiveInt('freshness-rate', 100_000), 200)
    .option('--freshness-samples <n>', 'probe turns timed for freshness', positiveInt('freshness-samples'), 100)
    .option('--queries <n>', 'recall questions, sequential and again concurrent', positiveInt('queries'), 1_000)
    .option('--concurrency <n>', 'concurrent recall clients', positiveInt('concurrency', 1000), 8)
    .option(
      '--online-rebuild',
      'instead of freshness/recall/rebuild: rebuild every projection online while ingest and recall go on, then check it equals a from-scratch rebuild',
    )
    .option('--rebuild-ingest-rate <n>', 'turns/s posted during the online rebuild', positiveInt('rebuild-ingest-rate', 100_000), 50)
    .option('--admin-key <key>', 'admin key for the online rebuild (or ENGRAM_ADMIN_KEY)')
    .action(
      async (options: {
        turns: number;
        users: number;
        seed: number;
        json?: boolean;
        url?: string;
        apiKey?: string;
        turnsPerRequest: number;
        freshnessRate: number;
        freshnessSamples: number;
        queries: number;
        concurrency: number;
        onlineRebuild?: boolean;
        rebuildIngestRate: number;
        adminKey?: string;
      }) => {
        await runBench({ ...options, json: options.json === true, onlineRebuild: options.onlineRebuild === true }, (http) =>
          embeddedEngine(modules, process.env, http),
        );
      },
    );
}
