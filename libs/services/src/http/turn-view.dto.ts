import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

/** A turn as the API answers with it: recall's recent turns, and the turns of `GET /v1/users/:userId/turns`. */
export class RecentTurnView {
  @ApiProperty() turnId!: string;
  @ApiProperty({ description: 'The session it was said in: the previous one for turns carried over into a new session.' })
  sessionId!: string;
  @ApiProperty() role!: string;
  @ApiPropertyOptional() speaker?: string;
  @ApiProperty() text!: string;
  @ApiProperty({ format: 'date-time' }) occurredAt!: string;
}
