import { BadRequestException, Inject, Injectable, Logger } from '@nestjs/common';
import { IngestLimits } from '@engram/config';
import { deterministicId, newEvent, Topics, TurnRecorded } from '@engram/contracts';
import { maskPii } from '@engram/domain';
import { Clock } from '@engram/ports';
import { EventPublisher } from '../pipeline/event-publisher';
import { encodePosition } from '../pipeline/pipeline-progress';
import { checkTurnLimits } from './input-limits';
import type { PostTurnsDto } from './turns.dto';

/** The write side's front door: validated turns become TurnRecorded events, PII masked first. */
@Injectable()
export class IngestService {
  private readonly log = new Logger(IngestService.name);

  constructor(
    private readonly publisher: EventPublisher,
    @Inject(IngestLimits) private readonly limits: IngestLimits,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  async ingest(tenantId: string, request: PostTurnsDto): Promise<{ accepted: number; position: string }> {
    this.checkLimits(request);
    const recordedAt = this.clock.now().toISOString();
    const seen = new Set<string>();
    const events: TurnRecorded[] = [];
    // The turn a reply answers: the other party's turn just before it. A turn after one of the same
    // speaker continues it and gets none, so two unrelated statements in a row do not find each other.
    let previous: { text: string; by: string } | undefined;
    for (const turn of request.turns) {
      if (seen.has(turn.turnId)) continue;
      seen.add(turn.turnId);
      const text = maskPii(turn.text).text;
      const by = `${turn.role}\u0000${turn.speaker ?? ''}`;
      const previousText = previous && previous.by !== by ? previous.text : undefined;
      const eventId = deterministicId('turn', tenantId, request.userId, turn.turnId);
      events.push(
        newEvent<TurnRecorded>({
          eventId,
          type: 'TurnRecorded',
          tenantId,
          userId: request.userId,
          occurredAt: new Date(turn.occurredAt).toISOString(),
          recordedAt,
          payload: {
            sessionId: request.sessionId,
            turnId: turn.turnId,
            role: turn.role,
            ...(turn.speaker !== undefined ? { speaker: maskPii(turn.speaker).text } : {}),
            // Masked here, before the log: raw PII never reaches a topic, store or log line.
            text,
            ...(previousText ? { previousText } : {}),
            ...(turn.channel !== undefined ? { channel: turn.channel } : {}),
          },
        }),
      );
      previous = { text, by };
    }
    const position = await this.publisher.publish(Topics.turns, events);
    // Ids only (see EventLogTransport.traceBatch): follows each turn into the stages.
    this.log.debug(
      { stage: 'ingest', topic: Topics.turns, events: events.length, correlationIds: events.map((e) => e.correlationId) },
      'turns recorded',
    );
    return { accepted: events.length, position: encodePosition(position) };
  }

  /** Checked again here for callers that are not the HTTP controller (the CLI), and against the clock. */
  private checkLimits(request: PostTurnsDto): void {
    checkTurnLimits(request.turns, this.limits);
    // A turn far in the future never decays and sorts after everything said since.
    const latest = this.clock.now().getTime() + this.limits.maxFutureMs;
    request.turns.forEach((turn, i) => {
      if (Date.parse(turn.occurredAt) > latest) {
        throw new BadRequestException({
          message: [`turns.${i}.occurredAt must be at most ${this.limits.maxFutureMs} ms after the server's clock (ENGRAM_MAX_FUTURE_MS)`],
          fields: [`turns.${i}.occurredAt`],
        });
      }
    });
  }
}
