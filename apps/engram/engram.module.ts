import { DynamicModule, Module } from '@nestjs/common';
import { EngramConfig, loadConfig } from '@engram/config';
import type { Clock } from '@engram/ports';
import {
  AllHttpModule,
  bindingsFor,
  EngramCoreModule,
  ExtractorModule,
  FilterModule,
  IndexerModule,
  LoggingModule,
  ProjectionsModule,
  ResolverModule,
} from '@engram/services';

/**
 * The all-in-one server: every stage and both HTTP sides in one process, over
 * SQLite (embedded, the default) or Kafka, MongoDB and Elasticsearch (ENGRAM_MODE=distributed),
 * or a backend chosen per port (ENGRAM_EVENT_LOG, ENGRAM_FACT_STORE, ENGRAM_SEARCH).
 */
@Module({})
export class EngramModule {
  static forRoot(options: { config?: EngramConfig; clock?: Clock } = {}): DynamicModule {
    const config = options.config ?? loadConfig();
    return {
      module: EngramModule,
      imports: [
        EngramCoreModule.forRoot({ ...options, config }),
        LoggingModule,
        bindingsFor(config),
        FilterModule,
        ExtractorModule,
        ResolverModule,
        IndexerModule,
        AllHttpModule,
      ],
    };
  }

  /** Projections and the log without stages or HTTP: for rebuild and status. */
  static forMaintenance(options: { config?: EngramConfig } = {}): DynamicModule {
    const config = options.config ?? loadConfig();
    return {
      module: EngramModule,
      imports: [EngramCoreModule.forRoot({ config }), LoggingModule, bindingsFor(config), ProjectionsModule],
    };
  }
}
