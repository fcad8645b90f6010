import { applyDecorators, type ArgumentMetadata, BadRequestException, Injectable, Param, type PipeTransform } from '@nestjs/common';
import { ApiBearerAuth, ApiParam, ApiProperty, ApiResponse } from '@nestjs/swagger';
import { ID_MAX_LENGTH, ID_MESSAGE, ID_PATTERN, ID_PATTERN_SOURCE } from './request-fields';

/** Every 4xx/5xx body (HttpExceptionFilter): what went wrong, and which fields. */
class ErrorResponse {
  @ApiProperty({ type: 'integer', example: 400 }) statusCode!: number;
  @ApiProperty({ example: 'Bad Request' }) error!: string;
  @ApiProperty({
    type: [String],
    example: ['userId must be 1-128 characters without whitespace, control, invisible characters or lone surrogates'],
  })
  message!: string[];
  @ApiProperty({
    type: [String],
    description: 'The fields at fault, by path (`turns.0.text`, `body`); empty when no field is.',
    example: ['userId'],
  })
  fields!: string[];
}

const GENERIC: Record<number, string> = {
  400: 'A field is missing or invalid (named in `fields`), or the body is not JSON; nothing was stored.',
  401: 'API keys are configured and no valid key was sent: Authorization: Bearer <key>.',
  403: 'The key does not open this endpoint.',
  404: 'No such resource.',
  409: 'The request conflicts with the current state.',
  413: 'The body is larger than ENGRAM_BODY_LIMIT_BYTES.',
  429: 'Too many requests; see Retry-After.',
  503: 'A store the answer needs is unavailable; retry later.',
};

type ErrorStatus = keyof typeof GENERIC;

/** Declares error answers with the one error body; a description replaces the generic one. */
export function ApiErrors(errors: Partial<Record<ErrorStatus, string | true>>): MethodDecorator & ClassDecorator {
  return applyDecorators(
    ...Object.entries(errors).map(([status, description]) =>
      ApiResponse({
        status: Number(status),
        type: ErrorResponse,
        description: description === true ? GENERIC[Number(status)] : description,
      }),
    ),
  );
}

/** A tenant's route: the bearer API key names the tenant (401 without one, once keys are configured). */
export function TenantRoute(): MethodDecorator & ClassDecorator {
  return applyDecorators(ApiBearerAuth(), ApiErrors({ 401: true }));
}

/**
 * A route that appends to the event log: 503 while `engram encrypt-log` copies the log into a new
 * topic version, or once it has switched and this process still writes the old one (restart it).
 */
export function LogWrite(): MethodDecorator {
  return ApiErrors({
    503: 'The event log cannot be written now: `engram encrypt-log` is moving it to a new topic version (Retry-After while it copies), or has moved it since this process started; nothing was stored.',
  });
}

/** A route with a JSON body: unparseable or invalid bodies are 400, oversized ones 413. */
export function JsonBody(description: string | true = true): MethodDecorator {
  return applyDecorators(ApiErrors({ 400: description, 413: true }));
}

/** An id in the path, as ID_PATTERN accepts it (anything else is a 400 naming it: declare it with ApiErrors). */
export function ApiIdParam(name: 'userId' | 'memoryId', description?: string): MethodDecorator {
  return applyDecorators(
    ApiParam({ name, description, schema: { type: 'string', minLength: 1, maxLength: ID_MAX_LENGTH, pattern: ID_PATTERN_SOURCE } }),
  );
}

/** An id in the path, checked as the ids of turns are; a 400 naming the parameter otherwise. */
@Injectable()
class PathIdPipe implements PipeTransform<string, string> {
  transform(value: string, metadata: ArgumentMetadata): string {
    const field = metadata.data ?? 'id';
    if (!ID_PATTERN.test(value)) throw new BadRequestException({ message: [`${field} ${ID_MESSAGE}`], fields: [field] });
    return value;
  }
}

/** `@PathId('userId') userId: string`: the path parameter, validated (ApiIdParam documents it). */
export const PathId = (name: 'userId' | 'memoryId'): ParameterDecorator => Param(name, PathIdPipe);
