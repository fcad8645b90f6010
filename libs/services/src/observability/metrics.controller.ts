import { Controller, Get, Header } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { PipelineProgress } from '../pipeline/pipeline-progress';
import { Public } from '../http/tenancy';
import { EngramMetrics } from './metrics';

/** Prometheus scrape endpoint; consumer lag is collected at scrape time. */
@ApiExcludeController()
@Controller('metrics')
export class MetricsController {
  constructor(
    private readonly metrics: EngramMetrics,
    private readonly progress: PipelineProgress,
  ) {}

  @Public()
  @Get()
  @Header('content-type', 'text/plain; version=0.0.4; charset=utf-8')
  async scrape(): Promise<string> {
    for (const stage of await this.progress.stages()) {
      this.metrics.consumerLag.set({ topic: stage.topic, group: stage.group }, stage.lag);
    }
    return this.metrics.registry.metrics();
  }
}
