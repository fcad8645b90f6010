import { INestApplication } from '@nestjs/common';
import { Command } from 'commander';
import { loadConfig } from '@engram/config';
import { ALL_TOPICS } from '@engram/contracts';
import { randomUUID } from 'node:crypto';
import { EventLog, lag } from '@engram/ports';
import { startApp } from '../bootstrap';
import { consumeUpTo } from '../replay/consume-up-to';
import { EventPublisher } from '../pipeline/event-publisher';
import { DeadLetter, deadLetterTopic, isDeadLetter } from '../transport/dead-letter';
import type { CliModules } from './cli-modules';

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
  await consumeUpTo(eventLog, dlq, 'engram-dlq-replay', await eventLog.endPosition(dlq), async (messages) => {
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

export function registerDlqCommands(program: Command, modules: CliModules): void {
  const dlq = program.command('dlq').description('inspect and re-drive dead-lettered events');
  const topics = () => ALL_TOPICS.join(', ');

  dlq
    .command('list')
    .description('print dead letters as JSON lines (default: every topic)')
    .option('--topic <topic>', `one of ${topics()}`)
    .action(async (options: { topic?: string }) => {
      await withLog(modules, async (app, prefix) => {
        for (const topic of options.topic ? [options.topic] : ALL_TOPICS) {
          for (const letter of await readDeadLetters(app.get(EventLog), `${prefix}${topic}`)) console.log(JSON.stringify(letter));
        }
      });
    });

  dlq
    .command('replay')
    .description('append dead-lettered events to their topic again (once per letter)')
    .option('--topic <topic>', `one of ${topics()}`)
    .option('--stage <group>', 'only letters of this stage (consumer group)')
    .action(async (options: { topic?: string; stage?: string }) => {
      await withLog(modules, async (app, prefix) => {
        let total = 0;
        for (const topic of options.topic ? [options.topic] : ALL_TOPICS) {
          total += await replayDeadLetters(app.get(EventLog), `${prefix}${topic}`, options.stage);
        }
        console.log(JSON.stringify({ replayed: total }));
      });
    });
}

async function withLog(modules: CliModules, work: (app: INestApplication, topicPrefix: string) => Promise<void>): Promise<void> {
  const config = loadConfig({ LOG_LEVEL: 'warn', ...process.env });
  const app = await startApp(modules.rebuild(config), { http: false, stages: false });
  try {
    await work(app, app.get(EventPublisher).topic(''));
  } finally {
    await app.close();
  }
}
