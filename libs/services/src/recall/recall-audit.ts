import { Inject, Injectable, Logger } from '@nestjs/common';
import { RecallOptions } from '@engram/config';
import type { MemoryRecord } from '@engram/contracts';
import { maskPii, RankedMemory } from '@engram/domain';

/** What a recall returned, as the audit line records it. */
export interface AuditedRecall {
  readonly facts: readonly MemoryRecord[];
  readonly memories: readonly RankedMemory[];
}

/**
 * The recall audit log: for the tenants listed in ENGRAM_RECALL_AUDIT_TENANTS
 * (or `*`), every recall writes one JSON line (info level, so the default
 * LOG_LEVEL keeps it) with the query — PII-masked with the domain's masker —,
 * the returned ids in order and each memory's score components. Memory text is
 * not logged: the ids lead to it, and to its history, through the memories API.
 */
@Injectable()
export class RecallAudit {
  private readonly log = new Logger(RecallAudit.name);
  private readonly all: boolean;
  private readonly tenants: ReadonlySet<string>;

  constructor(@Inject(RecallOptions) options: RecallOptions) {
    const listed = parseAuditTenants(options.auditTenants);
    this.all = listed === '*';
    this.tenants = new Set(listed === '*' ? [] : listed);
  }

  enabledFor(tenantId: string): boolean {
    return this.all || this.tenants.has(tenantId);
  }

  record(
    tenantId: string,
    request: { readonly userId: string; readonly query: string; readonly sessionId?: string; readonly asOf?: string },
    returned: AuditedRecall,
  ): void {
    if (!this.enabledFor(tenantId)) return;
    this.log.log(
      {
        audit: 'recall',
        tenantId,
        userId: request.userId,
        ...(request.sessionId !== undefined ? { sessionId: request.sessionId } : {}),
        ...(request.asOf !== undefined ? { asOf: request.asOf } : {}),
        query: maskPii(request.query).text,
        facts: returned.facts.map((fact) => fact.memoryId),
        memories: returned.memories.map(({ memory, score, components }) => ({ id: memory.memoryId, kind: memory.kind, score, components })),
      },
      'recall audit',
    );
  }
}

/** `*`, or the listed tenant ids (empty: auditing off). */
export function parseAuditTenants(value: string): '*' | string[] {
  const tenants = value
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean);
  return tenants.includes('*') ? '*' : tenants;
}
