import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { createHash, type Hash } from 'node:crypto';
import * as os from 'node:os';
import { EngramConfig } from '@engram/config';
import { Topics, topicVersionOf, versionedTopic } from '@engram/contracts';
import { eventAssociatedData, isSealed, sealText } from '@engram/domain';
import {
  ConsumedMessage,
  EventLog,
  LogMigration,
  LogPosition,
  LogVersions,
  LogVersionState,
  reached,
  RebuildLedger,
  ResetTarget,
  StoredMessage,
  serialiseLogValue,
} from '@engram/ports';
import { STORED_EVENT_LOG } from '../bindings/stored-event-log';
import { runningServer } from '../cli/server-file';
import { consumeUpToOrFail } from '../replay/consume-up-to';
import { isDeadLetter } from '../transport/dead-letter';
import { DataKeyRing } from './data-key-ring';

/** Refused, with what to do: another run holds the log, a server or consumer is running, the log cannot be copied as it is. */
export class EncryptLogConflict extends Error {}

export interface EncryptLogProgress {
  readonly phase: 'scanning' | 'sealing' | 'verifying' | 'switching' | 'deleting';
  readonly done: number;
  readonly total: number;
}

export interface EncryptLogOptions {
  readonly onProgress?: (progress: EncryptLogProgress) => void;
}

/** What became of one topic's messages. */
export interface EncryptedTopic {
  /** Without the version suffix (`memory.turns.v1`), deployment prefix included. */
  readonly topic: string;
  readonly messages: number;
  /** Plaintext payloads now sealed with their user's key. */
  readonly sealed: number;
  /** Plaintext payloads of users forgotten after them: only the envelope is kept, the payload sealed empty under a key that exists nowhere. */
  readonly shredded: number;
  /** Already sealed, or UserForgotten: copied as they were. */
  readonly unchanged: number;
  /** Not an event of any user (not JSON, no tenant or user): copied as they were, and reported. */
  readonly unattributed: number;
}

export interface EncryptLogResult {
  readonly runId: string;
  /** The log version read, and the one written (equal when there was nothing to seal). */
  readonly from: number;
  readonly to: number;
  /** False: every payload was sealed already, nothing was copied or switched. */
  readonly switched: boolean;
  /** True when this run finished one that was interrupted. */
  readonly resumed: boolean;
  readonly topics: readonly EncryptedTopic[];
  /** Topics of the old version left in place: not copied (they appeared after the run read the log) and not empty. */
  readonly leftOver: readonly string[];
}

/** How long a run's heartbeat is trusted: older, the run has died and the next one takes over. */
const LEASE_MS = 30_000;
const HEARTBEAT_MS = 5_000;

/** One user's forgets in one topic: which (by event id), and the offset of the last one per partition. */
interface Forgets {
  readonly ids: Set<string>;
  readonly last: Map<number, number>;
}

/** What the scan of one source topic found, per partition. */
interface Scanned {
  /** Without version suffix. */
  readonly topic: string;
  /** As stored, in the version read. */
  readonly stored: string;
  readonly end: LogPosition;
  /** First offset each partition still holds (Kafka's retention may have deleted earlier ones). */
  readonly low: Map<number, number>;
  readonly count: Map<number, number>;
  /** sha256 of the messages' identities, in order: the copy must have the same. */
  readonly digest: Map<number, string>;
  plaintext: number;
}

type Verdict =
  { readonly kind: 'unchanged' | 'unattributed'; readonly raw: string } | { readonly kind: 'sealed' | 'shredded'; readonly raw: string };

interface EventShape {
  readonly eventId: string;
  readonly type: string;
  readonly tenantId: string;
  readonly userId: string;
  readonly payload: unknown;
}

function isEventShaped(value: unknown): value is EventShape {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return (
    typeof v.eventId === 'string' &&
    typeof v.type === 'string' &&
    typeof v.tenantId === 'string' &&
    typeof v.userId === 'string' &&
    typeof v.payload === 'object' &&
    v.payload !== null
  );
}

const isPlaintext = (event: EventShape) => event.type !== 'UserForgotten' && !isSealed(event.payload);
const userOf = (tenantId: string, userId: string) => `${tenantId}\u0000${userId}`;

function parse(raw: string): unknown {
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * What a message is, for the digest that proves a copy complete and in order: its key and
 * envelope (ids, type, user), which sealing leaves as they were; the raw bytes of anything that
 * is not an event.
 */
function identityOf(key: string, raw: string, value: unknown): string {
  if (isEventShaped(value)) return `${key}\u0000e\u0000${value.eventId}\u0000${value.type}\u0000${value.tenantId}\u0000${value.userId}`;
  if (isDeadLetter(value)) {
    const inner = parse(value.raw);
    const of = isEventShaped(inner)
      ? `e\u0000${inner.eventId}\u0000${inner.type}\u0000${inner.tenantId}\u0000${inner.userId}`
      : `r\u0000${value.raw}`;
    return `${key}\u0000d\u0000${value.topic}\u0000${value.partition}\u0000${value.offset}\u0000${value.stage}\u0000${value.failedAt}\u0000${of}`;
  }
  return `${key}\u0000r\u0000${raw}`;
}

/** Nothing readable left in it: every event payload sealed, except the tombstone. */
function holdsNoPlaintext(value: unknown): boolean {
  if (isEventShaped(value)) return !isPlaintext(value);
  if (isDeadLetter(value)) {
    const inner = parse(value.raw);
    return !isEventShaped(inner) || !isPlaintext(inner);
  }
  return true;
}

/**
 * `engram encrypt-log`: seals a log written before crypto-shredding (or by producers writing
 * plaintext to Kafka) by copying every topic into the next version of the log, and switching
 * (docs/security.md, "Sealing a log from before"). Modelled on a reprocess: the new version is
 * written beside the old one, nothing reads it until the switch, and the switch is one write of
 * the log's version (LogVersions), which every process reads.
 *
 * 1. Claims the log (a lease in LogVersions: a second run refuses; one whose owner died is taken
 *    over and resumed). From then on, no process writes to the log (VersionedTopicsEventLog);
 *    the run waits until every process has seen that, and refuses while a server or a consumer
 *    is running.
 * 2. Scans every topic of the version: UserForgotten of each user, offsets (gapless), a digest.
 * 3. Copies each topic into `<topic>.log<N+1>`, message for message, partition for partition:
 *    a plaintext payload is sealed with its user's key; one of a user forgotten after it keeps
 *    only its envelope (sealed empty, under a key that exists nowhere: it reads as shredded);
 *    sealed payloads and UserForgotten as they are. Offsets are the same (shifted by what
 *    retention deleted), so consumer positions and reprocess switch positions carry over.
 *    Resumable: the new topic's end is the checkpoint.
 * 4. Verifies each copy: as many messages, the same digest, no plaintext payload.
 * 5. Moves every consumer group's position over, switches the version, deletes the old topics
 *    (embedded: their rows zeroed by secure_delete, the write-ahead log checkpointed).
 */
@Injectable()
export class LogEncryptor {
  private readonly log = new Logger(LogEncryptor.name);

  constructor(
    @Inject(STORED_EVENT_LOG) private readonly stored: EventLog,
    @Inject(LogVersions) private readonly versions: LogVersions,
    private readonly keys: DataKeyRing,
    @Inject(RebuildLedger) private readonly ledger: RebuildLedger,
    @Optional() private readonly config: EngramConfig = new EngramConfig(),
  ) {}

  async run(options: EncryptLogOptions = {}): Promise<EncryptLogResult> {
    this.refuseIfServerRuns();
    const before = await this.versions.read();
    if (!before.migration) await this.refuseIfConsuming(await this.sourceTopics(before.version), '');
    const lease = await this.claim();
    const { migration } = lease.state;
    const group = `encrypt-log-${migration.runId}`;
    let copying = false;
    try {
      let scanned: Scanned[] = [];
      if (migration.phase === 'copying') {
        // Every process looks at the log's version at most every ENGRAM_PROJECTION_POINTER_TTL_MS:
        // after twice that, none writes to the old topics any more.
        await sleep(2 * this.config.ENGRAM_PROJECTION_POINTER_TTL_MS + 250);
        const sources = await this.sourceTopics(migration.from);
        await this.refuseIfConsuming(sources, group);
        scanned = await this.scan(sources, group, options);
        await this.refuseIfPositionsCannotMove(scanned);
        const copies = new Set(await this.stored.listTopics());
        const started = scanned.some((s) => copies.has(versionedTopic(s.topic, migration.to)));
        if (!started && scanned.every((s) => s.plaintext === 0)) {
          await lease.write({ version: migration.from });
          this.log.log({ runId: migration.runId, topics: scanned.length }, 'encrypt-log: every payload is sealed already; nothing to do');
          return {
            runId: migration.runId,
            from: migration.from,
            to: migration.from,
            switched: false,
            resumed: lease.resumed,
            topics: [],
            leftOver: [],
          };
        }
        copying = true;
        const topics = await this.copyAll(scanned, migration, group, options);
        await this.verifyAll(scanned, migration, group, options);
        this.refuseIfServerRuns();
        await this.refuseIfConsuming(sources, group);
        await this.carryPositions(scanned, migration, group, options);
        await lease.write({ version: migration.to, migration: { ...migration, phase: 'switched' } });
        this.log.log({ runId: migration.runId, version: migration.to }, 'encrypt-log: switched to the sealed log');
        const leftOver = await this.deleteOld(migration, options);
        await lease.write({ version: migration.to });
        return { runId: migration.runId, from: migration.from, to: migration.to, switched: true, resumed: lease.resumed, topics, leftOver };
      }
      // Switched already (a run interrupted while deleting): finish the deletion.
      const leftOver = await this.deleteOld(migration, options);
      await lease.write({ version: migration.to });
      return { runId: migration.runId, from: migration.from, to: migration.to, switched: true, resumed: true, topics: [], leftOver };
    } catch (error) {
      if (copying || lease.resumed) await lease.release();
      else await lease.rollBack();
      throw error;
    } finally {
      lease.stop();
    }
  }

  /**
   * Gives up an interrupted run that has not switched: deletes what it copied and leaves the log
   * at the version it was, writable again.
   */
  async abort(): Promise<{ readonly runId: string; readonly deleted: readonly string[] }> {
    const state = await this.versions.read();
    const migration = state.migration;
    if (!migration) throw new EncryptLogConflict('no encrypt-log run to abort');
    if (migration.phase !== 'copying')
      throw new EncryptLogConflict(
        `run ${migration.runId} has switched to version ${migration.to} already: run engram encrypt-log to finish it`,
      );
    if (this.alive(migration)) throw new EncryptLogConflict(this.runningMessage(migration));
    const copies = (await this.stored.listTopics()).filter((t) => this.isOurs(t) && topicVersionOf(t).logVersion === migration.to);
    await this.stored.deleteTopics(copies);
    if (!(await this.versions.replace(state.revision, { version: state.version })))
      throw new EncryptLogConflict('the log changed while aborting: look again');
    return { runId: migration.runId, deleted: copies };
  }

  private refuseIfServerRuns(): void {
    if (this.config.ENGRAM_MODE !== 'embedded') return;
    const server = runningServer(this.config.ENGRAM_DATA_DIR);
    if (server)
      throw new EncryptLogConflict(
        `an engram server (pid ${server.pid}) is using ${this.config.ENGRAM_DATA_DIR}: stop it first (encrypt-log rewrites the log with nothing running)`,
      );
  }

  private async refuseIfConsuming(sources: readonly string[], own: string): Promise<void> {
    for (const topic of sources) {
      const running = (await this.stored.listGroups(topic)).filter((g) => g.running && g.group !== own);
      if (running.length > 0) {
        throw new EncryptLogConflict(
          `consumers of ${topic} are running (groups ${running.map((g) => g.group).join(', ')}): stop every engram process first`,
        );
      }
    }
  }

  /** The deployment's topics (`<prefix>memory.…`) in version `version`, as stored. */
  private async sourceTopics(version: number): Promise<string[]> {
    return (await this.stored.listTopics()).filter((t) => this.isOurs(t) && topicVersionOf(t).logVersion === version);
  }

  private isOurs(stored: string): boolean {
    return topicVersionOf(stored).topic.startsWith(`${this.config.ENGRAM_TOPIC_PREFIX}memory.`);
  }

  /**
   * Reprocessed versions record positions in memory.facts.v1 (their switch); they carry over as
   * they are unless retention deleted the topic's beginning, which this run would shift them by.
   */
  private async refuseIfPositionsCannotMove(scanned: readonly Scanned[]): Promise<void> {
    const facts = scanned.find((s) => s.topic === `${this.config.ENGRAM_TOPIC_PREFIX}${Topics.facts}`);
    if (!facts || [...facts.low.values()].every((low) => low === 0)) return;
    const pinned = (await this.ledger.list()).filter((r) => r.reprocess?.switchPosition);
    if (pinned.length > 0) {
      throw new EncryptLogConflict(
        `${facts.topic} no longer starts at offset 0 (retention deleted its beginning) and ${pinned.length} reprocessed projection versions record positions in it: encrypt-log would shift them`,
      );
    }
  }

  // ── scan ───────────────────────────────────────────────────────────────────────────────────

  private forgets = new Map<string, Map<string, Forgets>>();
  private forgotten = new Map<string, Set<string>>();

  private async scan(sources: readonly string[], group: string, options: EncryptLogOptions): Promise<Scanned[]> {
    this.forgets = new Map();
    this.forgotten = new Map();
    const ends = await Promise.all(sources.map((t) => this.stored.endPosition(t)));
    const total = ends.reduce((sum, end) => sum + Object.values(end).reduce((a, b) => a + b, 0), 0);
    let done = 0;
    options.onProgress?.({ phase: 'scanning', done, total });
    const scanned: Scanned[] = [];
    for (const [i, stored] of sources.entries()) {
      const topic = topicVersionOf(stored).topic;
      const end = ends[i];
      const result: Scanned = { topic, stored, end, low: new Map(), count: new Map(), digest: new Map(), plaintext: 0 };
      const hashes = new Map<number, Hash>();
      const next = new Map<number, number>();
      const inTopic = new Map<string, Forgets>();
      this.forgets.set(topic, inTopic);
      await this.read(stored, group, { to: 'beginning' }, end, async (messages) => {
        for (const m of messages) {
          const expected = next.get(m.partition);
          if (expected !== undefined && m.offset !== expected) {
            throw new EncryptLogConflict(
              `${stored} partition ${m.partition} jumps from offset ${expected} to ${m.offset} (compacted, or written in transactions): encrypt-log copies gapless topics only`,
            );
          }
          if (expected === undefined) result.low.set(m.partition, m.offset);
          next.set(m.partition, m.offset + 1);
          result.count.set(m.partition, (result.count.get(m.partition) ?? 0) + 1);
          let hash = hashes.get(m.partition);
          if (!hash) hashes.set(m.partition, (hash = createHash('sha256')));
          hash.update(identityOf(m.key, m.raw, m.value)).update('\u0001');
          if (!holdsNoPlaintext(m.value)) result.plaintext++;
          if (isEventShaped(m.value) && m.value.type === 'UserForgotten') {
            const user = userOf(m.value.tenantId, m.value.userId);
            const forgets = inTopic.get(user) ?? { ids: new Set(), last: new Map() };
            inTopic.set(user, forgets);
            forgets.ids.add(m.value.eventId);
            forgets.last.set(m.partition, m.offset);
            const all = this.forgotten.get(user) ?? new Set();
            this.forgotten.set(user, all.add(m.value.eventId));
          }
        }
        done += messages.length;
        options.onProgress?.({ phase: 'scanning', done, total });
      });
      for (const [partition, offset] of Object.entries(end)) {
        const p = Number(partition);
        if (!result.low.has(p)) result.low.set(p, offset); // nothing left in it
        result.count.set(p, result.count.get(p) ?? 0);
        result.digest.set(p, hashes.get(p)?.digest('hex') ?? 'empty');
        if (result.low.get(p)! + result.count.get(p)! !== offset) {
          throw new EncryptLogConflict(
            `${stored} partition ${p}: read ${result.count.get(p)} messages from offset ${result.low.get(p)} up to ${offset}: the topic changed while it was read`,
          );
        }
      }
      scanned.push(result);
    }
    return scanned;
  }

  /**
   * Whether a user was forgotten after the message at (topic, partition, offset): a
   * UserForgotten follows it in the topic, or one of the user's forgets has not reached the topic
   * yet (it travels down the topics in order, so everything of the user there precedes it).
   */
  private forgottenAfter(topic: string, partition: number, offset: number, tenantId: string, userId: string): boolean {
    const user = userOf(tenantId, userId);
    const all = this.forgotten.get(user);
    if (!all) return false;
    const here = this.forgets.get(topic)?.get(user);
    if (!here || [...all].some((id) => !here.ids.has(id))) return true;
    const last = here.last.get(partition);
    return last === undefined || offset < last;
  }

  // ── copy ───────────────────────────────────────────────────────────────────────────────────

  private async copyAll(
    scanned: readonly Scanned[],
    migration: LogMigration,
    group: string,
    options: EncryptLogOptions,
  ): Promise<EncryptedTopic[]> {
    const total = scanned.reduce((sum, s) => sum + sumOf(s.count), 0);
    let done = 0;
    options.onProgress?.({ phase: 'sealing', done, total });
    const reports: EncryptedTopic[] = [];
    for (const source of scanned) {
      const target = versionedTopic(source.topic, migration.to);
      await this.stored.ensureTopics([target]);
      const partitions = Object.keys(await this.stored.endPosition(target)).length;
      if (partitions !== source.count.size) {
        throw new EncryptLogConflict(
          `${target} has ${partitions} partitions, ${source.stored} ${source.count.size}: the copy needs as many (engram encrypt-log --abort, then run again with KAFKA_PARTITIONS=${source.count.size})`,
        );
      }
      const report = { topic: source.topic, messages: sumOf(source.count), sealed: 0, shredded: 0, unchanged: 0, unattributed: 0 };
      const copied = await this.stored.endPosition(target);
      for (const [p, n] of Object.entries(copied)) {
        if (n > (source.count.get(Number(p)) ?? 0))
          throw new EncryptLogConflict(
            `${target} partition ${p} holds ${n} messages, more than ${source.stored} has: abort (engram encrypt-log --abort) and run again`,
          );
      }
      done += sumOf(new Map(Object.entries(copied).map(([p, n]) => [Number(p), n])));
      options.onProgress?.({ phase: 'sealing', done, total });
      const start: Record<number, number> = {};
      for (const [p, low] of source.low) start[p] = low + (copied[p] ?? 0);
      await this.read(source.stored, group, { to: 'position', position: start }, source.end, async (messages) => {
        // The new topic's end is the checkpoint: what a failed or interrupted batch already wrote is not written twice.
        const there = await this.stored.endPosition(target);
        const batch: StoredMessage[] = [];
        for (const m of messages) {
          if (m.offset - source.low.get(m.partition)! < (there[m.partition] ?? 0)) continue;
          const verdict = await this.seal(source.topic, m);
          report[verdict.kind]++;
          batch.push({ key: m.key, raw: verdict.raw, partition: m.partition, timestamp: m.timestamp });
        }
        await this.stored.appendStored(target, batch);
        done += batch.length;
        options.onProgress?.({ phase: 'sealing', done, total });
      });
      reports.push(report);
    }
    return reports;
  }

  /** The message as the new version stores it. */
  private async seal(topic: string, m: ConsumedMessage): Promise<Verdict> {
    const value = m.value;
    if (isEventShaped(value)) {
      if (!isPlaintext(value)) return { kind: 'unchanged', raw: m.raw };
      return this.sealEvent(value, this.forgottenAfter(topic, m.partition, m.offset, value.tenantId, value.userId));
    }
    if (isDeadLetter(value)) {
      // A dead letter keeps the original bytes of its event: seal those, judged where the event was.
      const inner = parse(value.raw);
      if (!isEventShaped(inner)) return { kind: 'unattributed', raw: m.raw };
      if (!isPlaintext(inner)) return { kind: 'unchanged', raw: m.raw };
      const source = topicVersionOf(value.topic).topic;
      const known = this.forgets.has(source);
      const forgotten = known
        ? this.forgottenAfter(source, value.partition, value.offset, inner.tenantId, inner.userId)
        : this.forgotten.has(userOf(inner.tenantId, inner.userId));
      const sealed = await this.sealEvent(inner, forgotten);
      return { kind: sealed.kind, raw: serialiseLogValue({ ...value, raw: sealed.raw }) };
    }
    return { kind: 'unattributed', raw: m.raw };
  }

  private async sealEvent(event: EventShape, forgotten: boolean): Promise<Verdict> {
    const associatedData = eventAssociatedData(event.tenantId, event.userId, event.eventId);
    if (forgotten) {
      // Envelope only: the payload is gone, and what stands in its place opens for no one.
      return { kind: 'shredded', raw: serialiseLogValue({ ...event, payload: sealText(this.keys.throwaway(), '{}', associatedData) }) };
    }
    const key = await this.keys.current(event.tenantId, event.userId);
    return { kind: 'sealed', raw: serialiseLogValue({ ...event, payload: sealText(key, JSON.stringify(event.payload), associatedData) }) };
  }

  // ── verify ─────────────────────────────────────────────────────────────────────────────────

  private async verifyAll(scanned: readonly Scanned[], migration: LogMigration, group: string, options: EncryptLogOptions): Promise<void> {
    const total = scanned.reduce((sum, s) => sum + sumOf(s.count), 0);
    let done = 0;
    options.onProgress?.({ phase: 'verifying', done, total });
    for (const source of scanned) {
      const target = versionedTopic(source.topic, migration.to);
      const end = await this.stored.endPosition(target);
      const hashes = new Map<number, Hash>();
      const count = new Map<number, number>();
      let plaintext = 0;
      await this.read(target, group, { to: 'beginning' }, end, async (messages) => {
        for (const m of messages) {
          if (m.offset !== (count.get(m.partition) ?? 0))
            throw new EncryptLogConflict(
              `${target} partition ${m.partition}: offset ${m.offset} where ${count.get(m.partition) ?? 0} was expected`,
            );
          count.set(m.partition, m.offset + 1);
          let hash = hashes.get(m.partition);
          if (!hash) hashes.set(m.partition, (hash = createHash('sha256')));
          hash.update(identityOf(m.key, m.raw, m.value)).update('\u0001');
          if (!holdsNoPlaintext(m.value)) plaintext++;
        }
        done += messages.length;
        options.onProgress?.({ phase: 'verifying', done, total });
      });
      const differs = [...source.count.keys()].filter(
        (p) => (count.get(p) ?? 0) !== source.count.get(p) || (hashes.get(p)?.digest('hex') ?? 'empty') !== source.digest.get(p),
      );
      if (differs.length > 0 || plaintext > 0) {
        throw new EncryptLogConflict(
          `the copy ${target} does not match ${source.stored}${differs.length > 0 ? ` (partitions ${differs.join(', ')})` : ''}${plaintext > 0 ? ` (${plaintext} plaintext payloads)` : ''}: nothing was switched; abort (engram encrypt-log --abort) and run again`,
        );
      }
    }
  }

  // ── switch ─────────────────────────────────────────────────────────────────────────────────

  /** Every consumer group's position on each old topic, set on its copy (shifted by what retention deleted). */
  private async carryPositions(
    scanned: readonly Scanned[],
    migration: LogMigration,
    own: string,
    options: EncryptLogOptions,
  ): Promise<void> {
    const moves: { source: Scanned; group: string }[] = [];
    for (const source of scanned) {
      for (const { group } of await this.stored.listGroups(source.stored)) if (group !== own) moves.push({ source, group });
    }
    options.onProgress?.({ phase: 'switching', done: 0, total: moves.length });
    for (const [i, { source, group }] of moves.entries()) {
      const committed = await this.stored.committedPosition(source.stored, group);
      const position: Record<number, number> = {};
      for (const [p, low] of source.low) position[p] = Math.min(source.count.get(p)!, Math.max(0, (committed[p] ?? low) - low));
      await this.stored.resetGroup(versionedTopic(source.topic, migration.to), group, { to: 'position', position });
      options.onProgress?.({ phase: 'switching', done: i + 1, total: moves.length });
    }
  }

  /** The old version's topics that have a copy, and empty ones; any other is left and named. */
  private async deleteOld(migration: LogMigration, options: EncryptLogOptions): Promise<string[]> {
    const all = await this.stored.listTopics();
    const copies = new Set(all.filter((t) => topicVersionOf(t).logVersion === migration.to).map((t) => topicVersionOf(t).topic));
    const old = all.filter((t) => this.isOurs(t) && topicVersionOf(t).logVersion === migration.from);
    const doomed: string[] = [];
    const leftOver: string[] = [];
    for (const topic of old) {
      const copied = copies.has(topicVersionOf(topic).topic);
      const empty = Object.values(await this.stored.endPosition(topic)).every((n) => n === 0);
      if (copied || empty) doomed.push(topic);
      else leftOver.push(topic);
    }
    options.onProgress?.({ phase: 'deleting', done: 0, total: doomed.length });
    await this.stored.deleteTopics(doomed);
    options.onProgress?.({ phase: 'deleting', done: doomed.length, total: doomed.length });
    if (leftOver.length > 0)
      this.log.warn({ topics: leftOver }, 'encrypt-log: topics of the old version that were not copied are left in place');
    return leftOver;
  }

  // ── the lease ──────────────────────────────────────────────────────────────────────────────

  private async claim(): Promise<Lease> {
    const owner = { host: os.hostname(), pid: process.pid };
    const state = await this.versions.read();
    const now = new Date().toISOString();
    let claimed: LogMigration;
    let resumed = false;
    if (state.migration) {
      if (this.alive(state.migration)) throw new EncryptLogConflict(this.runningMessage(state.migration));
      claimed = { ...state.migration, owner, heartbeatAt: now };
      resumed = true;
    } else {
      const runId = `v${state.version + 1}-${now.replace(/[-:.]/g, '').toLowerCase()}`;
      claimed = { runId, from: state.version, to: state.version + 1, phase: 'copying', startedAt: now, owner, heartbeatAt: now };
    }
    const next = { version: state.version, migration: claimed };
    if (!(await this.versions.replace(state.revision, next)))
      throw new EncryptLogConflict('another engram encrypt-log started at the same moment: it runs, this one stops');
    if (resumed) this.log.log({ runId: claimed.runId, phase: claimed.phase }, 'encrypt-log: resuming an interrupted run');
    return new Lease(this.versions, { ...next, revision: state.revision + 1 }, resumed);
  }

  /** A run that holds the log: its process is alive (same host), or its heartbeat is recent. */
  private alive(migration: LogMigration): boolean {
    if (!migration.owner) return false;
    if (migration.owner.host === os.hostname()) {
      try {
        process.kill(migration.owner.pid, 0);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ESRCH') return false;
      }
    }
    return Date.now() - Date.parse(migration.heartbeatAt) < LEASE_MS;
  }

  private runningMessage(migration: LogMigration): string {
    return `engram encrypt-log run ${migration.runId} is running (pid ${migration.owner?.pid} on ${migration.owner?.host}, last seen ${migration.heartbeatAt}): wait for it; if it died, run again after ${LEASE_MS / 1000} s`;
  }

  /**
   * Reads `topic` from `from` up to `end` with the run's own group, then deletes the group's
   * position (each read says where it starts, so a resumed run needs none, and the sealed topics
   * keep no trace of the migration); nothing to do for a topic with nothing to read.
   */
  private async read(
    topic: string,
    group: string,
    from: ResetTarget,
    end: LogPosition,
    onBatch: (messages: readonly ConsumedMessage[]) => Promise<void>,
  ): Promise<void> {
    if (Object.values(end).every((n) => n === 0)) return;
    if (from.to === 'position' && reached(from.position, end)) return;
    await this.stored.resetGroup(topic, group, from);
    await consumeUpToOrFail(this.stored, topic, group, end, onBatch, {
      maxBatchSize: this.config.ENGRAM_REBUILD_BATCH_SIZE,
      attempts: this.config.ENGRAM_STAGE_ATTEMPTS,
    });
    await this.stored.deleteGroup(topic, group);
  }
}

/** The run's hold on the log: every write compares the revision it last wrote; a heartbeat renews it. */
class Lease {
  private readonly timer: NodeJS.Timeout;
  private writing: Promise<unknown> = Promise.resolve();
  private lost: Error | undefined;
  /** No more heartbeats: the run wrote its last state, or stopped. */
  private over = false;

  constructor(
    private readonly versions: LogVersions,
    public state: LogVersionState & { readonly migration: LogMigration },
    readonly resumed: boolean,
  ) {
    this.timer = setInterval(() => void this.renew().catch(() => undefined), HEARTBEAT_MS);
    this.timer.unref();
  }

  /** Writes the next state (with the migration, or without it once done); fails if another run took the log. */
  write(next: Omit<LogVersionState, 'revision'>): Promise<void> {
    return this.enqueue(async () => {
      await this.replace(next);
      if (!next.migration) this.over = true;
    });
  }

  /** Failed or interrupted: a rerun may resume at once. */
  release(): Promise<void> {
    this.over = true;
    return this.enqueue(() => this.replace({ version: this.state.version, migration: { ...this.state.migration, owner: null } })).catch(
      () => undefined,
    );
  }

  /** Refused before anything was copied: the log is as it was, and writable again. */
  rollBack(): Promise<void> {
    this.over = true;
    return this.enqueue(() => this.replace({ version: this.state.version })).catch(() => undefined);
  }

  stop(): void {
    this.over = true;
    clearInterval(this.timer);
  }

  private renew(): Promise<void> {
    return this.enqueue(async () => {
      if (!this.over)
        await this.replace({ version: this.state.version, migration: { ...this.state.migration, heartbeatAt: new Date().toISOString() } });
    });
  }

  private enqueue(step: () => Promise<void>): Promise<void> {
    const run = this.writing.then(step);
    this.writing = run.catch(() => undefined);
    return run;
  }

  private async replace(next: Omit<LogVersionState, 'revision'>): Promise<void> {
    if (this.lost) throw this.lost;
    if (!(await this.versions.replace(this.state.revision, next))) {
      this.lost = new EncryptLogConflict(
        `run ${this.state.migration.runId} lost its hold on the log (another run took it over): it stopped`,
      );
      throw this.lost;
    }
    this.state = { ...this.state, ...next, revision: this.state.revision + 1, migration: next.migration ?? this.state.migration };
  }
}

const sumOf = (counts: ReadonlyMap<number, number>) => [...counts.values()].reduce((a, b) => a + b, 0);
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
