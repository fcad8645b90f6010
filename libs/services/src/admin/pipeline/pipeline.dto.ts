import { ApiProperty } from '@nestjs/swagger';
import { VERSIONED_PROJECTIONS, type VersionedProjection } from '@engram/ports';
import type { DeadLetter } from '../../transport/dead-letter';

/** The letters shown per topic: the newest. `engram dlq list` prints them all. */
export const LETTERS_SHOWN = 20;
/** A letter's original bytes are cut to this many characters in the listing. */
export const RAW_SHOWN = 500;

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
