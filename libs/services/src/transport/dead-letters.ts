/**
 * Reading and re-driving a `<topic>.dlq`: what `engram dlq list|replay` and the admin dead-letters
 * endpoint share.
 */
import { randomUUID } from 'node:crypto';
import { EventLog, lag, type LogMessage, type LogPosition, reached } from '@engram/ports';
import { consumeUpTo } from './consume-up-to';
import { DeadLetter, deadLetterTopic, isDeadLetter } from './dead-letter';

/**
 * Reads a whole dead-letter topic once, with a throwaway group, so listing never moves anyone's
 * position; the group is deleted afterwards (the inspector lists dead letters on every refresh: on
 * Kafka each listing would otherwise leave a consumer group behind).
 */
export async function readDeadLetters(eventLog: EventLog, topic: string): Promise<DeadLetter[]> {
  const dlq = deadLetterTopic(topic);
  await eventLog.ensureTopics([dlq]);
  const end = await eventLog.endPosition(dlq);
  if (lag(end, {}) === 0) return [];
  const letters: DeadLetter[] = [];
  const group = `engram-dlq-list-${randomUUID()}`;
  try {
    await consumeUpTo(eventLog, dlq, group, end, async (messages) => {
      for (const message of messages) if (isDeadLetter(message.value)) letters.push(message.value);
    });
  } finally {
    await eventLog.deleteGroup(dlq, group);
  }
  return letters;
}

/** The group `engram dlq replay` re-drives with: its position is how far the letters have been re-driven. */
const REPLAY_GROUP = 'engram-dlq-replay';

/**
 * Letters of a topic that `engram dlq replay` has not gone past: what status and readiness report
 * as dead letters, beside `pending`. (A replay narrowed to one stage goes past the others' letters too.)
 */
export async function waitingDeadLetters(eventLog: EventLog, topic: string): Promise<number> {
  const dlq = deadLetterTopic(topic);
  return lag(await eventLog.endPosition(dlq), await eventLog.committedPosition(dlq, REPLAY_GROUP));
}

/**
 * Re-drives dead letters: each original message is appended again to its
 * topic (every consumer of that topic sees it again; all of them are
 * idempotent). The `engram-dlq-replay` group remembers what was re-driven,
 * so running it twice does not re-drive a letter twice.
 */
export async function replayDeadLetters(eventLog: EventLog, topic: string, stage?: string): Promise<number> {
  const dlq = deadLetterTopic(topic);
  await eventLog.ensureTopics([dlq]);
  let replayed = 0;
  await consumeUpTo(eventLog, dlq, REPLAY_GROUP, await eventLog.endPosition(dlq), async (messages) => {
    const again = messages
      .map((m) => m.value)
      .filter(isDeadLetter)
      .filter((letter) => stage === undefined || letter.stage === stage)
      .map((letter) => ({ key: letter.key, value: parseRaw(letter.raw) }));
    if (again.length > 0) await eventLog.append(topic, again);
    replayed += again.length;
  });
  return replayed;
}

/** What one automatic re-drive of a topic's letters did. */
export interface Redriven {
  /** Letters whose events were appended to their topic again. */
  readonly redriven: number;
  /** Letters left for an operator (`engram dlq replay`), still counted in `deadLetters`. */
  readonly held: number;
}

/**
 * The automatic re-drive: the letters `engram dlq replay` has not gone past, each partition's in
 * order, re-driven up to the first one that must wait for an operator — an invalid event (it fails
 * again whatever happens), or an event that was re-driven once already and failed again (so a
 * poison event never goes round for ever). The replay group then stands past what was re-driven, so
 * `deadLetters` counts only what is held. Letters of every stage of the topic are re-driven: the
 * event goes to the topic, which every consumer of it reads again (idempotently).
 *
 * At least once: a process stopped between the append and the move of the group re-drives the same
 * letters again next time, which the projections absorb like any event delivered twice.
 */
export async function redriveDeadLetters(eventLog: EventLog, topic: string): Promise<Redriven> {
  const dlq = deadLetterTopic(topic);
  await eventLog.ensureTopics([dlq]);
  const end = await eventLog.endPosition(dlq);
  const from = await eventLog.committedPosition(dlq, REPLAY_GROUP);
  if (reached(from, end)) return { redriven: 0, held: 0 };
  const stored = await readStoredLetters(eventLog, dlq, end);
  const behind = (s: StoredLetter) => s.offset < (from[s.partition] ?? 0);
  // Events already re-driven: the failed letters the replay group has gone past.
  const redrivenBefore = new Set(stored.filter((s) => behind(s) && s.letter.reason === 'failed').map((s) => eventIdOf(s.letter)));
  const next: Record<number, number> = { ...from };
  const again: LogMessage[] = [];
  const blocked = new Set<number>();
  let held = 0;
  for (const s of stored) {
    if (behind(s)) continue;
    const eventId = eventIdOf(s.letter);
    if (blocked.has(s.partition) || s.letter.reason !== 'failed' || eventId === undefined || redrivenBefore.has(eventId)) {
      blocked.add(s.partition);
      held++;
      continue;
    }
    redrivenBefore.add(eventId);
    again.push({ key: s.letter.key, value: parseRaw(s.letter.raw) });
    next[s.partition] = s.offset + 1;
  }
  if (again.length > 0) {
    await eventLog.append(topic, again);
    await eventLog.resetGroup(dlq, REPLAY_GROUP, { to: 'position', position: next });
  }
  return { redriven: again.length, held };
}

interface StoredLetter {
  readonly partition: number;
  readonly offset: number;
  readonly letter: DeadLetter;
}

/** Every letter of a dead-letter topic below `end` with where it is stored, each partition's in order (a throwaway group, deleted after). */
async function readStoredLetters(eventLog: EventLog, dlq: string, end: LogPosition): Promise<StoredLetter[]> {
  const stored: StoredLetter[] = [];
  const group = `engram-dlq-list-${randomUUID()}`;
  try {
    await consumeUpTo(eventLog, dlq, group, end, async (messages) => {
      for (const message of messages) {
        if (isDeadLetter(message.value)) stored.push({ partition: message.partition, offset: message.offset, letter: message.value });
      }
    });
  } finally {
    await eventLog.deleteGroup(dlq, group);
  }
  return stored.sort((a, b) => a.partition - b.partition || a.offset - b.offset);
}

/** The id of a letter's event (in clear in a sealed event too), if its bytes are an event's. */
function eventIdOf(letter: DeadLetter): string | undefined {
  const value = parseRaw(letter.raw) as { eventId?: unknown } | null;
  return typeof value === 'object' && value !== null && typeof value.eventId === 'string' ? value.eventId : undefined;
}

function parseRaw(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return raw; // re-driven as-is: the stage will dead-letter it again, visibly
  }
}
