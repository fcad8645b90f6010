/** The shapes of the API responses the inspector reads (docs/openapi.json has them all). */

/**
 * libs/contracts' MEMORY_KINDS, copied because the inspector is a program of its own (browser
 * modules under src/); test/surfaces/declared-lists.unit.spec.ts fails when the two differ.
 */
export const MEMORY_KINDS = ['preference', 'fact', 'task', 'decision', 'profile', 'episode', 'insight', 'procedure', 'summary'] as const;
export type MemoryKind = (typeof MEMORY_KINDS)[number];

export interface UserList {
  users: string[];
  next: string | null;
}

export interface MemoryVersion {
  version: number;
  value: string;
  content: string;
  validFrom: string;
  validTo: string | null;
  recordedAt: string;
  supersededAt: string | null;
  sourceTurnIds: string[];
}

export interface MemoryRecord {
  memoryId: string;
  kind: MemoryKind;
  subject: string;
  attribute: string;
  value: string;
  content: string;
  pinned: boolean;
  status: 'active' | 'retracted' | 'archived' | 'expired';
  statusReason?: string;
  version: number;
  confidence: number;
  importance: number;
  mentionCount: number;
  sourceTurnIds: string[];
  speaker?: string;
  validFrom: string;
  validTo: string | null;
  createdAt: string;
  updatedAt: string;
  history: MemoryVersion[];
}

export interface RecallRequest {
  userId: string;
  query: string;
  k?: number;
  kinds?: MemoryKind[];
  sessionId?: string;
  asOf?: string;
  validAt?: string;
  budget?: { total?: number };
}

interface ScoreComponents {
  relevance: number;
  coverage?: number;
  decay: number;
  importance: number;
  confidence: number;
  ageDays: number;
  usage: number;
  prior: number;
  steering: number;
  session?: number;
  bm25Rank?: number;
  knnRank?: number;
}

export interface RecalledMemory {
  id: string;
  kind: MemoryKind;
  content: string;
  score: number;
  sourceTurnIds: string[];
  version: number;
  components?: ScoreComponents;
}

export interface RecalledFact {
  id: string;
  kind: MemoryKind;
  attribute: string;
  value: string;
  content: string;
  version: number;
}

export interface RecentTurn {
  turnId: string;
  sessionId: string;
  role: string;
  speaker?: string;
  text: string;
  occurredAt: string;
}

export const CONTEXT_ZONES = ['facts', 'procedures', 'memories', 'summary', 'recent'] as const;

export interface RecallResponse {
  facts: RecalledFact[];
  procedures: RecalledFact[];
  memories: RecalledMemory[];
  summary: { sessionId: string; previous: boolean; lines: string[] } | null;
  recent: RecentTurn[];
  context: string;
  tokens: number;
  consistent: boolean;
  debug?: {
    zones: Record<(typeof CONTEXT_ZONES)[number], number>;
    cut: { facts: RecalledFact[]; procedures: RecalledFact[]; memories: RecalledMemory[]; summaryLines: number; recent: RecentTurn[] };
  };
}

/** A tenant key sees its `pending` only; the admin key (or no keys configured) the whole deployment. */
export interface PipelineStatus {
  scope: 'tenant' | 'deployment';
  pending: number;
  ingested?: number;
  stages?: { topic: string; group: string; lag: number }[];
}

export interface ProjectionVersions {
  projections: { projection: string; active: number; versions: number[] }[];
}

export interface DeadLettersResponse {
  topics: {
    topic: string;
    count: number;
    letters: {
      topic: string;
      offset: number;
      stage: string;
      reason: string;
      error: string;
      attempts: number;
      failedAt: string;
      raw: string;
    }[];
  }[];
}

export interface RebuildList {
  rebuilds: {
    projection: string;
    version: number;
    previousVersion: number;
    phase: string;
    done: number;
    total: number;
    eventsPerSecond: number;
    etaSeconds: number | null;
    running: boolean;
    startedAt: string;
    error?: string;
  }[];
}
