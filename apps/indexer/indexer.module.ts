import { DynamicModule, Module } from '@nestjs/common';
import { EngramConfig, loadConfig } from '@engram/config';
import { bindingsFor } from '@engram/services/bindings/bindings';
import { EngramCoreModule } from '@engram/services/core.module';
import { LoggingModule } from '@engram/services/observability/logging.module';
import { IndexerModule } from '@engram/services/stage.modules';

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
