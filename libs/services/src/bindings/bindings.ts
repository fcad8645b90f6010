import type { Type } from '@nestjs/common';
import type { EngramConfig } from '@engram/config';
import { DistributedBindingsModule } from './distributed-bindings.module';
import { EmbeddedBindingsModule } from './embedded-bindings.module';

export { DistributedBindingsModule } from './distributed-bindings.module';

/**
 * Which adapters a process binds is the only difference between modes.
 * Embedded processes may also run as separate apps sharing one data directory
 * (SQLite in WAL mode serves several processes); distributed ones share
 * Kafka, MongoDB and Elasticsearch.
 */
export function bindingsFor(config: EngramConfig): Type<unknown> {
  switch (config.ENGRAM_MODE) {
    case 'embedded':
      return EmbeddedBindingsModule;
    case 'distributed':
      return DistributedBindingsModule;
  }
}
