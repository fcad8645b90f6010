import type { MemoryKind, MemoryRecord, MemoryStatus } from '@engram/contracts';
import type { FactStore, ProjectionVersions } from '@engram/ports';

/** One side of a changed memory: the fields a reader of recall would notice. */
interface MemoryFace {
  readonly memoryId: string;
  readonly mergeKey: string;
  readonly kind: MemoryKind;
  readonly status: MemoryStatus;
  readonly value: string;
  readonly content: string;
}

interface MemoryChange {
  readonly mergeKey: string;
  /** Which of value, content, status, kind differ. */
  readonly fields: readonly ('value' | 'content' | 'status' | 'kind')[];
  readonly before: MemoryFace;
  readonly after: MemoryFace;
}

export interface UserDiff {
  readonly tenantId: string;
  readonly userId: string;
  readonly added: MemoryFace[];
  readonly removed: MemoryFace[];
  readonly changed: MemoryChange[];
  readonly unchanged: number;
}

export interface ProjectionDiff {
  readonly a: number;
  readonly b: number;
  readonly totals: {
    readonly users: number;
    readonly added: number;
    readonly removed: number;
    readonly changed: number;
    readonly unchanged: number;
  };
  /** Users with at least one difference. */
  readonly users: UserDiff[];
}

const face = (m: MemoryRecord): MemoryFace => ({
  memoryId: m.memoryId,
  mergeKey: m.mergeKey,
  kind: m.kind,
  status: m.status,
  value: m.value,
  content: m.content,
});

/**
 * One user's memories in two versions. Memories pair up by id, else by merge
 * key (a store holds one memory per merge key; another extractor version gives
 * the same fact another id): a pair differing in value, content, status or
 * kind is changed, an unpaired one added or removed.
 */
export function diffMemories(before: readonly MemoryRecord[], after: readonly MemoryRecord[]): Omit<UserDiff, 'tenantId' | 'userId'> {
  const afterById = new Map(after.map((m) => [m.memoryId, m]));
  const afterByKey = new Map(after.map((m) => [m.mergeKey, m]));
  const paired = new Set<string>();
  const removed: MemoryFace[] = [];
  const changed: MemoryChange[] = [];
  let unchanged = 0;
  for (const old of before) {
    let match = afterById.get(old.memoryId);
    if (!match || paired.has(match.memoryId)) match = afterByKey.get(old.mergeKey);
    if (!match || paired.has(match.memoryId)) {
      removed.push(face(old));
      continue;
    }
    paired.add(match.memoryId);
    const fields = (['value', 'content', 'status', 'kind'] as const).filter((f) => old[f] !== match![f]);
    if (fields.length === 0) unchanged++;
    else changed.push({ mergeKey: match.mergeKey, fields, before: face(old), after: face(match) });
  }
  const added = after.filter((m) => !paired.has(m.memoryId)).map(face);
  return { added, removed, changed, unchanged };
}

/** Compares two versions of the facts projection, user by user, through the port (any adapter). */
export async function diffFactVersions(
  versions: ProjectionVersions<FactStore>,
  a: number,
  b: number,
  filter: { tenantId?: string; userId?: string } = {},
): Promise<ProjectionDiff> {
  const existing = await versions.list();
  for (const v of [a, b])
    if (!existing.includes(v)) throw new Error(`facts@${v} does not exist (versions: ${existing.map((n) => `facts@${n}`).join(', ')})`);
  const [storeA, storeB] = [await versions.open(a), await versions.open(b)];
  const keyed = new Map<string, { tenantId: string; userId: string }>();
  for (const u of [...(await storeA.users()), ...(await storeB.users())]) keyed.set(`${u.tenantId}\u0000${u.userId}`, u);
  const users = [...keyed.entries()]
    .sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0))
    .map(([, u]) => u)
    .filter(
      (u) =>
        (filter.tenantId === undefined || u.tenantId === filter.tenantId) && (filter.userId === undefined || u.userId === filter.userId),
    );
  const diffs: UserDiff[] = [];
  const totals = { users: users.length, added: 0, removed: 0, changed: 0, unchanged: 0 };
  for (const { tenantId, userId } of users) {
    const diff = diffMemories(await storeA.list({ tenantId, userId }), await storeB.list({ tenantId, userId }));
    totals.added += diff.added.length;
    totals.removed += diff.removed.length;
    totals.changed += diff.changed.length;
    totals.unchanged += diff.unchanged;
    if (diff.added.length + diff.removed.length + diff.changed.length > 0) diffs.push({ tenantId, userId, ...diff });
  }
  return { a, b, totals, users: diffs };
}

/** `facts@2`, `2`, or `active` → a version number. */
export function parseFactsVersion(spec: string, active: number): number {
  if (spec === 'active' || spec === 'facts@active') return active;
  const match = /^(?:facts@)?(\d+)$/.exec(spec);
  if (!match || Number(match[1]) < 1) throw new Error(`a version is facts@<n>, <n> or active, not "${spec}"`);
  return Number(match[1]);
}

/** The listing an operator reads before a switch. */
export function formatDiff(diff: ProjectionDiff): string {
  const lines = [
    `facts@${diff.a} → facts@${diff.b}: ${diff.totals.users} users, ${diff.totals.added} added, ${diff.totals.removed} removed, ` +
      `${diff.totals.changed} changed, ${diff.totals.unchanged} unchanged`,
  ];
  const show = (m: MemoryFace) =>
    `[${m.kind}${m.status === 'active' ? '' : `, ${m.status}`}] ${m.mergeKey} = ${JSON.stringify(m.value)}  ${JSON.stringify(m.content)}`;
  for (const user of diff.users) {
    lines.push(
      '',
      `${user.tenantId}/${user.userId}: +${user.added.length} -${user.removed.length} ~${user.changed.length} =${user.unchanged}`,
    );
    for (const m of user.removed) lines.push(`  - ${show(m)}`);
    for (const m of user.added) lines.push(`  + ${show(m)}`);
    for (const c of user.changed) {
      lines.push(`  ~ ${c.mergeKey} (${c.fields.join(', ')})`);
      for (const f of c.fields) lines.push(`      ${f}: ${JSON.stringify(c.before[f])} → ${JSON.stringify(c.after[f])}`);
    }
  }
  return lines.join('\n');
}
