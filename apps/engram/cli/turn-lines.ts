import { plainToInstance } from 'class-transformer';
import { Equals, IsString, Matches, validateSync } from 'class-validator';
import { validationExceptionFactory } from '@engram/services/http/http-exception.filter';
import { ID_MESSAGE, ID_PATTERN } from '@engram/services/http/request-fields';
import { TurnDto } from '@engram/services/ingest/turns.dto';
import type { PostTurnsDto } from '@engram/services/ingest/turns.dto';

/** One line of an ingest file: `{"type":"turn","userId","sessionId","turnId","role","speaker"?,"text","occurredAt"}`. */
export class TurnLineDto extends TurnDto {
  @Equals('turn') type!: 'turn';
  @IsString() @Matches(ID_PATTERN, { message: `userId ${ID_MESSAGE}` }) userId!: string;
  @IsString() @Matches(ID_PATTERN, { message: `sessionId ${ID_MESSAGE}` }) sessionId!: string;
}

export class LineError extends Error {
  constructor(
    readonly line: number,
    detail: string,
  ) {
    super(`line ${line}: ${detail}`);
    this.name = 'LineError';
  }
}

/** Parses and validates every line before anything is ingested: a bad file stores nothing. */
export function parseTurnLines(content: string, accept: (type: unknown) => boolean = (t) => t === 'turn'): TurnLineDto[] {
  const turns: TurnLineDto[] = [];
  content.split(/\r?\n/).forEach((text, index) => {
    const line = index + 1;
    if (text.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      throw new LineError(line, 'not valid JSON');
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new LineError(line, 'not a JSON object');
    const type = (value as { type?: unknown }).type;
    if (!accept(type)) throw new LineError(line, `unknown line type ${JSON.stringify(type)}`);
    if (type !== 'turn') return;
    const dto = plainToInstance(TurnLineDto, value);
    const errors = validateSync(dto, { whitelist: true, stopAtFirstError: true });
    if (errors.length > 0) {
      const response = validationExceptionFactory(errors).getResponse() as { message: string[] };
      throw new LineError(line, response.message.join('; '));
    }
    turns.push(dto);
  });
  return turns;
}

/** Groups lines into POST /v1/turns requests: per user and session, in file order, at most `max` turns each. */
export function toRequests(lines: readonly TurnLineDto[], max: number): PostTurnsDto[] {
  const requests: PostTurnsDto[] = [];
  let current: PostTurnsDto | undefined;
  for (const line of lines) {
    if (!current || current.userId !== line.userId || current.sessionId !== line.sessionId || current.turns.length >= max) {
      current = { userId: line.userId, sessionId: line.sessionId, turns: [] };
      requests.push(current);
    }
    const { type: _type, userId: _user, sessionId: _session, ...turn } = line;
    current.turns.push(turn as TurnDto);
  }
  return requests;
}
