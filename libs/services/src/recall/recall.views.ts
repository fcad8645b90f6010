import type { MemoryRecord } from '@engram/contracts';
import type { RankedMemory, RecallAnswer } from '@engram/domain';
import type { SessionTurn } from '@engram/ports';
import type { FactView, MemoryView, RecallDegradation, RecallResponse, RecentTurnView } from './recall.dto';

/**
 * The pipeline's answer as `POST /v1/recall` returns it; `debug` adds score components, the conflicts
 * of what is returned (a value contradicting an earlier one, unconfirmed), tokens per zone and the
 * budget's cut; `degraded` names what it was made without, when anything.
 */
export function recallResponse(
  answer: RecallAnswer<SessionTurn>,
  consistent: boolean,
  debug: boolean,
  degraded: readonly RecallDegradation[] = [],
): RecallResponse {
  return {
    facts: answer.facts.map((f) => toFactView(f, debug)),
    procedures: answer.procedures.map((p) => toFactView(p, debug)),
    memories: answer.memories.map((m) => toMemoryView(m, debug)),
    summary: answer.summary ? { ...answer.summary } : null,
    recent: answer.recent.map(toRecentView),
    context: answer.context,
    tokens: answer.tokens,
    consistent,
    ...(degraded.length > 0 ? { degraded: [...degraded] } : {}),
    ...(debug
      ? {
          debug: {
            zones: { ...answer.zones },
            cut: {
              facts: answer.cut.facts.map((f) => toFactView(f, true)),
              procedures: answer.cut.procedures.map((p) => toFactView(p, true)),
              memories: answer.cut.memories.map((m) => toMemoryView(m, true)),
              summaryLines: answer.cut.summaryLines,
              recent: answer.cut.recent.map(toRecentView),
            },
          },
        }
      : {}),
  };
}

function toFactView(memory: MemoryRecord, debug: boolean): FactView {
  return {
    id: memory.memoryId,
    kind: memory.kind,
    attribute: memory.attribute,
    value: memory.value,
    content: memory.content,
    sourceTurnIds: [...memory.sourceTurnIds],
    updatedAt: memory.updatedAt,
    version: memory.version,
    ...conflictOf(memory, debug),
  };
}

/** With `debug`: what the memory's current value contradicts, while the user has not confirmed it. */
function conflictOf(memory: MemoryRecord, debug: boolean): Pick<FactView, 'conflict'> {
  return debug && memory.conflict ? { conflict: { ...memory.conflict } } : {};
}

function toMemoryView({ memory, score, components }: RankedMemory, debug: boolean): MemoryView {
  return {
    id: memory.memoryId,
    kind: memory.kind,
    content: memory.content,
    score,
    sourceTurnIds: [...memory.sourceTurnIds],
    ...(memory.sources ? { sources: [...memory.sources] } : {}), // insights: what they are derived from
    createdAt: memory.createdAt,
    updatedAt: memory.updatedAt,
    version: memory.version,
    ...(debug ? { components: { ...components } } : {}),
    ...conflictOf(memory, debug),
  };
}

function toRecentView(turn: SessionTurn): RecentTurnView {
  return {
    turnId: turn.turnId,
    sessionId: turn.sessionId,
    role: turn.role,
    ...(turn.speaker !== undefined ? { speaker: turn.speaker } : {}),
    text: turn.text,
    occurredAt: turn.occurredAt,
  };
}
