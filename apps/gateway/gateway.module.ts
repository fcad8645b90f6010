import { DynamicModule, Module } from '@nestjs/common';
import { EngramConfig, loadConfig } from '@engram/config';
import { bindingsFor } from '@engram/services/bindings/bindings';
import { EngramCoreModule } from '@engram/services/core.module';
import { LoggingModule } from '@engram/services/observability/logging.module';
import { GatewayHttpModule } from '@engram/services/http.modules';

/** HTTP ingest: POST /v1/turns onto memory.turns.v1. */
@Module({})
export class GatewayAppModule {
  static forRoot(config: EngramConfig = loadConfig()): DynamicModule {
    return {
      module: GatewayAppModule,
      imports: [EngramCoreModule.forRoot({ config }), LoggingModule, bindingsFor(config), GatewayHttpModule],
    };
  }
}
