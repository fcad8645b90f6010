import { BadRequestException, INestApplication, Logger as NestLogger, Type, ValidationPipe } from '@nestjs/common';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { NestFactory } from '@nestjs/core';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { json, type Request, type Response } from 'express';
import { Logger } from 'nestjs-pino';
import { Registry } from 'prom-client';
import { AuthOptions, HttpOptions, PipelineOptions, PortBindings, ProcessOptions } from '@engram/config';
import { EventLog } from '@engram/ports';
import { HttpExceptionFilter, validationExceptionFactory } from './http/http-exception.filter';
import { methodNotAllowed, MONITORING_PATHS, monitoringAuth, verifyJsonBody } from './ingest/input-limits';
import { DependencyMonitor } from './observability/dependency-monitor';
import { EngramMetrics } from './observability/metrics';
import { MetricsCollector } from './http/metrics-collector';
import { ReadinessService } from './http/readiness.service';
import { EventLogTransport } from './transport/event-log.transport';

/** Body limit, validation, error shape and OpenAPI: the same for every HTTP-serving app (its options from the app's EngramCoreModule). */
export function configureHttp(app: INestApplication): void {
  const { bodyLimitBytes } = app.get<HttpOptions>(HttpOptions);
  const express = app.getHttpAdapter().getInstance() as { disable(setting: string): void; router: Parameters<typeof methodNotAllowed>[0] };
  express.disable('x-powered-by');
  app.use(methodNotAllowed(express.router));
  app.use(MONITORING_PATHS, monitoringAuth(app.get<AuthOptions>(AuthOptions)));
  const parseJson = json({ limit: bodyLimitBytes, verify: verifyJsonBody });
  // Nest turns body-parser's SyntaxError into a bare 400 before any filter sees its `type`: name `body` here.
  app.use((req: Request, res: Response, next: (error?: unknown) => void) =>
    parseJson(req, res, (error?: unknown) =>
      next((error as { type?: string } | undefined)?.type === 'entity.parse.failed' ? malformedJson() : error),
    ),
  );
  app.useGlobalPipes(
    new ValidationPipe({
      transform: true,
      whitelist: true,
      forbidUnknownValues: true,
      stopAtFirstError: true,
      validationError: { target: false, value: false },
      exceptionFactory: validationExceptionFactory,
    }),
  );
  app.useGlobalFilters(new HttpExceptionFilter({ dependencyRetryAfterSeconds: app.get(DependencyMonitor).retryAfterSeconds }));
  SwaggerModule.setup('docs', app, () => openApiDocument(app));
}

function malformedJson(): BadRequestException {
  return new BadRequestException({ error: 'Bad Request', message: ['request body must be valid JSON'], fields: ['body'] });
}

export function openApiDocument(app: INestApplication): OpenAPIObject {
  const document = new DocumentBuilder()
    .setTitle('engram')
    .setDescription('Event-sourced long-term memory for LLM applications: ingest turns, recall what matters.')
    .setVersion('1')
    .addBearerAuth({ type: 'http', scheme: 'bearer', description: 'API key (ENGRAM_API_KEYS); not needed when none are configured' })
    .build();
  return SwaggerModule.createDocument(app, document);
}

/**
 * Attaches the stage handlers of the app's modules to the event log (prefix, batches and retries:
 * the app's PipelineOptions; the pause on an unavailable dependency is the log's backoff, set where
 * the log is bound).
 */
export function connectStages(app: INestApplication): void {
  const pipeline = app.get<PipelineOptions>(PipelineOptions);
  app.connectMicroservice({
    strategy: new EventLogTransport(app.get(EventLog), {
      topicPrefix: pipeline.topicPrefix,
      maxBatchSize: pipeline.batchSize,
      attempts: pipeline.stageAttempts,
      retryDelayMs: pipeline.stageRetryDelayMs,
      metrics: app.get(EngramMetrics),
      monitor: app.get(DependencyMonitor),
      deadLetterRedriveMs: pipeline.deadLetterRedriveMs,
    }),
  });
}

export interface StartOptions {
  /**
   * Listen on PORT/HOST; false initialises HTTP without a socket (tests, CLI);
   * `health`: a worker that listens only to answer GET /health (orchestrators' checks).
   */
  readonly http: boolean | 'health';
  /** Run the module's stage handlers on the event log. */
  readonly stages: boolean;
}

/**
 * ENGRAM_HEAP_GROWTH_PERCENT, for the whole process (V8 reads the flag at every full collection, so
 * setting it after start takes effect from the next one; the last app started in a process sets it).
 */
function limitHeapGrowth({ heapGrowthPercent }: ProcessOptions): void {
  setFlagsFromString(`--heap-growing-percent=${heapGrowthPercent}`);
}

/** Creates, wires and starts one engram process; shuts down cleanly on SIGTERM/SIGINT. */
export async function startApp(rootModule: Type<unknown> | object, options: StartOptions): Promise<INestApplication> {
  const app = await NestFactory.create(rootModule as Type<unknown>, { bodyParser: false, bufferLogs: true, abortOnError: false });
  try {
    limitHeapGrowth(app.get<ProcessOptions>(ProcessOptions));
    app.useLogger(app.get(Logger));
    app.enableShutdownHooks();
    const { mode } = app.get<PortBindings>(PortBindings);
    const http = app.get<HttpOptions>(HttpOptions);
    configureHttp(app);
    if (options.stages) {
      connectStages(app);
      await app.startAllMicroservices();
    }
    if (options.http === 'health') {
      // Registered on the HTTP adapter directly: workers have no controllers. Reached only once the stages run.
      const adapter = app.getHttpAdapter();
      adapter.get('/health', (_req: unknown, res: { json(body: unknown): void }) => res.json({ status: 'ok', mode }));
      const readiness = app.get(ReadinessService);
      adapter.get('/health/ready', (_req: Request, res: Response) => {
        void readiness.check().then(({ httpStatus, body }) => res.status(httpStatus).json(body));
      });
      const collector = app.get(MetricsCollector);
      adapter.get('/metrics', (_req: Request, res: Response) => {
        collector.scrape().then(
          (text) => res.status(200).type(Registry.PROMETHEUS_CONTENT_TYPE).send(text),
          (error: unknown) =>
            res
              .status(503)
              .type('text/plain')
              .send(`metrics unavailable: ${error instanceof Error ? error.message : String(error)}\n`),
        );
      });
    }
    if (options.http) {
      await app.listen(http.port, http.host);
      new NestLogger('engram').log(`listening on ${boundAddress(app)}`);
    } else await app.init();
  } catch (error) {
    // A process that cannot start closes what it opened (stores, consumers) before it reports why.
    await app.close().catch(() => undefined);
    throw error;
  }
  return app;
}

/** The address the HTTP server is actually bound to (`http://0.0.0.0:3000`, `http://[::1]:3000`), not a guess. */
export function boundAddress(app: INestApplication): string {
  const address = (app.getHttpServer() as Server).address() as AddressInfo;
  const host = address.family === 'IPv6' || address.family === (6 as unknown as string) ? `[${address.address}]` : address.address;
  return `http://${host}:${address.port}`;
}
