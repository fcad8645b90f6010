/**
 * The event log as stored: the adapter (embedded) or the group-scoped Kafka log, with no sealing
 * and no topic versions — topic names are the stored ones (`memory.turns.v1.log2`) and values
 * the stored bytes. Only `engram encrypt-log` uses it, to copy a version of the log into the next;
 * everything else goes through `EventLog`.
 */
export const STORED_EVENT_LOG = Symbol('StoredEventLog');
