/**
 * The event log: the source of truth. Kafka in distributed mode, an
 * append-only SQLite table in embedded mode. Delivery is at-least-once: a
 * batch is committed only after its handler resolved, so a crash replays it
 * and handlers must be idempotent.
 */
export const EventLog = Symbol('EventLog');

/** Next offset to write (end) or to read (committed), per partition. */
export type LogPosition = Readonly<Record<number, number>>;

export interface LogMessage {
  /** `tenantId:userId`: one user's messages stay ordered on one partition. */
  readonly key: string;
  /** The event envelope; serialised as JSON (a SerialisedLogValue is that JSON already). */
  readonly value: unknown;
}

/**
 * A message exactly as a topic stores it, for a copy of that topic (`engram encrypt-log`): its
 * bytes (not re-serialised, so even a value that is not JSON stays as it was), its partition and
 * its timestamp.
 */
export interface StoredMessage {
  readonly key: string;
  readonly raw: string;
  readonly partition: number;
  readonly timestamp: number;
}

/** A consumer group with a committed position on a topic. */
export interface GroupInfo {
  readonly group: string;
  /** A consumer of the group is running now (embedded: in this process; Kafka: anywhere). */
  readonly running: boolean;
}

export interface ConsumedMessage {
  readonly topic: string;
  readonly partition: number;
  readonly offset: number;
  readonly key: string;
  /** Parsed JSON, not yet validated: consumers validate at their boundary. */
  readonly value: unknown;
  /** The bytes as stored, for dead-lettering. */
  readonly raw: string;
  readonly timestamp: number;
  /**
   * Its data key was destroyed (its user was forgotten): nothing in it can be read. Delivered,
   * so positions move on as ever; every consumer skips it, and it is no error (docs/security.md).
   */
  readonly shredded?: boolean;
}

export interface ConsumerSpec {
  readonly topic: string;
  readonly group: string;
  readonly maxBatchSize?: number;
}

export interface BatchContext {
  /** False once the subscription is stopping: finish quickly, skip nothing. */
  isRunning(): boolean;
  heartbeat(): Promise<void>;
}

export type BatchHandler = (messages: readonly ConsumedMessage[], context: BatchContext) => Promise<void>;

export interface Subscription {
  /** Finishes the batch in flight, commits it, and stops. */
  stop(): Promise<void>;
}

export type ResetTarget =
  | { readonly to: 'beginning' }
  | { readonly to: 'timestamp'; readonly timestamp: number }
  /** These offsets on the partitions they name (the others: the beginning). */
  | { readonly to: 'position'; readonly position: LogPosition };

export interface EventLog {
  ensureTopics(topics: readonly string[]): Promise<void>;
  /** Appends in order and resolves once durable, with the end position after the append. */
  append(topic: string, messages: readonly LogMessage[]): Promise<LogPosition>;
  /** Delivers batches in partition order; commits each batch after the handler resolves. */
  subscribe(spec: ConsumerSpec, handler: BatchHandler): Promise<Subscription>;
  endPosition(topic: string): Promise<LogPosition>;
  /** The group's committed position: everything before it has been handled. */
  committedPosition(topic: string, group: string): Promise<LogPosition>;
  /** Moves a group's position (the group must have no running consumer). */
  resetGroup(topic: string, group: string, target: ResetTarget): Promise<void>;
  /**
   * Appends messages as another topic stores them, each to the partition it names (which the
   * topic must have), with its bytes and timestamp: a copy, in order. Nothing is sealed or parsed.
   */
  appendStored(topic: string, messages: readonly StoredMessage[]): Promise<LogPosition>;
  /** Every topic the log holds, sorted (Kafka: the cluster's, its internal topics left out). */
  listTopics(): Promise<string[]>;
  /**
   * Deletes topics, their messages and their groups' positions; unknown topics are ignored.
   * Embedded, no copy of the messages stays in the database file or its write-ahead log.
   */
  deleteTopics(topics: readonly string[]): Promise<void>;
  /** The consumer groups (those whose name starts with `groupPrefix`) that committed a position on `topic`. */
  listGroups(topic: string, groupPrefix?: string): Promise<GroupInfo[]>;
  /**
   * Forgets a group's committed position on `topic` (the group must have no running consumer);
   * an unknown group is ignored. For a reader's throwaway group, once it has read what it needed.
   * Kafka keeps a group's positions for all its topics together and deletes them together: give
   * such a group one topic only.
   */
  deleteGroup(topic: string, group: string): Promise<void>;
  close(): Promise<void>;
}

/** Messages behind: sum over partitions of end minus committed. */
export function lag(end: LogPosition, committed: LogPosition): number {
  let total = 0;
  for (const [partition, offset] of Object.entries(end)) {
    total += Math.max(0, offset - (committed[Number(partition)] ?? 0));
  }
  return total;
}

/** True when `committed` has reached `target` on every partition. */
export function reached(committed: LogPosition, target: LogPosition): boolean {
  return Object.entries(target).every(([partition, offset]) => (committed[Number(partition)] ?? 0) >= offset);
}

/**
 * A value whose JSON a decorator of the log has already written: adapters store the text as it is.
 * The sealing boundary writes each envelope around its ciphertext this way (base64 needs no
 * escaping, and JSON.stringify's scan of it cost more than the cipher).
 */
export class SerialisedLogValue {
  constructor(readonly json: string) {}
}

/** A message value as both event logs store it: JSON, with undefined stored as JSON null so it stays parseable. */
export function serialiseLogValue(value: unknown): string {
  if (value instanceof SerialisedLogValue) return value.json;
  const json = JSON.stringify(value);
  return json === undefined ? 'null' : json;
}

/**
 * A stored value parsed; undefined when it is not JSON. Delivered anyway: the stage decides
 * (dead-letter, skip, alert), a consumer loop never stalls on it.
 */
export function parseLogValue(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return undefined;
  }
}
