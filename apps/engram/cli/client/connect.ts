/**
 * How a command gets its `EngramClient`: a running engram over HTTP (`--url`, or the server
 * announced in the data directory), else an embedded one started on the data directory for the
 * command and closed after it.
 */
import type { INestApplication, Type } from '@nestjs/common';
import { startApp } from '@engram/services/bootstrap';
import { runningServer } from '@engram/services/observability/server-file';
import type { EngramClient } from './engram-client';
import { httpEngramClient } from './http-engram-client';
import { inProcessEngramClient } from './in-process-engram-client';

export interface RemoteOptions {
  url?: string;
  apiKey?: string;
}

/** `--url`, or the server announced in the data directory; null when neither. */
function remoteClient(options: RemoteOptions, dataDir: string): EngramClient | null {
  const url = options.url ?? runningServer(dataDir)?.url;
  return url ? httpEngramClient({ url, apiKey: options.apiKey ?? process.env.ENGRAM_API_KEY }) : null;
}

/** Starts the app (its stages running or not), hands it to `work`, closes it. */
export async function withEmbedded<T>(
  module: Type<unknown> | object,
  stages: boolean,
  work: (app: INestApplication) => Promise<T>,
): Promise<T> {
  const app = await startApp(module, { http: false, stages });
  try {
    return await work(app);
  } finally {
    await app.close();
  }
}

/** The running engram if there is one, else an embedded one for the duration of `work`. */
export async function withClient<T>(
  options: RemoteOptions,
  dataDir: string,
  embedded: { module: () => Type<unknown> | object; stages: boolean },
  work: (client: EngramClient) => Promise<T>,
): Promise<T> {
  const remote = remoteClient(options, dataDir);
  if (remote) return work(remote);
  return withEmbedded(embedded.module(), embedded.stages, (app) => work(inProcessEngramClient(app)));
}
