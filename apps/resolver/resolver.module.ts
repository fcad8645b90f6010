import { DynamicModule, Module } from '@nestjs/common';
import { EngramConfig, loadConfig } from '@engram/config';
import { bindingsFor } from '@engram/services/bindings/bindings';
import { EngramCoreModule } from '@engram/services/core.module';
import { LoggingModule } from '@engram/services/observability/logging.module';
import { ResolverModule } from '@engram/services/stage.modules';

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
