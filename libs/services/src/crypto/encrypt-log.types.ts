// What `engram encrypt-log` reports (its result, its progress) and the error it refuses with.

/** Refused, with what to do: another run holds the log, a server or consumer is running, the log cannot be copied as it is. */
export class EncryptLogConflict extends Error {}

export interface EncryptLogProgress {
  readonly phase: 'scanning' | 'sealing' | 'verifying' | 'switching' | 'deleting';
  readonly done: number;
  readonly total: number;
}

export interface EncryptLogOptions {
  readonly onProgress?: (progress: EncryptLogProgress) => void;
}

/** What became of one topic's messages. */
export interface EncryptedTopic {
  /** Without the version suffix (`memory.turns.v1`), deployment prefix included. */
  readonly topic: string;
  readonly messages: number;
  /** Plaintext payloads now sealed with their user's key. */
  readonly sealed: number;
  /** Plaintext payloads of users forgotten after them: only the envelope is kept, the payload sealed empty under a key that exists nowhere. */
  readonly shredded: number;
  /** Already sealed, or UserForgotten: copied as they were. */
  readonly unchanged: number;
  /** Not an event of any user (not JSON, no tenant or user): copied as they were, and reported. */
  readonly unattributed: number;
}

export interface EncryptLogResult {
  readonly runId: string;
  /** The log version read, and the one written (equal when there was nothing to seal). */
  readonly from: number;
  readonly to: number;
  /** False: every payload was sealed already, nothing was copied or switched. */
  readonly switched: boolean;
  /** True when this run finished one that was interrupted. */
  readonly resumed: boolean;
  readonly topics: readonly EncryptedTopic[];
  /** Topics of the old version left in place: not copied (they appeared after the run read the log) and not empty. */
  readonly leftOver: readonly string[];
}
