import { DynamicModule, FactoryProvider, Global, Inject, Logger, Module, OnApplicationShutdown, Optional } from '@nestjs/common';
import type { Database } from 'better-sqlite3';
import type { MongoClient } from 'mongodb';
import { EmbedderOptions, PortBindings } from '@engram/config';
import { createEmbedder } from '@engram/embedding';
import { createLexicon } from '@engram/lexicon';
import { Embedder, EventLog, Lexicon, SearchIndex } from '@engram/ports';
import { MONGO_CLIENT, mongoDatabase, SQLITE_DATABASE, sqliteDatabase } from './databases';
import { eventLogProviders } from './event-log.bindings';
import { factStoreProviders } from './fact-store.bindings';
import { searchProviders } from './search.bindings';

/**
 * The adapters a process binds, one choice per port (PortBindings: ENGRAM_EVENT_LOG,
 * ENGRAM_FACT_STORE, ENGRAM_SEARCH, or ENGRAM_MODE's preset); nothing else differs between
 * configurations. Every client is connected (and topics, indexes and the search index created)
 * while the module initialises, so a process that starts is a process that can work; every client
 * is closed on shutdown, after Nest stopped the stage handlers (each finished and committed its batch).
 */
@Global()
@Module({})
export class EngramBindingsModule implements OnApplicationShutdown {
  constructor(
    @Inject(EventLog) private readonly eventLog: EventLog,
    @Inject(SearchIndex) private readonly searchIndex: SearchIndex & { close?(): Promise<void> },
    @Optional() @Inject(MONGO_CLIENT) private readonly mongo?: MongoClient,
    @Optional() @Inject(SQLITE_DATABASE) private readonly sqlite?: Database,
  ) {}

  static forBindings(bindings: PortBindings): DynamicModule {
    const sqlite = bindings.eventLog === 'sqlite' || bindings.factStore === 'sqlite' || bindings.search === 'sqlite';
    const providers: FactoryProvider[] = [
      ...(sqlite ? [sqliteDatabase] : []),
      ...(bindings.factStore === 'mongodb' ? mongoDatabase : []),
      ...eventLogProviders(bindings.eventLog),
      ...factStoreProviders(bindings.factStore),
      ...searchProviders(bindings.search),
      // The same embedder whatever the bindings (hashing, or ENGRAM_EMBEDDINGS_URL), so every configuration ranks alike.
      {
        provide: Embedder,
        inject: [EmbedderOptions],
        useFactory: (options: EmbedderOptions) => createEmbedder(options, (message) => new Logger('Embedder').warn(message)),
      },
      // And the same lexicon (ENGRAM_LEXICON): the search projection indexes by it, recall searches and ranks by it.
      { provide: Lexicon, inject: [EmbedderOptions], useFactory: (options: EmbedderOptions) => createLexicon(options) },
    ];
    return {
      module: EngramBindingsModule,
      providers,
      exports: providers.map((provider) => provider.provide),
    };
  }

  async onApplicationShutdown(): Promise<void> {
    // The SQLite file last: the log and the stores close over it.
    await Promise.allSettled([this.eventLog.close(), this.searchIndex.close?.(), this.mongo?.close()]);
    if (this.sqlite?.open) this.sqlite.close();
  }
}
