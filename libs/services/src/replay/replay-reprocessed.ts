import { EngramEvent } from '@engram/contracts';
import { EventLog, ReprocessLineage } from '@engram/ports';
import { consumeUpTo } from '../transport/consume-up-to';
import { fromPosition, reprocessedSources } from './lineage';
import { parseMessages } from './parse-messages';

/**
 * Replays a reprocessed version: the run's topic in full, then memory.facts.v1
 * from the switch position on (the live decisions made against the new version).
 * `group` is reset to the beginning of both topics.
 */
export async function replayReprocessed(
  eventLog: EventLog,
  lineage: ReprocessLineage,
  factsTopic: string,
  group: string,
  apply: (events: readonly EngramEvent[]) => Promise<void>,
  options: { onBatch?: (messages: number) => void; liveOnly?: boolean } = {},
): Promise<number> {
  let total = 0;
  for (const { topic, skipBelow } of reprocessedSources(lineage, factsTopic, options)) {
    await eventLog.ensureTopics([topic]);
    await eventLog.resetGroup(topic, group, { to: 'beginning' });
    const end = await eventLog.endPosition(topic);
    await consumeUpTo(
      eventLog,
      topic,
      group,
      end,
      async (messages) => {
        const wanted = fromPosition(messages, skipBelow);
        await apply(parseMessages(wanted));
        total += wanted.length;
        options.onBatch?.(messages.length);
      },
      { maxBatchSize: 2000 },
    );
  }
  return total;
}
