import { Inject, Injectable, Logger } from '@nestjs/common';
import { PortBindings } from '@engram/config';
import { type DependencyName, unavailableDependency } from '@engram/ports';
import { DependencyMonitor, type PausedStage } from '../observability/dependency-monitor';
import { PipelineProgress } from '../pipeline/pipeline-progress';

export interface Readiness {
  /**
   * `ready`: everything answers. `degraded`: a dependency is down (its stages paused, recall
   * answering without it) and the process still serves. `unavailable`: it cannot read its log.
   */
  readonly status: 'ready' | 'degraded' | 'unavailable';
  readonly mode: string;
  readonly down: DependencyName[];
  readonly paused: PausedStage[];
  readonly pending?: number;
  readonly deadLetters?: number;
  readonly error?: string;
}

/**
 * `GET /health/ready`, on every process (workers too: in the distributed mode each knows only its own
 * stages' pauses). A dependency being down is `degraded` and still 200: the process serves what it
 * can and catches up by itself, and a 503 would take every instance out of its load balancer at
 * once for an outage engram rides out. 503 only when the log cannot be read: nothing works then.
 * Counts only (no ids, no text), public like `/health`, for orchestrators and load balancers.
 */
@Injectable()
export class ReadinessService {
  private readonly log = new Logger(ReadinessService.name);

  constructor(
    private readonly progress: PipelineProgress,
    private readonly dependencies: DependencyMonitor,
    @Inject(PortBindings) private readonly bindings: PortBindings,
  ) {}

  async check(): Promise<{ readonly httpStatus: 200 | 503; readonly body: Readiness }> {
    const { mode } = this.bindings;
    try {
      // Within ENGRAM_STATUS_TIMEOUT_MS: a probe never waits out Kafka's client retries.
      const [pending, letters] = await this.dependencies.statusRead(() =>
        Promise.all([this.progress.pending(), this.progress.deadLetters()]),
      );
      const deadLetters = letters.reduce((sum, l) => sum + l.count, 0);
      const down = this.dependencies.down();
      const paused = this.dependencies.pausedStages();
      const status = down.length > 0 || paused.length > 0 ? 'degraded' : 'ready';
      return { httpStatus: 200, body: { status, mode, down, paused, pending, deadLetters } };
    } catch (error) {
      this.log.warn({ error: String(error) }, 'not ready: the event log cannot be read');
      // The outage that stopped the read is down too, whether or not a call told the monitor before.
      const outage = unavailableDependency(error)?.dependency;
      const down = [...new Set([...this.dependencies.down(), ...(outage ? [outage] : [])])].sort();
      const paused = this.dependencies.pausedStages();
      return { httpStatus: 503, body: { status: 'unavailable', mode, down, paused, error: 'the event log cannot be read' } };
    }
  }
}
