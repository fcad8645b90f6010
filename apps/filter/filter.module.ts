import { DynamicModule, Module } from '@nestjs/common';
import { EngramConfig, loadConfig } from '@engram/config';
import { bindingsFor, EngramCoreModule, LoggingModule, FilterModule } from '@engram/services';

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
