import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import { ArrayMaxSize, ArrayNotEmpty, IsArray, IsInt, IsString, Matches, Max, Min } from 'class-validator';
import { RecentTurnView } from '../http/turn-view.dto';
import { Absent, ID_MAX_LENGTH, ID_MESSAGE, ID_PATTERN, ID_PATTERN_SOURCE } from '../http/request-fields';

const USERS_PAGE_MAX = 200;

/** `GET /v1/users`: one page of the tenant's users, by id. */
export class ListUsersQuery {
  @ApiPropertyOptional({
    description: 'The `next` of the previous page: users after this id.',
    minLength: 1,
    maxLength: ID_MAX_LENGTH,
    pattern: ID_PATTERN_SOURCE,
  })
  @Absent()
  @IsString()
  @Matches(ID_PATTERN, { message: `after ${ID_MESSAGE}` })
  after?: string;

  @ApiPropertyOptional({ type: 'integer', default: 50, minimum: 1, maximum: USERS_PAGE_MAX })
  @Absent()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(USERS_PAGE_MAX)
  limit?: number;
}

export class UserListResponse {
  @ApiProperty({ type: [String], description: 'User ids holding at least one memory, sorted.' }) users!: string[];
  @ApiProperty({ type: String, nullable: true, description: 'Pass as `after` for the next page; null on the last page.' }) next!:
    string | null;
}

export const TURNS_BY_ID_MAX = 100;

/** `ids` as the OpenAPI document declares it. */
export const TURN_IDS_QUERY_SCHEMA = {
  type: 'array',
  minItems: 1,
  maxItems: TURNS_BY_ID_MAX,
  items: { type: 'string', minLength: 1, maxLength: ID_MAX_LENGTH, pattern: ID_PATTERN_SOURCE },
} as const;

/** `GET /v1/users/:userId/turns?ids=t1&ids=t4`: the turns a memory rests on (its `sourceTurnIds`). */
export class TurnsByIdQuery {
  // Documented on the route (ApiQuery): as a DTO property the generator drops the items' pattern.
  @Transform(({ value }) => (typeof value === 'string' ? [value] : value))
  @IsArray()
  @ArrayNotEmpty()
  @ArrayMaxSize(TURNS_BY_ID_MAX)
  @Matches(ID_PATTERN, { each: true, message: `ids ${ID_MESSAGE}` })
  ids!: string[];
}

export class TurnListResponse {
  @ApiProperty({
    type: [RecentTurnView],
    description: 'The turns found (masked as stored), oldest first; ids the user has no turn for are left out.',
  })
  turns!: RecentTurnView[];
}
