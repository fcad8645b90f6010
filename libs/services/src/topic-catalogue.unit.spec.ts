import 'reflect-metadata';
import { PATTERN_METADATA } from '@nestjs/microservices/constants';
import { TOPIC_CATALOGUE } from '@engram/contracts';
import { ExtractorModule, FilterModule, IndexerModule, ResolverModule } from './stage.modules';
import type { StagePattern } from './transport/event-log.transport';

/**
 * The AsyncAPI document's receive operations (libs/contracts/src/topic-catalogue.ts) are the
 * stages' real subscriptions: every `@EventPattern` of every worker module's controllers, and
 * nothing else.
 */
const WORKERS = { filter: FilterModule, extractor: ExtractorModule, resolver: ResolverModule, indexer: IndexerModule };

function subscriptions(): string[] {
  const found: string[] = [];
  for (const [service, module] of Object.entries(WORKERS)) {
    const controllers = (Reflect.getMetadata('controllers', module) ?? []) as (new (...args: never[]) => object)[];
    for (const controller of controllers) {
      for (const name of Object.getOwnPropertyNames(controller.prototype)) {
        const patterns = Reflect.getMetadata(PATTERN_METADATA, controller.prototype[name as never]) as StagePattern[] | undefined;
        for (const pattern of patterns ?? []) found.push(`${service} reads ${pattern.topic} as ${pattern.group}`);
      }
    }
  }
  return found.sort();
}

describe('the topic catalogue against the stages', () => {
  it("lists exactly the worker modules' @EventPattern subscriptions as receivers", () => {
    const listed = TOPIC_CATALOGUE.flatMap((c) => c.receivers.map((r) => `${r.service} reads ${c.topic} as ${r.group}`)).sort();
    expect(subscriptions().length).toBeGreaterThanOrEqual(6);
    expect(listed).toEqual(subscriptions());
  });
});
