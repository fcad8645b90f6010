import { EngramEvent, parseEvent } from '@engram/contracts';
import type { ConsumedMessage } from '@engram/ports';

/**
 * The events of a replayed batch, validated and upcast (`parseEvent`), in log order. A shredded
 * message (its user's key is destroyed) is left out; an invalid one is left out and reported to
 * `onInvalid`, so each replay logs it in its own words, and the replay goes on.
 */
export function parseMessages(
  messages: readonly ConsumedMessage[],
  onInvalid?: (message: ConsumedMessage, error: unknown) => void,
): EngramEvent[] {
  const events: EngramEvent[] = [];
  for (const message of messages) {
    if (message.shredded) continue;
    try {
      events.push(parseEvent(message.value));
    } catch (error) {
      onInvalid?.(message, error);
    }
  }
  return events;
}
