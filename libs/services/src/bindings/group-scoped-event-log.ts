import type {
  BatchHandler,
  ConsumerSpec,
  EventLog,
  GroupInfo,
  LogMessage,
  LogPosition,
  ResetTarget,
  StoredMessage,
  Subscription,
} from '@engram/ports';

/**
 * Scopes consumer-group names with a prefix. Kafka's consumer groups are global
 * to the cluster while topics are already scoped by ENGRAM_TOPIC_PREFIX: two
 * deployments (or two test runs) sharing a cluster must not share the group
 * `filter`, or they would rebalance each other's partitions. Stages keep
 * naming their groups plainly (`filter`, `indexer`), in both modes.
 */
export class GroupScopedEventLog implements EventLog {
  constructor(
    private readonly inner: EventLog,
    private readonly groupPrefix: string,
  ) {}

  private group(name: string): string {
    return `${this.groupPrefix}${name}`;
  }

  ensureTopics(topics: readonly string[]): Promise<void> {
    return this.inner.ensureTopics(topics);
  }

  append(topic: string, messages: readonly LogMessage[]): Promise<LogPosition> {
    return this.inner.append(topic, messages);
  }

  subscribe(spec: ConsumerSpec, handler: BatchHandler): Promise<Subscription> {
    return this.inner.subscribe({ ...spec, group: this.group(spec.group) }, handler);
  }

  endPosition(topic: string): Promise<LogPosition> {
    return this.inner.endPosition(topic);
  }

  committedPosition(topic: string, group: string): Promise<LogPosition> {
    return this.inner.committedPosition(topic, this.group(group));
  }

  resetGroup(topic: string, group: string, target: ResetTarget): Promise<void> {
    return this.inner.resetGroup(topic, this.group(group), target);
  }

  appendStored(topic: string, messages: readonly StoredMessage[]): Promise<LogPosition> {
    return this.inner.appendStored(topic, messages);
  }

  listTopics(): Promise<string[]> {
    return this.inner.listTopics();
  }

  deleteTopics(topics: readonly string[]): Promise<void> {
    return this.inner.deleteTopics(topics);
  }

  /** This deployment's groups only, named as its stages name them. */
  async listGroups(topic: string, groupPrefix = ''): Promise<GroupInfo[]> {
    const groups = await this.inner.listGroups(topic, this.group(groupPrefix));
    return groups.map((g) => ({ ...g, group: g.group.slice(this.groupPrefix.length) }));
  }

  deleteGroup(topic: string, group: string): Promise<void> {
    return this.inner.deleteGroup(topic, this.group(group));
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
