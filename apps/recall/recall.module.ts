import { DynamicModule, Module } from '@nestjs/common';
import { EngramConfig, loadConfig } from '@engram/config';
import { bindingsFor, EngramCoreModule, LoggingModule, RecallHttpModule } from '@engram/services';

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
