import { Inject, Injectable } from '@nestjs/common';
import { ALL_TOPICS, readPath, Topics } from '@engram/contracts';
import { EventLog, lag, LogPosition, reached } from '@engram/ports';
import { deadLetterTopic } from '../transport/dead-letter';
import { waitingDeadLetters } from '../transport/dead-letters';
import { EventPublisher } from './event-publisher';

/** The stages between a turn and recall, in order: the consumers of each topic that recall depends on (the topology's `readPath`). */
export const READ_PATH: readonly { topic: string; groups: readonly string[] }[] = readPath();

export interface StageLag {
  readonly topic: string;
  readonly group: string;
  readonly lag: number;
}

/** Dead letters of one topic that no replay has re-driven yet. */
export interface WaitingLetters {
  readonly topic: string;
  readonly count: number;
}

/**
 * Tells how far the read side is behind the log: `pending` for status, and a
 * bounded wait for `after` positions (read-your-writes).
 */
@Injectable()
export class PipelineProgress {
  private deadLetterTopics: Promise<void> | undefined;

  constructor(
    @Inject(EventLog) private readonly eventLog: EventLog,
    private readonly publisher: EventPublisher,
  ) {}

  async stages(): Promise<StageLag[]> {
    return (await this.readPath()).map(({ topic, group, partitions }) => ({
      topic,
      group,
      lag: partitions.reduce((sum, p) => sum + p.lag, 0),
    }));
  }

  /** Each read-path stage's lag per partition (partitions the topic has; 0 where caught up). */
  async partitionLags(): Promise<(StageLag & { readonly partition: number })[]> {
    return (await this.readPath()).flatMap(({ topic, group, partitions }) =>
      partitions.map(({ partition, lag }) => ({ topic, group, partition, lag })),
    );
  }

  private async readPath(): Promise<{ topic: string; group: string; partitions: { partition: number; lag: number }[] }[]> {
    const stages = [];
    for (const { topic, groups } of READ_PATH) {
      const name = this.publisher.topic(topic);
      const end = await this.eventLog.endPosition(name);
      for (const group of groups) {
        const committed = await this.eventLog.committedPosition(name, group);
        // As `lag` counts: every partition of the end position, behind by end minus committed.
        const partitions = Object.entries(end).map(([partition, offset]) => ({
          partition: Number(partition),
          lag: Math.max(0, offset - (committed[Number(partition)] ?? 0)),
        }));
        stages.push({ topic, group, partitions });
      }
    }
    return stages;
  }

  /** Events ever appended to the turns topic (turns and forget requests). */
  async ingested(): Promise<number> {
    return lag(await this.eventLog.endPosition(this.publisher.topic(Topics.turns)), {});
  }

  /** Events accepted but not yet visible to recall. */
  async pending(): Promise<number> {
    return (await this.stages()).reduce((sum, s) => sum + s.lag, 0);
  }

  /**
   * Per topic (as this deployment names it), the dead letters no `engram dlq replay` has re-driven:
   * events that recall will not see until someone does. Not part of `pending`, which `after` waits
   * for and backpressure counts: a letter waits for a person, not for a stage.
   */
  async deadLetters(): Promise<WaitingLetters[]> {
    const topics = ALL_TOPICS.map((topic) => this.publisher.topic(topic));
    // Created once (Kafka cannot read the end of a topic that does not exist); stages create theirs at start anyway.
    this.deadLetterTopics ??= this.eventLog.ensureTopics(topics.map(deadLetterTopic)).catch((error: unknown) => {
      this.deadLetterTopics = undefined; // asked again next time
      throw error;
    });
    await this.deadLetterTopics;
    return Promise.all(topics.map(async (topic) => ({ topic, count: await waitingDeadLetters(this.eventLog, topic) })));
  }

  /**
   * Waits until everything up to `position` on the turns topic has flowed through
   * every stage: each stage is waited for up to the end of its input as it was
   * when the previous stage had caught up. Returns false on timeout.
   */
  async waitFor(position: LogPosition, timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    let target = position;
    // Polls back off (5 ms doubling to 25 ms) and never sleep past the deadline: many waiters cost
    // little, and each ends on time.
    let pause = 5;
    for (const { topic, groups } of READ_PATH) {
      const name = this.publisher.topic(topic);
      if (topic !== Topics.turns) target = await this.eventLog.endPosition(name);
      for (const group of groups) {
        while (!reached(await this.eventLog.committedPosition(name, group), target)) {
          const left = deadline - Date.now();
          if (left <= 0) return false;
          await new Promise((resolve) => setTimeout(resolve, Math.min(pause, left)));
          pause = Math.min(pause * 2, 25);
        }
      }
    }
    return true;
  }

  /** Whether `position` is within what the turns topic holds: a position past its end was never handed out. */
  async issued(position: LogPosition): Promise<boolean> {
    return reached(await this.eventLog.endPosition(this.publisher.topic(Topics.turns)), position);
  }
}

/** Positions travel to clients as opaque tokens. */
export function encodePosition(position: LogPosition): string {
  return Buffer.from(JSON.stringify(position)).toString('base64url');
}

export function decodePosition(token: string): LogPosition | null {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return null;
    const entries = Object.entries(parsed);
    if (entries.length === 0) return null;
    if (!entries.every(([p, o]) => /^\d+$/.test(p) && Number.isSafeInteger(o) && (o as number) >= 0)) return null;
    return parsed as LogPosition;
  } catch {
    return null;
  }
}
