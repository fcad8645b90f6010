import { Controller, Get, Inject, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';
import { ApiErrors } from '../../http/api-contract';
import { ALL_TOPICS } from '@engram/contracts';
import {
  EventLog,
  FactStoreVersions,
  lag,
  ProjectionVersions,
  SearchIndexVersions,
  SessionStoreVersions,
  VERSIONED_PROJECTIONS,
  type VersionedProjection,
} from '@engram/ports';
import { readDeadLetters } from '../../transport/dead-letters';
import { EventPublisher } from '../../pipeline/event-publisher';
import { deadLetterTopic, type DeadLetter } from '../../transport/dead-letter';
import { AdminGuard } from '../rebuilds/rebuilds.controller';
import { Public } from '../../http/tenancy';

/** The letters shown per topic: the newest. `engram dlq list` prints them all. */
const LETTERS_SHOWN = 20;
/** A letter's original bytes are cut to this many characters in the listing. */
const RAW_SHOWN = 500;

export class ProjectionVersionView {
  @ApiProperty({ enum: VERSIONED_PROJECTIONS }) projection!: VersionedProjection;
  @ApiProperty({ description: 'The version readers and live writers use.' }) active!: number;
  @ApiProperty({
    type: [Number],
    description: 'Versions whose data exists, ascending (an old one is kept for the grace period after a swap).',
  })
  versions!: number[];
}

export class ProjectionVersionsResponse {
  @ApiProperty({ type: [ProjectionVersionView] }) projections!: ProjectionVersionView[];
}

export class DeadLetterView {
  @ApiProperty() topic!: string;
  @ApiProperty() partition!: number;
  @ApiProperty() offset!: number;
  @ApiProperty() key!: string;
  @ApiProperty({ description: 'The consumer group (stage) that could not handle it.' }) stage!: string;
  @ApiProperty({ enum: ['invalid', 'failed'] }) reason!: DeadLetter['reason'];
  @ApiProperty() error!: string;
  @ApiProperty() attempts!: number;
  @ApiProperty() failedAt!: string;
  @ApiProperty({ description: `The original message, cut to ${RAW_SHOWN} characters.` }) raw!: string;
}

export class DeadLetterTopicView {
  @ApiProperty({ description: 'The topic whose messages were dead-lettered (deployment prefix included).' }) topic!: string;
  @ApiProperty({ description: 'Letters in `<topic>.dlq`, re-driven ones included.' }) count!: number;
  @ApiProperty({ type: [DeadLetterView], description: `The newest ${LETTERS_SHOWN}, newest first.` }) letters!: DeadLetterView[];
}

export class DeadLettersResponse {
  @ApiProperty({ type: [DeadLetterTopicView] }) topics!: DeadLetterTopicView[];
}

/** What the inspector's pipeline view shows beside /v1/pipeline/status: whole-deployment data, so admin only. */
@ApiTags('admin')
@ApiBearerAuth()
@Public() // not a tenant's call: AdminGuard decides
@UseGuards(AdminGuard)
@ApiErrors({
  401: 'ENGRAM_ADMIN_KEY is set and no bearer was sent.',
  403: 'Wrong admin key, or API keys are configured without ENGRAM_ADMIN_KEY.',
})
@Controller('v1/admin')
export class AdminPipelineController {
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

  @Get('projections')
  @ApiOperation({ summary: 'Each versioned projection: the version serving and the versions whose data exists.' })
  @ApiOkResponse({ type: ProjectionVersionsResponse })
  async projections(): Promise<ProjectionVersionsResponse> {
    const projections = await Promise.all(
      this.versioned.map(async (v) => ({ projection: v.projection, active: await v.active(), versions: await v.list() })),
    );
    return { projections };
  }

  @Get('dead-letters')
  @ApiOperation({
    summary: 'Dead letters per topic: how many, and the newest with stage, reason and error.',
    description: 'Read like `engram dlq list`, with a throwaway consumer group (no stage moves); re-drive them with `engram dlq replay`.',
  })
  @ApiOkResponse({ type: DeadLettersResponse })
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
