// `engram encrypt-log`: the run (LogEncryptor); its phases are encrypt-log-scan.ts, encrypt-log-copy.ts and
// encrypt-log-verify.ts (checks and moving positions), its hold on the log encrypt-log-lease.ts.
import { Inject, Injectable, Logger } from '@nestjs/common';
import { PipelineOptions, PortBindings, ReplayOptions, SqliteOptions } from '@engram/config';
import { deployedTopic, Topics, topicVersionOf, versionedTopic } from '@engram/contracts';
import { ConsumedMessage, EventLog, LogMigration, LogPosition, LogVersions, reached, RebuildLedger, ResetTarget } from '@engram/ports';
import { STORED_EVENT_LOG } from './stored-event-log';
import { runningServer } from '../observability/server-file';
import { consumeUpToOrFail } from '../transport/consume-up-to';
import { DataKeyRing } from './data-key-ring';
import { LogCopier } from './encrypt-log-copy';
import { alive, claimLog, runningMessage } from './encrypt-log-lease';
import { type Scanned, scanTopics } from './encrypt-log-scan';
import { carryPositions, verifyCopies } from './encrypt-log-verify';
import { EncryptLogConflict, type EncryptLogOptions, type EncryptLogResult } from './encrypt-log.types';

export * from './encrypt-log.types';

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
    @Inject(PipelineOptions) private readonly pipeline: PipelineOptions,
    @Inject(ReplayOptions) private readonly replay: ReplayOptions,
    @Inject(PortBindings) private readonly bindings: PortBindings,
    @Inject(SqliteOptions) private readonly sqlite: SqliteOptions,
  ) {}

  async run(options: EncryptLogOptions = {}): Promise<EncryptLogResult> {
    this.refuseIfServerRuns();
    const before = await this.versions.read();
    if (!before.migration) await this.refuseIfConsuming(await this.sourceTopics(before.version), '');
    const lease = await claimLog(this.versions, this.log);
    const { migration } = lease.state;
    const group = `encrypt-log-${migration.runId}`;
    let copying = false;
    try {
      let scanned: Scanned[] = [];
      const read = this.read.bind(this);
      if (migration.phase === 'copying') {
        // Every process looks at the log's version at most every ENGRAM_PROJECTION_POINTER_TTL_MS:
        // after twice that, none writes to the old topics any more.
        await sleep(2 * this.pipeline.projectionPointerTtlMs + 250);
        const sources = await this.sourceTopics(migration.from);
        await this.refuseIfConsuming(sources, group);
        const scan = await scanTopics(this.stored, read, sources, group, options);
        scanned = scan.scanned;
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
        const topics = await new LogCopier(this.stored, read, this.keys, scan.forgotten).copyAll(scanned, migration, group, options);
        await verifyCopies(this.stored, read, scanned, migration, group, options);
        this.refuseIfServerRuns();
        await this.refuseIfConsuming(sources, group);
        await carryPositions(this.stored, scanned, migration, group, options);
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
    if (alive(migration)) throw new EncryptLogConflict(runningMessage(migration));
    const copies = (await this.stored.listTopics()).filter((t) => this.isOurs(t) && topicVersionOf(t).logVersion === migration.to);
    await this.stored.deleteTopics(copies);
    if (!(await this.versions.replace(state.revision, { version: state.version })))
      throw new EncryptLogConflict('the log changed while aborting: look again');
    return { runId: migration.runId, deleted: copies };
  }

  private refuseIfServerRuns(): void {
    if (this.bindings.eventLog !== 'sqlite') return; // a server announces itself in the data directory of a SQLite log
    const server = runningServer(this.sqlite.dataDir);
    if (server)
      throw new EncryptLogConflict(
        `an engram server (pid ${server.pid}) is using ${this.sqlite.dataDir}: stop it first (encrypt-log rewrites the log with nothing running)`,
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
    return topicVersionOf(stored).topic.startsWith(deployedTopic(this.pipeline.topicPrefix, 'memory.'));
  }

  /**
   * Reprocessed versions record positions in memory.facts.v1 (their switch); they carry over as
   * they are unless retention deleted the topic's beginning, which this run would shift them by.
   */
  private async refuseIfPositionsCannotMove(scanned: readonly Scanned[]): Promise<void> {
    const facts = scanned.find((s) => s.topic === deployedTopic(this.pipeline.topicPrefix, Topics.facts));
    if (!facts || [...facts.low.values()].every((low) => low === 0)) return;
    const pinned = (await this.ledger.list()).filter((r) => r.reprocess?.switchPosition);
    if (pinned.length > 0) {
      throw new EncryptLogConflict(
        `${facts.topic} no longer starts at offset 0 (retention deleted its beginning) and ${pinned.length} reprocessed projection versions record positions in it: encrypt-log would shift them`,
      );
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
      maxBatchSize: this.replay.batchSize,
      attempts: this.pipeline.stageAttempts,
    });
    await this.stored.deleteGroup(topic, group);
  }
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
