import { Inject, Injectable } from '@nestjs/common';
import { MemoryDecision, MemoryRecord, UserForgotten } from '@engram/contracts';
import { tokenize } from '@engram/domain';
import { Embedder, SearchDocument, SearchIndex } from '@engram/ports';
import { isDecision } from './facts.projection';
import { applyInSegments } from './segments';

/**
 * Projects decisions into the search index: BM25 terms from the domain
 * tokenizer and an embedding of the content. Upserts carry the memory's
 * revision as an external version, so replays are no-ops.
 */
@Injectable()
export class SearchProjection {
  readonly name = 'search';

  constructor(
    @Inject(SearchIndex) private readonly index: SearchIndex,
    @Inject(Embedder) private readonly embedder: Embedder,
  ) {}

  async apply(events: readonly (MemoryDecision | UserForgotten)[]): Promise<void> {
    await applyInSegments<MemoryDecision>(
      events.filter((e) => e.type === 'UserForgotten' || isDecision(e.type)),
      async (run) => this.index.upsert(await this.documents(run.map((e) => e.payload.memory))),
      async (forget) => this.index.deleteUser(forget.tenantId, forget.userId),
    );
  }

  truncate(): Promise<void> {
    return this.index.truncate();
  }

  private async documents(memories: readonly MemoryRecord[]): Promise<SearchDocument[]> {
    const vectors = await this.embedder.embed(memories.map(searchableText));
    return memories.map((memory, i) => ({
      tenantId: memory.tenantId,
      userId: memory.userId,
      memoryId: memory.memoryId,
      revision: memory.revision,
      kind: memory.kind,
      status: memory.status,
      content: memory.content,
      terms: tokenize(searchableText(memory)),
      entities: memory.entities,
      vector: vectors[i],
      updatedAt: memory.updatedAt,
    }));
  }
}

/** What a memory is found by: its sentence, its value and its normalised entities. */
export function searchableText(memory: MemoryRecord): string {
  return [memory.content, memory.value, ...memory.entities].join(' ');
}
