import { BadRequestException } from '@nestjs/common';
import { ID_MESSAGE, ID_PATTERN } from '../http/request-fields';

/** A `:userId` path parameter as the ids of turns are checked; a 400 naming `userId` otherwise. */
export function checkUserId(userId: string): string {
  if (!ID_PATTERN.test(userId)) throw new BadRequestException({ message: [`userId ${ID_MESSAGE}`], fields: ['userId'] });
  return userId;
}
