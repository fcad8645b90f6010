import { DynamicModule, Module } from '@nestjs/common';
import { EngramConfig, loadConfig } from '@engram/config';
import { bindingsFor, EngramCoreModule, LoggingModule, ExtractorModule } from '@engram/services';

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
