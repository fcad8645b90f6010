/**
 * The servers engram calls, by the name errors, `/v1/pipeline/status`, `/health/ready`, metrics and
 * a recall's `degraded` use: the embeddings endpoint (ENGRAM_EMBEDDINGS_URL), the chat model
 * (ENGRAM_LLM_URL), and in the distributed mode the stores' servers: the MongoDB-protocol server
 * (MONGODB_URI), Elasticsearch (ELASTICSEARCH_URL) and Kafka (KAFKA_BROKERS).
 */
export const DEPENDENCY_NAMES = ['embedder', 'llm', 'mongodb', 'elasticsearch', 'kafka'] as const;
export type DependencyName = (typeof DEPENDENCY_NAMES)[number];

/**
 * A dependency could not be reached, did not answer in time, or answered "later" (5xx, 429):
 * nothing is wrong with what was asked, and the same call may succeed once it is back. An adapter
 * throws it after its own retries; a stage that meets it pauses and retries its batch instead of
 * dead-lettering anything, recall answers without that dependency or with 503. Any other error is
 * about the call itself (a 4xx, an invalid answer to this input): the event's fault.
 */
export class DependencyUnavailableError extends Error {
  override readonly name = 'DependencyUnavailableError';
  /** How long the dependency asked to be left alone (its Retry-After), when it said. */
  readonly retryAfterMs: number | undefined;

  constructor(
    readonly dependency: DependencyName,
    message: string,
    options: { readonly cause?: unknown; readonly retryAfterMs?: number } = {},
  ) {
    super(message, { cause: options.cause });
    this.retryAfterMs = options.retryAfterMs;
  }
}

/**
 * The unavailable dependency an error stands for, looking through its causes (a layer that wraps
 * an error keeps it as `cause`); undefined when the error is about the call itself.
 */
export function unavailableDependency(error: unknown): DependencyUnavailableError | undefined {
  const seen = new Set<unknown>();
  for (let current = error; typeof current === 'object' && current !== null && !seen.has(current);) {
    if (current instanceof DependencyUnavailableError) return current;
    seen.add(current);
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * `target` as it is, but every method's failure that `isOutage` recognises (its server cannot be
 * reached or did not answer in time) thrown as a `DependencyUnavailableError` naming `dependency`,
 * its cause the original error: how a store adapter says "my server is down" without each of its
 * methods saying it. `observer` hears of every outage and of every answer (the dependency monitor).
 * Methods run on the target itself: its own calls to its methods are not wrapped again.
 */
export function reportingOutages<T extends object>(
  target: T,
  dependency: DependencyName,
  isOutage: (error: unknown) => boolean,
  observer?: OutageObserver,
): T {
  const classify = (error: unknown): unknown => {
    const outage =
      unavailableDependency(error) ??
      (isOutage(error)
        ? new DependencyUnavailableError(
            dependency,
            `${dependency} unavailable: ${error instanceof Error ? error.message : String(error)}`,
            {
              cause: error,
            },
          )
        : undefined);
    if (outage) observer?.failed(outage.dependency, outage);
    return outage ?? error;
  };
  const answered = <A>(answer: A): A => {
    observer?.answered(dependency);
    return answer;
  };
  const wrapped = new Map<PropertyKey, unknown>();
  return new Proxy(target, {
    get(object, property) {
      const value: unknown = Reflect.get(object, property, object);
      if (typeof value !== 'function' || property === 'constructor') return value;
      let method = wrapped.get(property);
      if (!method) {
        method = (...args: unknown[]): unknown => {
          let result: unknown;
          try {
            result = (value as (...a: unknown[]) => unknown).apply(object, args);
          } catch (error) {
            throw classify(error);
          }
          if (!(result instanceof Promise)) return result;
          return result.then(answered, (error: unknown) => {
            throw classify(error);
          });
        };
        wrapped.set(property, method);
      }
      return method;
    },
  });
}

/** Told by `reportingOutages` what a dependency's calls find (the DependencyMonitor's `failed` and `answered`). */
export interface OutageObserver {
  failed(dependency: DependencyName, error: unknown): void;
  answered(dependency: DependencyName): void;
}
