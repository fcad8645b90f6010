import { Inject, Injectable } from '@nestjs/common';
import { ConsistencyOptions } from '@engram/config';
import { deterministicId, MemoriesImportRequested, MemoryRecord, newEvent } from '@engram/contracts';
import { maskPii } from '@engram/domain';
import { Clock, FactStore } from '@engram/ports';
import { MemoryCommandPublisher, rekey } from '../pipeline/memory-commands';
import { EXPORT_FORMAT, EXPORT_VERSION, ExportBundleDto, ExportedMemoryDto, ImportResponse } from './export.dto';

/** Memories per import command: well inside an event's size and the resolver's batch. */
const IMPORT_CHUNK = 200;

/**
 * Export and import of one user's memories. Export reads the fact store (everything in it is
 * already masked: the gateway masks before the log). Import goes through the log: the bundle is
 * masked again (a bundle is outside input), re-keyed to this tenant and user with deterministic
 * ids, and sent to the resolver as MemoriesImportRequested commands; the resolver publishes
 * MemoryAdded decisions, so projections and rebuilds include imported memories and a re-import
 * changes nothing.
 */
@Injectable()
export class ExportService {
  constructor(
    @Inject(ConsistencyOptions) private readonly consistency: ConsistencyOptions,
    private readonly commands: MemoryCommandPublisher,
    @Inject(FactStore) private readonly facts: FactStore,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  async export(tenantId: string, userId: string): Promise<ExportBundleDto> {
    const memories = await this.facts.list({ tenantId, userId });
    return {
      format: EXPORT_FORMAT,
      version: EXPORT_VERSION,
      exportedAt: this.clock.now().toISOString(),
      facts: memories
        .filter((m) => m.pinned && m.status === 'active')
        .map(({ memoryId, attribute, value, content }) => ({ memoryId, attribute, value, content })),
      memories: memories.map(toExported),
    };
  }

  async import(tenantId: string, userId: string, bundle: ExportBundleDto): Promise<ImportResponse> {
    const records = withImportedSources(
      bundle.memories.map((m) => rekey(masked(m), tenantId, userId)),
      bundle.memories,
    );
    const ids = records.map((r) => r.memoryId);
    const before = (await this.facts.get(tenantId, userId, ids)).length;
    const importId = deterministicId('import', tenantId, userId, JSON.stringify(bundle.memories));
    const now = this.clock.now().toISOString();
    const commands: MemoriesImportRequested[] = [];
    for (let i = 0; i < records.length; i += IMPORT_CHUNK) {
      const eventId = deterministicId('import-chunk', importId, i);
      commands.push(
        newEvent<MemoriesImportRequested>({
          eventId,
          type: 'MemoriesImportRequested',
          tenantId,
          userId,
          occurredAt: now,
          recordedAt: now,
          correlationId: importId,
          payload: { importId, memories: records.slice(i, i + IMPORT_CHUNK) },
        }),
      );
    }
    let consistent = true;
    if (commands.length > 0) {
      const position = await this.commands.publish(commands);
      consistent = await this.commands.waitApplied(position, this.consistency.afterTimeoutMs);
    }
    const after = (await this.facts.get(tenantId, userId, ids)).length;
    return { memories: records.length, added: after - before, consistent };
  }
}

function toExported(memory: MemoryRecord): ExportedMemoryDto {
  // Tenant, user and the resolver's bookkeeping stay behind: the bundle is the user's data only.
  const { tenantId: _tenant, userId: _user, appliedItemIds: _bookkeeping, ...data } = memory;
  const { sources, keys, conflict, ...rest } = data;
  return {
    ...rest,
    ...(conflict ? { conflict: { ...conflict } } : {}),
    entities: [...data.entities],
    ...(keys ? { keys: [...keys] } : {}),
    sourceTurnIds: [...data.sourceTurnIds],
    ...(sources ? { sources: [...sources] } : {}), // insights: the memories they are derived from
    history: data.history.map(({ sources: from, ...v }) => ({
      ...v,
      sourceTurnIds: [...v.sourceTurnIds],
      ...(from ? { sources: [...from] } : {}),
    })),
  };
}

/** A bundle comes from outside: mask it like any input before it reaches the log. */
function masked(memory: ExportedMemoryDto): ExportedMemoryDto {
  const mask = (text: string) => maskPii(text).text;
  return {
    ...memory,
    subject: mask(memory.subject),
    attribute: mask(memory.attribute),
    mergeKey: mask(memory.mergeKey),
    value: mask(memory.value),
    content: mask(memory.content),
    entities: memory.entities.map(mask),
    ...(memory.speaker !== undefined ? { speaker: mask(memory.speaker) } : {}),
    ...(memory.keys !== undefined ? { keys: memory.keys.map(mask) } : {}),
    history: memory.history.map((v) => ({ ...v, value: mask(v.value), content: mask(v.content) })),
    ...(memory.conflict
      ? {
          conflict: {
            ...memory.conflict,
            previousValue: mask(memory.conflict.previousValue),
            previousContent: mask(memory.conflict.previousContent),
          },
        }
      : {}),
  };
}

/**
 * An insight links its sources by memory id; re-keying gives every memory a new id, so the links
 * follow (a source missing from the bundle is dropped; the resolver re-derives the insight if its
 * support differs here).
 */
function withImportedSources(records: MemoryRecord[], bundle: readonly ExportedMemoryDto[]): MemoryRecord[] {
  const newId = new Map(bundle.map((m, i) => [m.memoryId, records[i].memoryId]));
  const remap = (ids: readonly string[]) => ids.flatMap((id) => newId.get(id) ?? []);
  return records.map((record) =>
    record.sources === undefined && record.history.every((v) => v.sources === undefined)
      ? record
      : {
          ...record,
          ...(record.sources ? { sources: remap(record.sources) } : {}),
          history: record.history.map((v) => (v.sources ? { ...v, sources: remap(v.sources) } : v)),
        },
  );
}
