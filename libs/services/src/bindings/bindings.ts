import type { Type } from '@nestjs/common';
import type { EngramConfig } from '@engram/config';
import { EmbeddedBindingsModule } from './embedded-bindings.module';

/**
 * Which adapters a process binds is the only difference between modes.
 * Embedded processes may also run as separate apps sharing one data directory
 * (SQLite in WAL mode serves several processes).
 */
export function bindingsFor(config: EngramConfig): Type<unknown> {
  switch (config.ENGRAM_MODE) {
    case 'embedded':
      return EmbeddedBindingsModule;
    case 'distributed':
      throw new Error('ENGRAM_MODE=distributed: the Kafka/MongoDB/Elasticsearch adapters are not available in this build');
  }
}
