import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsString, Matches, Max, Min } from 'class-validator';
import { Absent, ID_MESSAGE, ID_PATTERN } from './turns.dto';

export const USERS_PAGE_MAX = 200;

/** `GET /v1/users`: one page of the tenant's users, by id. */
export class ListUsersQuery {
  @ApiPropertyOptional({ description: 'The `next` of the previous page: users after this id.' })
  @Absent() @IsString() @Matches(ID_PATTERN, { message: `after ${ID_MESSAGE}` })
  after?: string;

  @ApiPropertyOptional({ default: 50, minimum: 1, maximum: USERS_PAGE_MAX })
  @Absent() @Type(() => Number) @IsInt() @Min(1) @Max(USERS_PAGE_MAX)
  limit?: number;
}

export class UserListResponse {
  @ApiProperty({ type: [String], description: 'User ids holding at least one memory, sorted.' }) users!: string[];
  @ApiProperty({ type: String, nullable: true, description: 'Pass as `after` for the next page; null on the last page.' }) next!: string | null;
}
