import { DynamicModule, Module } from '@nestjs/common';
import { EngramConfig, loadConfig } from '@engram/config';
import { bindingsFor, EngramCoreModule, LoggingModule, ResolverModule } from '@engram/services';

/** The resolver worker: memory.extracted.v1 → memory.facts.v1 and the facts store. */
@Module({})
export class ResolverAppModule {
  static forRoot(config: EngramConfig = loadConfig()): DynamicModule {
    return {
      module: ResolverAppModule,
      imports: [EngramCoreModule.forRoot({ config }), LoggingModule, bindingsFor(config), ResolverModule],
    };
  }
}
