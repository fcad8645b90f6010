import { DynamicModule, Module } from '@nestjs/common';
import { EngramConfig, loadConfig } from '@engram/config';
import { bindingsFor } from '@engram/services/bindings/bindings';
import { EngramCoreModule } from '@engram/services/core.module';
import { LoggingModule } from '@engram/services/observability/logging.module';
import { FilterModule } from '@engram/services/stage.modules';

/** The filter worker: memory.turns.v1 → memory.screened.v1. */
@Module({})
export class FilterAppModule {
  static forRoot(config: EngramConfig = loadConfig()): DynamicModule {
    return {
      module: FilterAppModule,
      imports: [EngramCoreModule.forRoot({ config }), LoggingModule, bindingsFor(config), FilterModule],
    };
  }
}
