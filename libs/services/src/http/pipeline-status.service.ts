import { Injectable } from '@nestjs/common';
import { PipelineProgress, type StageLag } from '../pipeline/pipeline-progress';

export interface PipelineStatus {
  readonly scope: 'tenant' | 'deployment';
  readonly pending: number;
  readonly ingested?: number;
  readonly stages?: StageLag[];
}

/**
 * `GET /v1/pipeline/status`. The figures are offsets of the shared log (Kafka's lag, in the
 * distributed mode): they cannot be split by tenant. A tenant sees the backlog it waits behind (the
 * figure backpressure's 429 names anyway); the volume ever ingested and the stages are the
 * deployment's, for the admin key.
 */
@Injectable()
export class PipelineStatusService {
  constructor(private readonly progress: PipelineProgress) {}

  async status(caller: 'tenant' | 'deployment'): Promise<PipelineStatus> {
    const stages = await this.progress.stages();
    const pending = stages.reduce((sum, s) => sum + s.lag, 0);
    if (caller === 'tenant') return { scope: 'tenant', pending };
    return { scope: 'deployment', pending, ingested: await this.progress.ingested(), stages };
  }
}
