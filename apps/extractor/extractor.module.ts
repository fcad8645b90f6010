import { DynamicModule, Module } from '@nestjs/common';
import { EngramConfig, loadConfig } from '@engram/config';
import { bindingsFor } from '@engram/services/bindings/bindings';
import { EngramCoreModule } from '@engram/services/core.module';
import { LoggingModule } from '@engram/services/observability/logging.module';
import { ExtractorModule } from '@engram/services/stage.modules';

/** The extractor worker: memory.screened.v1 → memory.extracted.v1. */
@Module({})
export class ExtractorAppModule {
  static forRoot(config: EngramConfig = loadConfig()): DynamicModule {
    return {
      module: ExtractorAppModule,
      imports: [EngramCoreModule.forRoot({ config }), LoggingModule, bindingsFor(config), ExtractorModule],
    };
  }
}
