import { DynamicModule, Module } from '@nestjs/common';
import { EngramConfig, loadConfig } from '@engram/config';
import { bindingsFor, EngramCoreModule, LoggingModule, IndexerModule } from '@engram/services';

/** The projection worker: search index, sessions and access statistics. */
@Module({})
export class IndexerAppModule {
  static forRoot(config: EngramConfig = loadConfig()): DynamicModule {
    return {
      module: IndexerAppModule,
      imports: [EngramCoreModule.forRoot({ config }), LoggingModule, bindingsFor(config), IndexerModule],
    };
  }
}
