import { Inject, Injectable, Logger, Module, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { ConsistencyOptions, ForgettingOptions } from '@engram/config';
import { deterministicId, ForgettingRequested, newEvent, parseEvent, Topics } from '@engram/contracts';
import { archivalAge, forgettingDecisions, ForgettingPolicy } from '@engram/domain';
import { AccessStore, Clock, EventLog, FactStore, LogPosition, Subscription } from '@engram/ports';
import { EventPublisher } from '../pipeline/event-publisher';
import { MemoryCommandPublisher } from '../pipeline/memory-commands';

export interface UserRef {
  readonly tenantId: string;
  readonly userId: string;
}

/**
 * Which users have memories, for the scheduled sweep. No store port lists users, so this reads
 * memory.facts.v1 from the start into memory (tenant and user of each decision, minus forgotten
 * users) and follows it. It is only an index of whom to ask: a user it misses is swept on the
 * next run, and an extra one costs a fact-store read.
 */
@Injectable()
export class KnownUsers implements OnApplicationShutdown {
  static readonly GROUP = 'forgetting-users';
  private readonly log = new Logger(KnownUsers.name);
  private readonly users = new Map<string, UserRef>();
  private subscription: Subscription | null = null;
  private started: Promise<void> | null = null;

  constructor(
    @Inject(EventLog) private readonly eventLog: EventLog,
    private readonly publisher: EventPublisher,
  ) {}

  /** Every user seen so far (of one tenant, if given), once the log has been read up to now. */
  async list(tenantId?: string): Promise<UserRef[]> {
    await this.caughtUp();
    return [...this.users.values()].filter((u) => tenantId === undefined || u.tenantId === tenantId);
  }

  private caughtUp(): Promise<void> {
    this.started ??= this.start();
    return this.started;
  }

  private async start(): Promise<void> {
    const topic = this.publisher.topic(Topics.facts);
    await this.eventLog.ensureTopics([topic]);
    await this.eventLog.resetGroup(topic, KnownUsers.GROUP, { to: 'beginning' });
    const end = await this.eventLog.endPosition(topic);
    this.subscription = await this.eventLog.subscribe({ topic, group: KnownUsers.GROUP, maxBatchSize: 5000 }, async (messages) => {
      for (const message of messages) {
        if (message.shredded) continue;
        try {
          const event = parseEvent(message.value);
          const key = `${event.tenantId}\u0000${event.userId}`;
          if (event.type === 'UserForgotten') this.users.delete(key);
          else this.users.set(key, { tenantId: event.tenantId, userId: event.userId });
        } catch (error) {
          this.log.warn({ offset: message.offset, reason: String(error) }, 'skipping invalid event');
        }
      }
    });
    await this.until(topic, end);
  }

  private async until(topic: string, end: LogPosition): Promise<void> {
    const reachedEnd = () =>
      this.eventLog.committedPosition(topic, KnownUsers.GROUP).then((c) => Object.entries(end).every(([p, o]) => (c[Number(p)] ?? 0) >= o));
    while (!(await reachedEnd())) await new Promise((resolve) => setTimeout(resolve, 10));
  }

  async onApplicationShutdown(): Promise<void> {
    await this.subscription?.stop();
    this.subscription = null;
  }
}

export interface ForgettingRun {
  /** Users asked about. */
  readonly users: number;
  /** Decisions the resolver is asked to make (as the store stood when the command was made). */
  readonly expired: number;
  readonly archived: number;
  /** False when `wait` was asked for and the read side did not catch up in time. */
  readonly consistent: boolean;
}

/** The configured forgetting policy: mapped in libs/config with every other option, and still exported from here. */
export { forgettingPolicyFrom } from '@engram/config';

/**
 * Runs forgetting: for each user with something due, a ForgettingRequested command on
 * memory.extracted.v1 carrying the instant, the policy and the access statistics it needs. The
 * resolver decides and publishes MemoryExpired/MemoryArchived in order with the user's other
 * changes; this service only reads (fact and access stores) and writes to the log.
 */
@Injectable()
export class ForgettingService {
  constructor(
    @Inject(ForgettingOptions) private readonly options: ForgettingOptions,
    @Inject(ConsistencyOptions) private readonly consistency: ConsistencyOptions,
    private readonly commands: MemoryCommandPublisher,
    private readonly knownUsers: KnownUsers,
    @Inject(FactStore) private readonly facts: FactStore,
    @Inject(AccessStore) private readonly access: AccessStore,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  /** One tenant (or every tenant), every known user unless `userIds` names some. */
  async run(options: { tenantId?: string; userIds?: readonly string[]; wait?: boolean } = {}): Promise<ForgettingRun> {
    const users: UserRef[] =
      options.userIds && options.tenantId !== undefined
        ? options.userIds.map((userId) => ({ tenantId: options.tenantId!, userId }))
        : await this.knownUsers.list(options.tenantId);
    const now = this.clock.now().toISOString();
    const policy = this.options.policy;
    const commands: ForgettingRequested[] = [];
    let expired = 0;
    let archived = 0;
    for (const user of users) {
      const made = await this.commandFor(user, now, policy);
      if (!made) continue;
      commands.push(made.command);
      expired += made.expired;
      archived += made.archived;
    }
    let consistent = true;
    if (commands.length > 0) {
      const position = await this.commands.publish(commands);
      if (options.wait) consistent = await this.commands.waitApplied(position, this.consistency.afterTimeoutMs);
    }
    return { users: users.length, expired, archived, consistent };
  }

  /** The command for one user, or null when nothing is due (an idle sweep writes nothing). */
  private async commandFor(user: UserRef, now: string, policy: ForgettingPolicy) {
    const memories = await this.facts.list({ ...user, statuses: ['active'] });
    const candidates = memories.filter((m) => archivalAge(m, policy) !== null);
    const stats = await this.access.get(
      user.tenantId,
      user.userId,
      candidates.map((m) => m.memoryId),
    );
    const lastAccess = [...stats.values()]
      .map((s) => ({ memoryId: s.memoryId, at: s.lastAccessAt }))
      .sort((a, b) => (a.memoryId < b.memoryId ? -1 : 1));
    const preview = forgettingDecisions(memories, now, policy, { lastAccessAt: new Map(lastAccess.map((a) => [a.memoryId, a.at])) });
    if (preview.length === 0) return null;
    const eventId = deterministicId('forgetting-requested', user.tenantId, user.userId, now);
    const command: ForgettingRequested = newEvent<ForgettingRequested>({
      eventId,
      type: 'ForgettingRequested',
      tenantId: user.tenantId,
      userId: user.userId,
      occurredAt: now,
      recordedAt: now,
      payload: { requestedAt: now, policy, lastAccess },
    });
    return {
      command,
      expired: preview.filter((d) => d.type === 'MemoryExpired').length,
      archived: preview.filter((d) => d.type === 'MemoryArchived').length,
    };
  }
}

/** Sweeps every user every ENGRAM_FORGETTING_INTERVAL_MS (0: off); the first sweep one interval after start. */
@Injectable()
export class ForgettingScheduler implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly log = new Logger(ForgettingScheduler.name);
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<unknown> | null = null;

  constructor(
    @Inject(ForgettingOptions) private readonly options: ForgettingOptions,
    private readonly forgetting: ForgettingService,
  ) {}

  onApplicationBootstrap(): void {
    const interval = this.options.intervalMs;
    if (interval <= 0) return;
    this.timer = setInterval(() => void this.tick(), interval);
    this.timer.unref();
  }

  /** One sweep; overlapping ticks are skipped. */
  async tick(): Promise<void> {
    if (this.running) return;
    this.running = this.forgetting
      .run()
      .then((run) => run.expired + run.archived > 0 && this.log.log(run, 'forgetting sweep'))
      .catch((error: unknown) => this.log.warn({ error: String(error) }, 'forgetting sweep failed; retrying next interval'))
      .finally(() => (this.running = null));
    await this.running;
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }
}

/** Forgetting on demand (HTTP, CLI): imported by every process that serves it. */
@Module({
  providers: [KnownUsers, MemoryCommandPublisher, ForgettingService],
  exports: [KnownUsers, MemoryCommandPublisher, ForgettingService],
})
export class ForgettingModule {}

/** The scheduled sweep: imported once, by the resolver's module, so one process per deployment runs it. */
@Module({ imports: [ForgettingModule], providers: [ForgettingScheduler] })
export class ForgettingSchedulerModule {}
