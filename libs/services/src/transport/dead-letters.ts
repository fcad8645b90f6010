/**
 * Reading and re-driving a `<topic>.dlq`: what `engram dlq list|replay` and the admin dead-letters
 * endpoint share.
 */
import { randomUUID } from 'node:crypto';
import { EventLog, lag } from '@engram/ports';
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

function parseRaw(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return raw; // re-driven as-is: the stage will dead-letter it again, visibly
  }
}
