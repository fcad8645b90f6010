import { RECALL_FILTER_FIELD_NAMES, type RecallFilterField, type RecallFilterValues } from '@engram/contracts';
import type { RecallFilter } from '@engram/domain';

/** What reading a filter field may need of the stores: the turn ids of sessions. */
export interface RecallFilterReads {
  turnIdsOf(sessions: readonly string[]): Promise<readonly string[]>;
}

type Derivation<F extends RecallFilterField> = (
  value: NonNullable<RecallFilterValues[F]>,
  reads: RecallFilterReads,
) => Partial<RecallFilter> | Promise<Partial<RecallFilter>>;

/**
 * What each declared filter field (`RECALL_FILTER_FIELDS`) narrows in the domain's `RecallFilter`.
 * Keyed by the declaration, so a field declared in the contracts and not read here is a compile error.
 */
const DERIVATIONS: { readonly [F in RecallFilterField]: Derivation<F> } = {
  kinds: (kinds) => ({ kinds }),
  // A session narrows to the memories said in it: those holding one of its turns.
  sessions: async (sessions, reads) => ({ turnIds: new Set(await reads.turnIdsOf(sessions)) }),
  from: (from) => ({ from: new Date(from) }),
  to: (to) => ({ to: new Date(to) }),
};

/** The request's filter fields as a `RecallFilter`; null when it narrows nothing. */
export async function recallFilterOf(request: RecallFilterValues, reads: RecallFilterReads): Promise<RecallFilter | null> {
  const given = RECALL_FILTER_FIELD_NAMES.filter((field) => request[field]);
  if (given.length === 0) return null;
  let filter: RecallFilter = {};
  for (const field of given) filter = { ...filter, ...(await derive(field, request, reads)) };
  return filter;
}

function derive<F extends RecallFilterField>(field: F, request: RecallFilterValues, reads: RecallFilterReads) {
  return DERIVATIONS[field](request[field]!, reads);
}
