import { Inject, Injectable } from '@nestjs/common';
import { DependencyOptions } from '@engram/config';
import { type DependencyName, DependencyUnavailableError } from '@engram/ports';
import { EngramMetrics } from './metrics';

/** A dependency as this process last found it. */
export interface DependencyState {
  readonly name: DependencyName;
  readonly state: 'up' | 'down';
  /** Down: since when (ISO 8601). */
  readonly since?: string;
  /** Down: the last failure's message (it may name the dependency's address: for the deployment's eyes only). */
  readonly error?: string;
}

/** A stage waiting for a dependency: its batch is retried with backoff, nothing is committed or dead-lettered. */
export interface PausedStage {
  readonly stage: string;
  readonly dependency: DependencyName;
  readonly since: string;
}

interface Outage {
  readonly since: number;
  error: string;
  /** When a caller was last let through to try it (recall's recheck). */
  lastAsked: number;
}

/**
 * What this process knows of the servers it calls (DependencyOptions: the embedder, the chat model,
 * the stores' servers in the distributed mode): up until a call finds one unreachable, down until a
 * call to it succeeds again (the stores' adapters tell it of every call: `reportingOutages`). The stage transport reports a stage's pause, and the dependency it waited for as
 * up once the batch went through; recall reports its calls to the embedder and asks whether it is
 * worth calling; `/v1/pipeline/status`, `/health/ready` and the metrics read it. It is this
 * process's view: in the distributed mode each worker knows its own stages (its `/health/ready`
 * says), while `pending` is read from the log. Wall-clock time, like the webhook worker's: it
 * measures waits, not the domain's instants.
 */
@Injectable()
export class DependencyMonitor {
  private readonly outages = new Map<DependencyName, Outage>();
  private readonly paused = new Map<string, { dependency: DependencyName; since: number }>();

  constructor(
    @Inject(DependencyOptions) private readonly options: DependencyOptions,
    private readonly metrics: EngramMetrics,
  ) {
    for (const name of options.watched) metrics.dependencyUp.set({ dependency: name }, 1);
  }

  /** A call found the dependency unreachable, timing out or answering "later". */
  failed(dependency: DependencyName, error: unknown): void {
    const now = Date.now();
    const outage = this.outages.get(dependency);
    const message = error instanceof Error ? error.message : String(error);
    if (outage) outage.error = message;
    else this.outages.set(dependency, { since: now, error: message, lastAsked: now });
    this.metrics.dependencyUp.set({ dependency }, 0);
  }

  /** A call to the dependency got an answer: it is up. */
  answered(dependency: DependencyName): void {
    if (!this.outages.delete(dependency)) return;
    this.metrics.dependencyUp.set({ dependency }, 1);
  }

  /**
   * Whether a caller that can do without the dependency should call it now: always while it is up;
   * while it is down, one caller per ENGRAM_DEPENDENCY_RECHECK_MS, so that recall notices it is back
   * even when no stage is calling it, without every recall waiting on a dead server.
   */
  worthCalling(dependency: DependencyName): boolean {
    const outage = this.outages.get(dependency);
    if (!outage) return true;
    const now = Date.now();
    if (now - outage.lastAsked < this.options.recheckMs) return false;
    outage.lastAsked = now;
    return true;
  }

  /**
   * A read of the event log for status, readiness or metrics, given ENGRAM_STATUS_TIMEOUT_MS when
   * the log is on a server (Kafka): past it, the log's server is unavailable (a
   * `DependencyUnavailableError`) rather than the caller waiting out its client's retries.
   */
  async statusRead<T>(read: () => Promise<T>): Promise<T> {
    const server = this.options.logServer;
    if (!server) return read();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const outage = new DependencyUnavailableError(server, `the event log did not answer within ${this.options.statusTimeoutMs} ms`);
        this.failed(server, outage);
        reject(outage);
      }, this.options.statusTimeoutMs);
    });
    try {
      return await Promise.race([read(), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** How long a client told that the dependency is down should wait before asking again (Retry-After). */
  get retryAfterSeconds(): number {
    return Math.ceil(this.options.recheckMs / 1000);
  }

  stagePaused(stage: string, dependency: DependencyName): void {
    if (!this.paused.has(stage)) this.paused.set(stage, { dependency, since: Date.now() });
    this.metrics.stagePaused.set({ stage }, 1);
  }

  stageResumed(stage: string): void {
    if (!this.paused.delete(stage)) return;
    this.metrics.stagePaused.set({ stage }, 0);
  }

  /** The dependencies that are down, by name. */
  down(): DependencyName[] {
    return [...this.outages.keys()].sort();
  }

  /** Every dependency watched or seen down, with its state. */
  states(): DependencyState[] {
    const names = [...new Set([...this.options.watched, ...this.outages.keys()])].sort();
    return names.map((name) => {
      const outage = this.outages.get(name);
      return outage ? { name, state: 'down', since: new Date(outage.since).toISOString(), error: outage.error } : { name, state: 'up' };
    });
  }

  pausedStages(): PausedStage[] {
    return [...this.paused].map(([stage, { dependency, since }]) => ({ stage, dependency, since: new Date(since).toISOString() }));
  }
}
