import { Injectable } from '@nestjs/common';
import type { DependencyName } from '@engram/ports';
import { DependencyMonitor, type DependencyState } from '../observability/dependency-monitor';
import { PipelineProgress, type StageLag } from '../pipeline/pipeline-progress';

/** A stage's lag, and the dependency it is paused on when it waits for one. */
interface StageStatus extends StageLag {
  readonly pausedOn?: DependencyName;
}

export interface PipelineStatus {
  readonly scope: 'tenant' | 'deployment';
  readonly pending: number;
  readonly deadLetters: number;
  readonly down: DependencyName[];
  readonly ingested?: number;
  readonly stages?: StageStatus[];
  readonly dependencies?: DependencyState[];
}

/**
 * `GET /v1/pipeline/status`. The figures are offsets of the shared log (Kafka's lag, in the
 * distributed mode): they cannot be split by tenant. A tenant sees the backlog it waits behind (the
 * figure backpressure's 429 names anyway), the dead letters waiting for a replay, and which
 * dependencies are down (why recall says `degraded`, why `pending` grows); the volume ever
 * ingested, the stages and the dependencies' errors are the deployment's, for the admin key.
 * What is down is this process's view (DependencyMonitor); pending and dead letters are the log's.
 */
@Injectable()
export class PipelineStatusService {
  constructor(
    private readonly progress: PipelineProgress,
    private readonly dependencies: DependencyMonitor,
  ) {}

  /**
   * Throws a `DependencyUnavailableError` (503 naming it, with Retry-After) when the log cannot be
   * read within ENGRAM_STATUS_TIMEOUT_MS: pending is not known then. With the fact store's or the
   * search index's server down the log is read as ever, and `down` names the server.
   */
  async status(caller: 'tenant' | 'deployment'): Promise<PipelineStatus> {
    const [stages, letters] = await this.dependencies.statusRead(() => Promise.all([this.progress.stages(), this.progress.deadLetters()]));
    const pending = stages.reduce((sum, s) => sum + s.lag, 0);
    const deadLetters = letters.reduce((sum, l) => sum + l.count, 0);
    const down = this.dependencies.down();
    if (caller === 'tenant') return { scope: 'tenant', pending, deadLetters, down };
    const paused = new Map(this.dependencies.pausedStages().map((p) => [p.stage, p.dependency]));
    return {
      scope: 'deployment',
      pending,
      deadLetters,
      down,
      ingested: await this.dependencies.statusRead(() => this.progress.ingested()),
      stages: stages.map((stage) => {
        const pausedOn = paused.get(stage.group);
        return pausedOn ? { ...stage, pausedOn } : stage;
      }),
      dependencies: this.dependencies.states(),
    };
  }
}
