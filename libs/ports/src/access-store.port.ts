/** Access statistics projected from recall's access events: never written on the read path. */
export const AccessStore = Symbol('AccessStore');

export interface AccessStats {
  readonly memoryId: string;
  readonly hits: number;
  readonly lastAccessAt: string;
}

export interface AccessStore {
  /** Idempotent per event id: a replayed access event is counted once. */
  record(eventId: string, tenantId: string, userId: string, memoryIds: readonly string[], at: string): Promise<void>;
  get(tenantId: string, userId: string, memoryIds: readonly string[]): Promise<Map<string, AccessStats>>;
  deleteUser(tenantId: string, userId: string): Promise<void>;
  truncate(): Promise<void>;
}
