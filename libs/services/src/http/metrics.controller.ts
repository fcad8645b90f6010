import { Controller, Get, Header } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { Registry } from 'prom-client';
import { Public } from './tenancy';
import { MetricsCollector } from './metrics-collector';

/** Prometheus scrape endpoint of the HTTP apps (workers register the same collector on their health listener). */
@ApiExcludeController()
@Controller('metrics')
export class MetricsController {
  constructor(private readonly collector: MetricsCollector) {}

  @Public()
  @Get()
  @Header('content-type', Registry.PROMETHEUS_CONTENT_TYPE)
  async scrape(): Promise<string> {
    return this.collector.scrape();
  }
}
