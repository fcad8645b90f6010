import { Inject, Injectable, Optional } from '@nestjs/common';
import { EngramEvent, MemoryDecision, MemoryRecord } from '@engram/contracts';
import { defaultAliasTable, embeddedText, EntityAliasTable, lexiconTerms, searchableText, SUMMARY_KIND, tokenize } from '@engram/domain';
import { Embedder, Lexicon, SearchDocument, SearchIndex } from '@engram/ports';
import { EntityAliases } from './entity-aliases.provider';
import { isDecisionOrForget, latestPerMemory } from './facts.projection';
import { applyInSegments } from './segments';
import type { Projection } from './projection';

/**
 * Projects decisions into the search index: BM25 terms from the domain
 * tokenizer over what a memory is found by (`searchableText`), with its lexicon
 * terms when a lexicon is bound (the English of its Chinese words, so English
 * questions find Chinese memories; its English words' synonyms and broader
 * words, so a question worded otherwise finds it), and an embedding of what was
 * said (`embeddedText`).
 * Upserts carry the memory's revision as an external version, so replays are
 * no-ops.
 */
@Injectable()
export class SearchProjection implements Projection {
  readonly name = 'search';
  private readonly aliases: EntityAliasTable;

  constructor(
    @Inject(SearchIndex) private readonly index: SearchIndex,
    @Inject(Embedder) private readonly embedder: Embedder,
    @Optional() aliases?: EntityAliases,
    @Optional() @Inject(Lexicon) private readonly lexicon?: Lexicon,
  ) {
    this.aliases = aliases?.configured ?? defaultAliasTable;
  }

  async apply(events: readonly EngramEvent[]): Promise<void> {
    await applyInSegments<MemoryDecision>(
      events.filter(isDecisionOrForget),
      async (run) => {
        // A memory decided several times in the batch is indexed once, at its newest revision (a replay
        // holds every revision of it): the older ones would be tokenized and embedded only to be replaced.
        await this.indexMemories(latestPerMemory(run));
      },
      async (forget) => this.index.deleteUser(forget.tenantId, forget.userId),
    );
  }

  truncate(): Promise<void> {
    return this.index.truncate();
  }

  /**
   * Indexes memories as they stand, each at its newest revision (an older one than the index holds
   * changes nothing): what `apply` does with a run's decisions, and what a rebuild does with the
   * facts projection's final state (`Rebuilder`).
   */
  async indexMemories(memories: readonly MemoryRecord[]): Promise<void> {
    // Session summaries are read by session, never searched: ranking them would cost every question a candidate.
    const searchable = memories.filter((m) => m.kind !== SUMMARY_KIND);
    if (searchable.length > 0) await this.index.upsert(await this.documents(searchable));
  }

  private async documents(memories: readonly MemoryRecord[]): Promise<SearchDocument[]> {
    const texts = memories.map((memory) => searchableText(memory, this.aliases));
    const vectors = await this.embedder.embed(
      memories.map((memory) => embeddedText(memory, this.aliases)),
      'passage',
    );
    return memories.map((memory, i) => ({
      tenantId: memory.tenantId,
      userId: memory.userId,
      memoryId: memory.memoryId,
      revision: memory.revision,
      kind: memory.kind,
      status: memory.status,
      content: memory.content,
      terms: [...tokenize(texts[i]), ...lexiconTerms(texts[i], this.lexicon, 'memory')],
      entities: memory.entities,
      vector: vectors[i],
      updatedAt: memory.updatedAt,
    }));
  }
}
