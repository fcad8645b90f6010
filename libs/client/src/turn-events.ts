// The SDK ships these few pure engram files compiled with it (scripts/build-client.js), so what it
// writes to the log is what the gateway writes: the same masking, the same deterministic ids.
// Relative paths, not the @engram/* aliases, which would resolve to whole libraries.
import { partitionKey } from '../../contracts/src/envelope';
import { deterministicId } from '../../contracts/src/ids';
import { TURN_ROLES, type TurnRole } from '../../contracts/src/memory';
import { maskPii } from '../../domain/src/privacy/pii-masking';
import { EngramValidationError } from './errors';
import type { TurnInput } from './engram-client';

/** `TurnRecorded`, schema version 2, as engram's gateway writes it to `memory.turns.v1` (docs/events/TurnRecorded.schema.json). */
export interface TurnRecordedEvent {
  readonly eventId: string;
  readonly type: 'TurnRecorded';
  readonly schemaVersion: 2;
  readonly tenantId: string;
  readonly userId: string;
  readonly occurredAt: string;
  readonly recordedAt: string;
  readonly causationId: null;
  readonly correlationId: string;
  readonly payload: {
    readonly sessionId: string;
    readonly turnId: string;
    readonly role: TurnRole;
    readonly speaker?: string;
    readonly text: string;
    readonly previousText?: string;
    readonly channel?: string;
  };
}

export interface TurnBatch {
  readonly tenantId: string;
  readonly userId: string;
  readonly sessionId: string;
  readonly turns: readonly TurnInput[];
  /** When engram learned them: now, when the producer sends. */
  readonly recordedAt: Date;
}

// The gateway's rules (POST /v1/turns), so a turn the HTTP API would refuse is refused here too;
// a unit spec holds the two to the same answers.
// Control and invisible characters are what these patterns refuse, so they name them.
// eslint-disable-next-line no-control-regex
const ID_PATTERN = /^[^\s\u0000-\u001f\u007f-\u009f\u00ad\u200b-\u200f\u2060-\u2064\ufeff\ud800-\udfff]{1,128}$/u;
const LONE_SURROGATE = /[\ud800-\udfff]/u;
// eslint-disable-next-line no-misleading-character-class -- a combining mark alone is invisible, as listed
const VISIBLE = /[^\s\u00ad\u034f\u180e\u200b-\u200f\u2060-\u2064\ufeff]/u;
const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2})$/i;
const CHANNEL = /^[a-z0-9_-]{1,32}$/;
const MAX_TURNS = 10_000;
const MAX_SPEAKER = 128;
/** The event schema's bound on a masked text (UTF-16 units): a longer turn would be dead-lettered by the filter. */
export const MAX_EVENT_TEXT = 32_000;

/** Thrown before anything is sent: `fields` name every offending field (`turns.1.text`), as the HTTP API's 400 does. */
export class TurnValidationError extends EngramValidationError {
  constructor(messages: readonly string[], fields: readonly string[]) {
    super(400, { error: 'Bad Request', message: [...messages], fields: [...fields] });
    this.message = `invalid turns: ${messages.join('; ')}`;
  }
}

/**
 * The `TurnRecorded` events for a batch of turns, exactly as the gateway builds them: PII masked
 * in `text`, `speaker` and `previousText`; `eventId` = deterministicId('turn', tenant, user, turnId),
 * so a turn sent twice (by the producer, by HTTP, or both) is one turn downstream; a turnId
 * repeated within the batch counted once. Throws TurnValidationError naming every bad field.
 */
export function turnRecordedEvents(batch: TurnBatch): TurnRecordedEvent[] {
  const problems = new Problems();
  problems.id('tenantId', batch.tenantId);
  problems.id('userId', batch.userId);
  problems.id('sessionId', batch.sessionId);
  if (!Array.isArray(batch.turns) || batch.turns.length === 0 || batch.turns.length > MAX_TURNS) {
    problems.add('turns', `turns must be an array of 1 to ${MAX_TURNS} turns`);
  } else {
    batch.turns.forEach((turn, i) => checkTurn(problems, `turns.${i}`, turn));
  }
  problems.throwIfAny();

  const recordedAt = batch.recordedAt.toISOString();
  const seen = new Set<string>();
  const events: TurnRecordedEvent[] = [];
  let previous: { text: string; by: string } | undefined;
  batch.turns.forEach((turn, i) => {
    const turnId = turn.turnId ?? globalThis.crypto.randomUUID();
    if (seen.has(turnId)) return;
    seen.add(turnId);
    const text = maskPii(turn.text).text;
    if (text.length > MAX_EVENT_TEXT) problems.add(`turns.${i}.text`, tooLong(`turns.${i}.text`));
    // The turn a reply answers: the other party's turn just before it (the gateway's rule).
    const by = `${turn.role}\u0000${turn.speaker ?? ''}`;
    const previousText = previous && previous.by !== by ? previous.text : undefined;
    const eventId = deterministicId('turn', batch.tenantId, batch.userId, turnId);
    events.push({
      eventId,
      type: 'TurnRecorded',
      schemaVersion: 2,
      tenantId: batch.tenantId,
      userId: batch.userId,
      occurredAt: new Date(turn.occurredAt ?? recordedAt).toISOString(),
      recordedAt,
      causationId: null,
      correlationId: eventId,
      payload: {
        sessionId: batch.sessionId,
        turnId,
        role: turn.role,
        ...(turn.speaker !== undefined ? { speaker: maskPii(turn.speaker).text } : {}),
        text,
        ...(previousText ? { previousText } : {}),
        ...(turn.channel !== undefined ? { channel: turn.channel } : {}),
      },
    });
    previous = { text, by };
  });
  problems.throwIfAny();
  return events;
}

/** Throws TurnValidationError unless `tenantId` is a valid id. */
export function checkTenantId(tenantId: unknown): void {
  const problems = new Problems();
  problems.id('tenantId', tenantId);
  problems.throwIfAny();
}

/** The Kafka key of a user's events: `tenantId:userId`, one user's turns in order on one partition. */
export function turnKey(tenantId: string, userId: string): string {
  return partitionKey(tenantId, userId);
}

function checkTurn(problems: Problems, at: string, turn: TurnInput): void {
  if (typeof turn !== 'object' || turn === null) return problems.add(at, `${at} must be an object`);
  if (turn.turnId !== undefined) problems.id(`${at}.turnId`, turn.turnId);
  if (!(TURN_ROLES as readonly unknown[]).includes(turn.role))
    problems.add(`${at}.role`, `${at}.role must be one of ${TURN_ROLES.join(', ')}`);
  if (turn.speaker !== undefined) {
    problems.text(`${at}.speaker`, turn.speaker);
    if (typeof turn.speaker === 'string' && turn.speaker.length > MAX_SPEAKER)
      problems.add(`${at}.speaker`, `${at}.speaker must be at most ${MAX_SPEAKER} characters`);
  }
  problems.text(`${at}.text`, turn.text);
  // Bounded before masking too, which costs time in proportion to the text.
  if (typeof turn.text === 'string' && turn.text.length > MAX_EVENT_TEXT) problems.add(`${at}.text`, tooLong(`${at}.text`));
  if (turn.channel !== undefined && (typeof turn.channel !== 'string' || !CHANNEL.test(turn.channel))) {
    problems.add(`${at}.channel`, `${at}.channel must be a lower-case slug of 1-32 letters, digits, _ or -`);
  }
  if (turn.occurredAt !== undefined && !isInstant(turn.occurredAt)) {
    problems.add(`${at}.occurredAt`, `${at}.occurredAt must be an ISO-8601 instant with a time zone, e.g. 2026-11-30T09:00:00Z`);
  }
}

function tooLong(field: string): string {
  return `${field} must be at most ${MAX_EVENT_TEXT} characters (UTF-16 units), before and after masking`;
}

class Problems {
  private readonly messages: string[] = [];
  private readonly fields: string[] = [];

  add(field: string, message: string): void {
    this.messages.push(message);
    if (!this.fields.includes(field)) this.fields.push(field);
  }

  id(field: string, value: unknown): void {
    if (typeof value !== 'string' || !ID_PATTERN.test(value)) {
      this.add(field, `${field} must be 1-128 characters without whitespace, control, invisible characters or lone surrogates`);
    }
  }

  text(field: string, value: unknown): void {
    if (typeof value !== 'string') this.add(field, `${field} must be a string`);
    else if (LONE_SURROGATE.test(value)) this.add(field, `${field} must be well-formed Unicode (no lone surrogates)`);
    else if (!VISIBLE.test(value)) this.add(field, `${field} must contain visible characters, not only whitespace or invisible ones`);
  }

  throwIfAny(): void {
    if (this.messages.length > 0) throw new TurnValidationError(this.messages, this.fields);
  }
}

/** RFC 3339 with a zone, and a real calendar date (not 2026-02-30), as the gateway's IsInstant. */
function isInstant(value: unknown): boolean {
  if (typeof value !== 'string' || !INSTANT.test(value)) return false;
  const time = Date.parse(value);
  if (Number.isNaN(time)) return false;
  const [, y, m, d] = /^(\d{4})-(\d{2})-(\d{2})/.exec(value)!;
  const zone = /(Z|[+-]\d{2}:\d{2})$/i.exec(value)![1];
  const offsetMinutes =
    zone.toUpperCase() === 'Z' ? 0 : (zone[0] === '-' ? -1 : 1) * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(4, 6)));
  const local = new Date(time + offsetMinutes * 60_000);
  return local.getUTCFullYear() === Number(y) && local.getUTCMonth() + 1 === Number(m) && local.getUTCDate() === Number(d);
}
