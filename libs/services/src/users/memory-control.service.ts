import { BadRequestException, ConflictException, Inject, Injectable, NotFoundException } from '@nestjs/common';
import { ConsistencyOptions } from '@engram/config';
import { randomUUID } from 'node:crypto';
import {
  MemoryConfirmRequested,
  MemoryRecord,
  MemoryRetractionRequested,
  MemoryRevertRequested,
  newEvent,
  PROFILE_KEY_MAX,
  PROFILE_MAX_ATTRIBUTES,
  PROFILE_TEXT_MAX,
  ProfileUpdateRequested,
} from '@engram/contracts';
import { maskPii, mergeKeyOf, revertTarget } from '@engram/domain';
import { Clock, FactStore } from '@engram/ports';
import { MemoryCommand, MemoryCommandPublisher } from '../pipeline/memory-commands';
import type { MemoryCommandResponse, ProfileUpdateResponse } from './memory-control.dto';
import { textProblem } from '../http/request-fields';

/** What a profile attribute may look like: one word of letters and digits, joined by _ . : - (the rules' slugs, in any script). */
const PROFILE_KEY = new RegExp(`^[\\p{L}\\p{N}][\\p{L}\\p{N}_.:-]{0,${PROFILE_KEY_MAX - 1}}$`, 'u');
/** Merge keys engram derives itself: an application's attribute must not land on an episode. */
const RESERVED_KEY_PREFIXES = ['episode:'];

/**
 * The application's control over one user's memories: retract one, revert one to an earlier value,
 * confirm one that contradicts an earlier value, state profile facts. Each is checked here against the fact store (404 for a memory the user does
 * not hold, whatever tenant or user it belongs to; 400 naming the field for bad input) and then sent
 * as a command to the resolver, the single writer of the user's memories, like an import; the
 * answer comes once recall sees the decision.
 */
@Injectable()
export class MemoryControlService {
  constructor(
    @Inject(ConsistencyOptions) private readonly consistency: ConsistencyOptions,
    private readonly commands: MemoryCommandPublisher,
    @Inject(FactStore) private readonly facts: FactStore,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  /** `reason` from the body or (HTTP) the query: either may be given, and each given must be text (the body's wins). */
  async retract(
    tenantId: string,
    userId: string,
    memoryId: string,
    reason: unknown,
    queryReason?: unknown,
  ): Promise<MemoryCommandResponse> {
    const given = [reason, queryReason].filter((r) => r !== undefined);
    if (given.length === 0) throw new BadRequestException({ message: ['reason must say why the memory is retracted'], fields: ['reason'] });
    // The query parameter is not validated by a DTO: the same checks as a turn's text, here.
    for (const r of given) {
      const problem = textProblem(r, PROFILE_TEXT_MAX);
      if (problem) throw new BadRequestException({ message: [`reason ${problem}`], fields: ['reason'] });
    }
    const text = (given[0] as string).trim();
    const memory = await this.controllable(tenantId, userId, memoryId);
    if (memory.status !== 'active') return { memory: view(memory), changed: false, consistent: true };
    const now = this.clock.now().toISOString();
    const command = newEvent<MemoryRetractionRequested>({
      ...request(tenantId, userId, now),
      type: 'MemoryRetractionRequested',
      payload: { memoryId, reason: maskPii(text).text, requestedAt: now },
    });
    return this.apply(command, memory);
  }

  async revert(tenantId: string, userId: string, memoryId: string, version: number): Promise<MemoryCommandResponse> {
    const memory = await this.controllable(tenantId, userId, memoryId);
    const chosen = revertTarget(memory, version);
    if ('error' in chosen) {
      if (chosen.error === 'unknown-version') {
        throw new NotFoundException({
          message: [`version ${version} is not a version of memory ${memoryId} (1–${memory.version})`],
          fields: ['version'],
        });
      }
      throw new BadRequestException({
        message: [`version ${version} is already the current value of memory ${memoryId}`],
        fields: ['version'],
      });
    }
    const now = this.clock.now().toISOString();
    const command = newEvent<MemoryRevertRequested>({
      ...request(tenantId, userId, now),
      type: 'MemoryRevertRequested',
      payload: { memoryId, version, requestedAt: now },
    });
    return this.apply(command, memory);
  }

  /**
   * The user confirms the current value where it contradicts an earlier one (its `conflict`): the note
   * goes. A memory with nothing to confirm (no conflict, or not active) is left as it is (`changed: false`).
   */
  async confirm(tenantId: string, userId: string, memoryId: string): Promise<MemoryCommandResponse> {
    const memory = await this.controllable(tenantId, userId, memoryId);
    if (memory.status !== 'active' || !memory.conflict) return { memory: view(memory), changed: false, consistent: true };
    const now = this.clock.now().toISOString();
    const command = newEvent<MemoryConfirmRequested>({
      ...request(tenantId, userId, now),
      type: 'MemoryConfirmRequested',
      payload: { memoryId, requestedAt: now },
    });
    return this.apply(command, memory);
  }

  async saveProfile(tenantId: string, userId: string, attributes: Record<string, unknown>): Promise<ProfileUpdateResponse> {
    const checked = checkedAttributes(attributes);
    const now = this.clock.now().toISOString();
    const command = newEvent<ProfileUpdateRequested>({
      ...request(tenantId, userId, now),
      type: 'ProfileUpdateRequested',
      payload: { attributes: checked, requestedAt: now },
    });
    const consistent = await this.send(command);
    const mergeKeys = checked.map(({ attribute }) => mergeKeyOf({ subject: 'user', attribute }));
    const held = await this.facts.findByMergeKeys(tenantId, userId, mergeKeys);
    const byKey = new Map(held.map((m) => [m.mergeKey, m]));
    return { memories: mergeKeys.flatMap((key) => (byKey.has(key) ? [view(byKey.get(key)!)] : [])), consistent };
  }

  /** The user's memory, or 404 (a memory of another tenant or user is not there). Insights are derived: 409. */
  private async controllable(tenantId: string, userId: string, memoryId: string): Promise<MemoryRecord> {
    const [memory] = await this.facts.get(tenantId, userId, [memoryId]);
    if (!memory || memory.tenantId !== tenantId || memory.userId !== userId) {
      throw new NotFoundException({ message: [`user ${userId} has no memory ${memoryId}`], fields: ['memoryId'] });
    }
    if (memory.kind === 'insight') {
      throw new ConflictException({
        message: [`memory ${memoryId} is an insight, derived from other memories: retract or correct those`],
        fields: ['memoryId'],
      });
    }
    return memory;
  }

  private async apply(
    command: MemoryRetractionRequested | MemoryRevertRequested | MemoryConfirmRequested,
    before: MemoryRecord,
  ): Promise<MemoryCommandResponse> {
    const consistent = await this.send(command);
    const [after] = await this.facts.get(before.tenantId, before.userId, [before.memoryId]);
    const memory = after ?? before;
    return { memory: view(memory), changed: memory.revision > before.revision, consistent };
  }

  private async send(command: MemoryCommand): Promise<boolean> {
    const position = await this.commands.publish([command]);
    return this.commands.waitApplied(position, this.consistency.afterTimeoutMs);
  }
}

/** A fresh id per request: two requests are two commands (a redelivered command keeps its id, so it decides the same). */
function request(tenantId: string, userId: string, now: string) {
  return { eventId: randomUUID(), tenantId, userId, occurredAt: now, recordedAt: now };
}

/** `{ attributes: { city: '杭州' } }` → masked, lower-cased attributes; 400 naming `attributes.<key>` otherwise. */
function checkedAttributes(attributes: Record<string, unknown>): { attribute: string; value: string }[] {
  const entries = Object.entries(attributes);
  if (entries.length === 0)
    throw new BadRequestException({ message: ['attributes must name at least one attribute'], fields: ['attributes'] });
  if (entries.length > PROFILE_MAX_ATTRIBUTES) {
    throw new BadRequestException({
      message: [`attributes must name at most ${PROFILE_MAX_ATTRIBUTES} attributes`],
      fields: ['attributes'],
    });
  }
  const messages: string[] = [];
  const fields: string[] = [];
  const seen = new Set<string>();
  const checked: { attribute: string; value: string }[] = [];
  for (const [key, value] of entries) {
    const field = `attributes.${key}`;
    const attribute = key.normalize('NFKC').toLowerCase();
    if (!PROFILE_KEY.test(attribute) || RESERVED_KEY_PREFIXES.some((prefix) => attribute.startsWith(prefix))) {
      messages.push(
        `${field}: an attribute is letters and digits joined by _ . : - (at most ${PROFILE_KEY_MAX}), not starting with ${RESERVED_KEY_PREFIXES.join(', ')}`,
      );
      fields.push(field);
    } else if (seen.has(attribute)) {
      messages.push(`${field}: names the same attribute as another key`);
      fields.push(field);
    } else if (textProblem(value, PROFILE_TEXT_MAX)) {
      messages.push(`${field} ${textProblem(value, PROFILE_TEXT_MAX)}`);
      fields.push(field);
    } else {
      seen.add(attribute);
      // Outside input: masked like a turn before it reaches the log.
      checked.push({ attribute: maskPii(attribute).text, value: maskPii((value as string).trim()).text });
    }
  }
  if (fields.length > 0) throw new BadRequestException({ message: messages, fields });
  return checked;
}

function view(memory: MemoryRecord): MemoryCommandResponse['memory'] {
  // appliedItemIds is the resolver's bookkeeping, not the user's data (as in GET …/memories).
  const { appliedItemIds: _bookkeeping, ...rest } = memory;
  return rest as unknown as MemoryCommandResponse['memory'];
}
