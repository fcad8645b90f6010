import { Module } from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';
import { randomUUID } from 'node:crypto';
import type { DestinationStream } from 'pino';
import { LoggingOptions } from '@engram/config';

/**
 * Where the JSON lines go instead of stdout, when a global module provides it
 * (tests capture lines this way). Unset in every app: stdout.
 */
export const LOG_DESTINATION = Symbol('LogDestination');

/**
 * Structured JSON logs (pino). Request bodies are never logged, and the
 * Authorization header is redacted, so neither PII nor keys reach a log line.
 * Stage lines carry event ids and correlation ids, never turn text.
 */
@Module({
  imports: [
    LoggerModule.forRootAsync({
      inject: [LoggingOptions, { token: LOG_DESTINATION, optional: true }],
      useFactory: (logging: LoggingOptions, destination?: DestinationStream) => {
        const options = {
          level: logging.level,
          genReqId: (req: { headers: Record<string, unknown> }) => (req.headers['x-request-id'] as string | undefined) ?? randomUUID(),
          redact: ['req.headers.authorization', 'req.headers.cookie'],
          // Polled endpoints would drown everything else.
          autoLogging: {
            ignore: (req: { url?: string }) => req.url === '/health' || req.url === '/health/ready' || req.url === '/v1/pipeline/status',
          },
          serializers: {
            req: (req: { id: string; method: string; url: string }) => ({ id: req.id, method: req.method, url: req.url }),
            res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
          },
          ...(logging.pretty && !destination ? { transport: { target: 'pino-pretty' } } : {}),
        };
        return { pinoHttp: destination ? [options, destination] : options };
      },
    }),
  ],
})
export class LoggingModule {}
