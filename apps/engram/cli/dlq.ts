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
