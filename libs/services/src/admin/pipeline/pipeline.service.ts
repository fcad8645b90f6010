import { Inject, Injectable } from '@nestjs/common';
import { ALL_TOPICS } from '@engram/contracts';
import { EventLog, FactStoreVersions, lag, ProjectionVersions, SearchIndexVersions, SessionStoreVersions } from '@engram/ports';
import { EventPublisher } from '../../pipeline/event-publisher';
import { deadLetterTopic } from '../../transport/dead-letter';
import { readDeadLetters } from '../../transport/dead-letters';
import { LETTERS_SHOWN, RAW_SHOWN, type DeadLettersResponse, type ProjectionVersionsResponse } from './pipeline.dto';

/** What the inspector's pipeline view shows beside /v1/pipeline/status: the deployment's projection versions and dead letters. */
@Injectable()
export class AdminPipelineService {
  private readonly versioned: readonly ProjectionVersions<unknown>[];

  constructor(
    private readonly publisher: EventPublisher,
    @Inject(EventLog) private readonly eventLog: EventLog,
    @Inject(FactStoreVersions) facts: ProjectionVersions<unknown>,
    @Inject(SessionStoreVersions) sessions: ProjectionVersions<unknown>,
    @Inject(SearchIndexVersions) search: ProjectionVersions<unknown>,
  ) {
    this.versioned = [facts, sessions, search];
  }

  async projections(): Promise<ProjectionVersionsResponse> {
    const projections = await Promise.all(
      this.versioned.map(async (v) => ({ projection: v.projection, active: await v.active(), versions: await v.list() })),
    );
    return { projections };
  }

  /** Read like `engram dlq list`, with a throwaway consumer group (no stage moves). */
  async deadLetters(): Promise<DeadLettersResponse> {
    const topics = ALL_TOPICS.map((topic) => this.publisher.topic(topic));
    await this.eventLog.ensureTopics(topics.map(deadLetterTopic));
    return {
      topics: await Promise.all(
        topics.map(async (topic) => {
          const count = lag(await this.eventLog.endPosition(deadLetterTopic(topic)), {});
          const letters = count === 0 ? [] : (await readDeadLetters(this.eventLog, topic)).slice(-LETTERS_SHOWN).reverse();
          return { topic, count, letters: letters.map((letter) => ({ ...letter, raw: letter.raw.slice(0, RAW_SHOWN) })) };
        }),
      ),
    };
  }
}
