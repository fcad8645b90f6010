import { INestApplication } from '@nestjs/common';
import { Command } from 'commander';
import { loadConfig } from '@engram/config';
import { ALL_TOPICS } from '@engram/contracts';
import { EventLog } from '@engram/ports';
import { startApp } from '@engram/services/bootstrap';
import { EventPublisher } from '@engram/services/pipeline/event-publisher';
import { readDeadLetters, replayDeadLetters } from '@engram/services/transport/dead-letters';
import type { CliModules } from './cli-modules';

/** `engram dlq list|replay`, on the log of the data directory (or the distributed log). */
export function registerDlqCommands(program: Command, modules: CliModules): void {
  const dlq = program.command('dlq').description('inspect and re-drive dead-lettered events');
  const topics = () => ALL_TOPICS.join(', ');

  dlq
    .command('list')
    .description('print dead letters as JSON lines (default: every topic)')
    .option('--topic <topic>', `one of ${topics()}`)
    .action(async (options: { topic?: string }) => {
      await withLog(modules, async (app, topicOf) => {
        for (const topic of options.topic ? [options.topic] : ALL_TOPICS) {
          for (const letter of await readDeadLetters(app.get(EventLog), topicOf(topic))) console.log(JSON.stringify(letter));
        }
      });
    });

  dlq
    .command('replay')
    .description('append dead-lettered events to their topic again (once per letter)')
    .option('--topic <topic>', `one of ${topics()}`)
    .option('--stage <group>', 'only letters of this stage (consumer group)')
    .action(async (options: { topic?: string; stage?: string }) => {
      await withLog(modules, async (app, topicOf) => {
        let total = 0;
        for (const topic of options.topic ? [options.topic] : ALL_TOPICS) {
          total += await replayDeadLetters(app.get(EventLog), topicOf(topic), options.stage);
        }
        console.log(JSON.stringify({ replayed: total }));
      });
    });
}

/** The app on the data directory's log, and a topic's name in this deployment (the publisher applies ENGRAM_TOPIC_PREFIX). */
async function withLog(
  modules: CliModules,
  work: (app: INestApplication, topicOf: (topic: string) => string) => Promise<void>,
): Promise<void> {
  const config = loadConfig({ LOG_LEVEL: 'warn', ...process.env });
  const app = await startApp(modules.rebuild(config), { http: false, stages: false });
  try {
    const publisher = app.get(EventPublisher);
    await work(app, (topic) => publisher.topic(topic));
  } finally {
    await app.close();
  }
}
