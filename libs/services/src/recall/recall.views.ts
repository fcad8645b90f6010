import type { MemoryRecord } from '@engram/contracts';
import type { RankedMemory, RecallAnswer } from '@engram/domain';
import type { SessionTurn } from '@engram/ports';
import type { FactView, MemoryView, RecallDegradation, RecallResponse, RecentTurnView } from './recall.dto';

/**
 * The pipeline's answer as `POST /v1/recall` returns it; `debug` adds score components, tokens per
 * zone and the budget's cut; `degraded` names what it was made without, when anything.
 */
export function recallResponse(
  answer: RecallAnswer<SessionTurn>,
  consistent: boolean,
  debug: boolean,
  degraded: readonly RecallDegradation[] = [],
): RecallResponse {
  return {
    facts: answer.facts.map(toFactView),
    procedures: answer.procedures.map(toFactView),
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
              facts: answer.cut.facts.map(toFactView),
              procedures: answer.cut.procedures.map(toFactView),
              memories: answer.cut.memories.map((m) => toMemoryView(m, true)),
              summaryLines: answer.cut.summaryLines,
              recent: answer.cut.recent.map(toRecentView),
            },
          },
        }
      : {}),
  };
}

function toFactView(memory: MemoryRecord): FactView {
  return {
    id: memory.memoryId,
    kind: memory.kind,
    attribute: memory.attribute,
    value: memory.value,
    content: memory.content,
    sourceTurnIds: [...memory.sourceTurnIds],
    updatedAt: memory.updatedAt,
    version: memory.version,
  };
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
