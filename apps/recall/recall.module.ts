import { DynamicModule, Module } from '@nestjs/common';
import { EngramConfig, loadConfig } from '@engram/config';
import { bindingsFor } from '@engram/services/bindings/bindings';
import { EngramCoreModule } from '@engram/services/core.module';
import { LoggingModule } from '@engram/services/observability/logging.module';
import { RecallHttpModule } from '@engram/services/http.modules';

/** The HTTP read side: POST /v1/recall, memories, forget, pipeline status. */
@Module({})
export class RecallAppModule {
  static forRoot(config: EngramConfig = loadConfig()): DynamicModule {
    return {
      module: RecallAppModule,
      imports: [EngramCoreModule.forRoot({ config }), LoggingModule, bindingsFor(config), RecallHttpModule],
    };
  }
}
