import type { EngramEvent, UserForgotten } from '@engram/contracts';

/**
 * Applies a batch in log order, grouping consecutive ordinary events into one
 * bulk write and handling each UserForgotten on its own, so a user who is
 * forgotten and then comes back in the same batch ends up with only the
 * events after the forget.
 */
export async function applyInSegments<T extends EngramEvent>(
  events: readonly (T | UserForgotten)[],
  applyRun: (run: T[]) => Promise<void>,
  applyForget: (event: UserForgotten) => Promise<void>,
): Promise<void> {
  let run: T[] = [];
  for (const event of events) {
    if (event.type === 'UserForgotten') {
      if (run.length > 0) await applyRun(run);
      run = [];
      await applyForget(event);
    } else {
      run.push(event as T);
    }
  }
  if (run.length > 0) await applyRun(run);
}

/** The key `groupByUser` groups a user's events under. */
export const userKey = (tenantId: string, userId: string): string => `${tenantId}\u0000${userId}`;

/** The events of a batch, grouped by user (`userKey`), each group in log order. */
export function groupByUser<T extends EngramEvent>(events: readonly T[]): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const event of events) {
    const key = userKey(event.tenantId, event.userId);
    const group = groups.get(key);
    if (group) group.push(event);
    else groups.set(key, [event]);
  }
  return groups;
}

/** Passes a UserForgotten on to the next topic unchanged (same id: downstream stays idempotent). */
export function forward(event: UserForgotten): UserForgotten {
  return event;
}
