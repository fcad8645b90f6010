import { DynamicModule, Module } from '@nestjs/common';
import type { EngramConfig } from '@engram/config';
import type { Clock } from '@engram/ports';
import {
  AllHttpModule,
  EmbeddedBindingsModule,
  EngramCoreModule,
  ExtractorModule,
  FilterModule,
  IndexerModule,
  LoggingModule,
  ProjectionsModule,
  ResolverModule,
} from '@engram/services';

/** The all-in-one embedded server: every stage and both HTTP sides in one process over SQLite. */
@Module({})
export class EngramModule {
  static forRoot(options: { config?: EngramConfig; clock?: Clock } = {}): DynamicModule {
    return {
      module: EngramModule,
      imports: [
        EngramCoreModule.forRoot(options),
        LoggingModule,
        EmbeddedBindingsModule,
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
    return {
      module: EngramModule,
      imports: [EngramCoreModule.forRoot(options), LoggingModule, EmbeddedBindingsModule, ProjectionsModule],
    };
  }
}
