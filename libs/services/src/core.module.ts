import { DynamicModule, Global, Module } from '@nestjs/common';
import { EngramConfig, ENGRAM_OPTION_TOKENS, engramOptionProviders, engramOptions, loadConfig } from '@engram/config';
import { Clock, systemClock } from '@engram/ports';
import { DependencyMonitor } from './observability/dependency-monitor';
import { EngramMetrics } from './observability/metrics';
import { MetricsCollector } from './http/metrics-collector';
import { ReadinessService } from './http/readiness.service';
import { EntityAliases } from './pipeline/entity-aliases.provider';
import { EventPublisher } from './pipeline/event-publisher';
import { PipelineProgress } from './pipeline/pipeline-progress';

/**
 * Configuration, time, publishing, progress, metrics and the state of the dependencies: what every engram process needs. The
 * configuration is mapped here, once, into the typed options each consumer injects (RecallOptions,
 * IngestLimits, ResolverOptions, ReplayOptions, KafkaOptions…: libs/config). The whole EngramConfig
 * is not provided: a consumer asks for its slice.
 */
@Global()
@Module({})
export class EngramCoreModule {
  static forRoot(options: { config?: EngramConfig; clock?: Clock } = {}): DynamicModule {
    const config = options.config ?? loadConfig();
    return {
      module: EngramCoreModule,
      providers: [
        ...engramOptionProviders(engramOptions(config)),
        { provide: Clock, useValue: options.clock ?? systemClock },
        { provide: EngramMetrics, useValue: new EngramMetrics() },
        DependencyMonitor,
        EventPublisher,
        PipelineProgress,
        MetricsCollector,
        ReadinessService,
        EntityAliases,
      ],
      exports: [
        ...ENGRAM_OPTION_TOKENS,
        Clock,
        EngramMetrics,
        DependencyMonitor,
        EventPublisher,
        PipelineProgress,
        MetricsCollector,
        ReadinessService,
        EntityAliases,
      ],
    };
  }
}
