/** The server's error body: `{ statusCode, error, message[], fields[] }` (one shape for every 4xx/5xx). */
export interface EngramErrorBody {
  readonly statusCode?: number;
  readonly error?: string;
  readonly message?: string | string[];
  readonly fields?: string[];
}

/** An answer other than 2xx. `fields` name every offending field (`turns.1.text`, `memoryId`). */
export class EngramError extends Error {
  readonly status: number;
  readonly messages: readonly string[];
  readonly fields: readonly string[];
  /** Seconds the server asked to wait (429/503), when it said so. */
  readonly retryAfterSeconds?: number;

  constructor(status: number, body: EngramErrorBody | undefined, retryAfterSeconds?: number) {
    const messages = body?.message === undefined ? [] : Array.isArray(body.message) ? body.message.map(String) : [String(body.message)];
    super(`engram answered ${status}${body?.error ? ` ${body.error}` : ''}${messages.length ? `: ${messages.join('; ')}` : ''}`);
    this.name = new.target.name;
    this.status = status;
    this.messages = messages;
    this.fields = Array.isArray(body?.fields) ? body.fields.map(String) : [];
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/** 400: nothing was stored; `fields` says what to fix. */
export class EngramValidationError extends EngramError {}
/** 401/403: a missing or unknown API key (or admin key). */
export class EngramAuthError extends EngramError {}
/** 404: a memory the user does not hold (`fields: ['memoryId']`). */
export class EngramNotFoundError extends EngramError {}
/** 409: the command conflicts with the memory's state. */
export class EngramConflictError extends EngramError {}
/** 429/503 still answered after every retry. */
export class EngramUnavailableError extends EngramError {}

export function errorFor(status: number, body: EngramErrorBody | undefined, retryAfterSeconds?: number): EngramError {
  if (status === 400) return new EngramValidationError(status, body, retryAfterSeconds);
  if (status === 401 || status === 403) return new EngramAuthError(status, body, retryAfterSeconds);
  if (status === 404) return new EngramNotFoundError(status, body, retryAfterSeconds);
  if (status === 409) return new EngramConflictError(status, body, retryAfterSeconds);
  if (status === 429 || status === 503) return new EngramUnavailableError(status, body, retryAfterSeconds);
  return new EngramError(status, body, retryAfterSeconds);
}
