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

  async status(caller: 'tenant' | 'deployment'): Promise<PipelineStatus> {
    const [stages, letters] = await Promise.all([this.progress.stages(), this.progress.deadLetters()]);
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
      ingested: await this.progress.ingested(),
      stages: stages.map((stage) => {
        const pausedOn = paused.get(stage.group);
        return pausedOn ? { ...stage, pausedOn } : stage;
      }),
      dependencies: this.dependencies.states(),
    };
  }
}
