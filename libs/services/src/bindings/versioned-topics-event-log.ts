import { ServiceUnavailableException } from '@nestjs/common';
import { topicVersionOf, versionedTopic } from '@engram/contracts';
import type {
  BatchHandler,
  ConsumerSpec,
  EventLog,
  GroupInfo,
  LogMessage,
  LogPosition,
  LogVersions,
  LogVersionState,
  ResetTarget,
  StoredMessage,
  Subscription,
} from '@engram/ports';

/**
 * The log cannot be written now: `engram encrypt-log` is copying it into a new version, or has
 * switched to one after this process started. HTTP answers 503.
 */
export class EventLogUnavailable extends ServiceUnavailableException {
  readonly retryAfterSeconds: number | undefined;

  constructor(message: string, retryAfterSeconds?: number) {
    super({ error: 'Service Unavailable', message: [message], fields: [] });
    this.message = message;
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

export interface VersionedTopicsOptions {
  /** How long the version read from the store is trusted before it is read again. */
  readonly maxAgeMs: number;
  readonly now?: () => number;
}

/**
 * Topics by the log's version (LogVersions): the services name topics as ever
 * (`memory.turns.v1`), and this maps each name to the version the log is at —
 * `memory.turns.v1.log2` once `engram encrypt-log` has sealed the log into version 2 — and the
 * names it hands back (consumed messages, listed topics) to the plain ones.
 *
 * A process holds to the version it found on first use. While a migration copies the log, and
 * once the log has moved to another version, it refuses to write (append, create topics, move
 * groups) and to start consumers, so nothing lands in topics about to be deleted; the state is
 * read again at most every `maxAgeMs`, which the migration waits out before it reads the log.
 */
export class VersionedTopicsEventLog implements EventLog {
  private version: number | undefined;
  private checked: { readonly at: number; readonly state: LogVersionState } | undefined;
  private reading: Promise<LogVersionState> | undefined;
  private readonly now: () => number;

  constructor(
    private readonly inner: EventLog,
    private readonly versions: LogVersions,
    private readonly options: VersionedTopicsOptions,
  ) {
    this.now = options.now ?? Date.now;
  }

  async ensureTopics(topics: readonly string[]): Promise<void> {
    const version = await this.writable();
    return this.inner.ensureTopics(topics.map((t) => versionedTopic(t, version)));
  }

  async append(topic: string, messages: readonly LogMessage[]): Promise<LogPosition> {
    return this.inner.append(versionedTopic(topic, await this.writable()), messages);
  }

  async appendStored(topic: string, messages: readonly StoredMessage[]): Promise<LogPosition> {
    return this.inner.appendStored(versionedTopic(topic, await this.writable()), messages);
  }

  async subscribe(spec: ConsumerSpec, handler: BatchHandler): Promise<Subscription> {
    const version = await this.writable();
    const physical = versionedTopic(spec.topic, version);
    return this.inner.subscribe({ ...spec, topic: physical }, (messages, context) =>
      handler(physical === spec.topic ? messages : messages.map((m) => ({ ...m, topic: spec.topic })), context),
    );
  }

  async endPosition(topic: string): Promise<LogPosition> {
    return this.inner.endPosition(versionedTopic(topic, await this.current()));
  }

  async committedPosition(topic: string, group: string): Promise<LogPosition> {
    return this.inner.committedPosition(versionedTopic(topic, await this.current()), group);
  }

  async resetGroup(topic: string, group: string, target: ResetTarget): Promise<void> {
    return this.inner.resetGroup(versionedTopic(topic, await this.writable()), group, target);
  }

  /** The topics of this process's version, by their plain names. */
  async listTopics(): Promise<string[]> {
    const version = await this.current();
    return (await this.inner.listTopics())
      .map(topicVersionOf)
      .filter((t) => t.logVersion === version)
      .map((t) => t.topic);
  }

  async deleteTopics(topics: readonly string[]): Promise<void> {
    const version = await this.writable();
    return this.inner.deleteTopics(topics.map((t) => versionedTopic(t, version)));
  }

  async listGroups(topic: string, groupPrefix?: string): Promise<GroupInfo[]> {
    return this.inner.listGroups(versionedTopic(topic, await this.current()), groupPrefix);
  }

  async deleteGroup(topic: string, group: string): Promise<void> {
    return this.inner.deleteGroup(versionedTopic(topic, await this.current()), group);
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  /** This process's version, once no migration is copying the log and it has not moved on. */
  private async writable(): Promise<number> {
    await this.refresh();
    const version = this.version!;
    const state = this.checked!.state;
    if (state.migration?.phase === 'copying') {
      throw new EventLogUnavailable(
        `the event log is being sealed into version ${state.migration.to} by engram encrypt-log (run ${state.migration.runId}, since ${state.migration.startedAt}): writes resume once it has switched`,
        5,
      );
    }
    if (state.version !== version) {
      throw new EventLogUnavailable(
        `the event log moved to version ${state.version} (engram encrypt-log) after this process started on version ${version}: restart it`,
      );
    }
    return version;
  }

  /**
   * The version this process holds to, for reads: looked up once, and then never again (it does not
   * change while the process runs), so positions and status still read from the log while the
   * store that holds the state is unavailable.
   */
  private async current(): Promise<number> {
    if (this.version === undefined) await this.refresh();
    return this.version!;
  }

  /** Looks at the state if the last look is old (writes: a migration may have started meanwhile). */
  private async refresh(): Promise<void> {
    if (!this.checked || this.now() - this.checked.at >= this.options.maxAgeMs) {
      this.reading ??= this.versions.read().finally(() => (this.reading = undefined));
      const state = await this.reading;
      this.checked = { at: this.now(), state };
    }
    this.version ??= this.checked.state.version;
  }
}
