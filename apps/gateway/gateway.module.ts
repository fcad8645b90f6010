import { DynamicModule, Module } from '@nestjs/common';
import { EngramConfig, loadConfig } from '@engram/config';
import { bindingsFor, EngramCoreModule, LoggingModule, GatewayHttpModule } from '@engram/services';

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
