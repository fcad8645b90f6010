import { Inject, Injectable } from '@nestjs/common';
import { EngramEvent, MemoryDecision, MEMORY_DECISION_TYPES, MemoryRecord, UserForgotten } from '@engram/contracts';
import { FactStore } from '@engram/ports';
import { applyInSegments } from './segments';
import type { Projection } from './projection';

const isDecision = (type: string): boolean => (MEMORY_DECISION_TYPES as readonly string[]).includes(type);

/** What the facts and search projections read: the resolver's decisions and forget requests. */
export function isDecisionOrForget(event: EngramEvent): event is MemoryDecision | UserForgotten {
  return event.type === 'UserForgotten' || isDecision(event.type);
}

/**
 * Applies the resolver's decisions to the fact store. Each decision carries the
 * memory's state after it; the store keeps the newest revision, so applying a
 * batch twice (or out of order) gives the same result. Used by the resolver
 * for its own decisions and by rebuilds replaying `memory.facts.v1`.
 */
@Injectable()
export class FactsProjection implements Projection {
  readonly name = 'facts';

  constructor(@Inject(FactStore) private readonly store: FactStore) {}

  async apply(events: readonly EngramEvent[]): Promise<void> {
    await applyInSegments<MemoryDecision>(
      events.filter(isDecisionOrForget),
      async (run) => {
        await this.store.save(latestPerMemory(run));
      },
      async (forget) => {
        await this.store.deleteUser(forget.tenantId, forget.userId);
      },
    );
  }

  async truncate(): Promise<void> {
    await this.store.truncate();
  }

  /**
   * Every memory the store holds, a few users at a time (a page holds at least `pageSize` memories
   * unless it is the last; one user's memories are never split), with how many of the users were
   * read: what the search index is rebuilt from once the facts are (`Rebuilder`). Only the list of
   * users and one page are held at once.
   */
  async *memories(pageSize: number): AsyncGenerator<{ memories: MemoryRecord[]; users: number; of: number }> {
    const users = await this.store.users();
    let page: MemoryRecord[] = [];
    for (let i = 0; i < users.length; i++) {
      page.push(...(await this.store.list(users[i])));
      if (page.length >= pageSize || i === users.length - 1) {
        yield { memories: page, users: i + 1, of: users.length };
        page = [];
      }
    }
  }
}

/**
 * Only the newest state of each memory needs writing: the stores ignore older revisions anyway
 * (the fact store and the search index alike), so the rest would be written only to be replaced.
 */
export function latestPerMemory(run: readonly MemoryDecision[]) {
  const latest = new Map<string, MemoryDecision['payload']['memory']>();
  for (const { payload } of run) {
    const key = `${payload.memory.tenantId}\u0000${payload.memory.userId}\u0000${payload.memory.memoryId}`;
    const seen = latest.get(key);
    if (!seen || seen.revision < payload.memory.revision) latest.set(key, payload.memory);
  }
  return [...latest.values()];
}

export { isDecision };
