import { Module } from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';
import { randomUUID } from 'node:crypto';
import { EngramConfig } from '@engram/config';

/**
 * Structured JSON logs (pino). Request bodies are never logged, and the
 * Authorization header is redacted, so neither PII nor keys reach a log line.
 */
@Module({
  imports: [
    LoggerModule.forRootAsync({
      inject: [EngramConfig],
      useFactory: (config: EngramConfig) => ({
        pinoHttp: {
          level: config.LOG_LEVEL,
          genReqId: (req) => (req.headers['x-request-id'] as string | undefined) ?? randomUUID(),
          redact: ['req.headers.authorization', 'req.headers.cookie'],
          // Polled endpoints would drown everything else.
          autoLogging: { ignore: (req) => req.url === '/health' || req.url === '/v1/pipeline/status' },
          serializers: {
            req: (req: { id: string; method: string; url: string }) => ({ id: req.id, method: req.method, url: req.url }),
            res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
          },
          ...(config.ENGRAM_LOG_PRETTY ? { transport: { target: 'pino-pretty' } } : {}),
        },
      }),
    }),
  ],
})
export class LoggingModule {}
