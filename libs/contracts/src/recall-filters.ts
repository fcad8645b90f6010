import { MEMORY_KINDS, type MemoryKind } from './memory';

/**
 * What a filter field holds, and so how every surface validates it: a list of memory kinds, a list
 * of ids (the id rule of `POST /v1/turns`), or an instant (RFC 3339 with a time zone).
 */
export interface RecallFilterShapes {
  readonly kinds: MemoryKind[];
  readonly ids: string[];
  readonly instant: string;
}

export interface RecallFilterDeclaration {
  readonly shape: keyof RecallFilterShapes;
  /** A list's longest length (a list of kinds: every kind once). */
  readonly maxItems?: number;
  /** What one value is called on a command line (`--sessions <sessionId...>`). */
  readonly placeholder: string;
  /** One line: the CLI's option help, the MCP tool's argument. */
  readonly summary: string;
  /** The OpenAPI document's description of the request field. */
  readonly description: string;
}

/**
 * The fields of `POST /v1/recall` that narrow what is recalled (facts, procedures and memories
 * alike), declared once. Every surface derives from this list or is checked against it by
 * `test/surfaces/declared-lists.unit.spec.ts`, which names the surface that drifted: the HTTP DTO
 * (its class-validator rules and OpenAPI schema come from `RecallFilterProperty`), the SDK (typed
 * from the OpenAPI document), `engram recall`'s options, the MCP recall tool's input schema, and
 * the inspector's recall form. What a field means for the stores is `recallFilterOf`
 * (`libs/services/src/recall/recall-filter-of.ts`), which the compiler holds to this list.
 */
export const RECALL_FILTER_FIELDS = {
  kinds: {
    shape: 'kinds',
    maxItems: MEMORY_KINDS.length,
    placeholder: 'kind',
    summary: 'only memories of these kinds',
    description: 'Only memories (and pinned facts) of these kinds, e.g. ["procedure", "preference"].',
  },
  sessions: {
    shape: 'ids',
    maxItems: 100,
    placeholder: 'sessionId',
    summary: 'only memories said in these sessions',
    description:
      'Only memories said in these sessions (one of their source turns is). `sessionId` is the current session, for the recent turns; it does not narrow memories.',
  },
  from: {
    shape: 'instant',
    placeholder: 'instant',
    summary: 'only memories said at or after this ISO instant',
    description: 'ISO instant: only memories said at or after it (world time: when the value was first or last said).',
  },
  to: {
    shape: 'instant',
    placeholder: 'instant',
    summary: 'only memories said before this ISO instant',
    description: 'ISO instant: only memories said before it (world time). Must be after `from`.',
  },
} as const satisfies Readonly<Record<string, RecallFilterDeclaration>>;

export type RecallFilterField = keyof typeof RECALL_FILTER_FIELDS;

/** The filter fields in their declared order. */
export const RECALL_FILTER_FIELD_NAMES = Object.keys(RECALL_FILTER_FIELDS) as RecallFilterField[];

/** The filter fields of a recall request, each of its declared shape. */
export type RecallFilterValues = {
  -readonly [F in RecallFilterField]?: RecallFilterShapes[(typeof RECALL_FILTER_FIELDS)[F]['shape']];
};

/** The declaration of one field, widened (for code that handles every field alike). */
export function recallFilterDeclaration(field: RecallFilterField): RecallFilterDeclaration {
  return RECALL_FILTER_FIELDS[field];
}
