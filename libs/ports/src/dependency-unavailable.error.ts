/**
 * The servers engram calls that are not its own stores, by the name errors, `/v1/pipeline/status`,
 * `/health/ready`, metrics and a recall's `degraded` use: the embeddings endpoint
 * (ENGRAM_EMBEDDINGS_URL) and the chat model (ENGRAM_LLM_URL).
 */
export const DEPENDENCY_NAMES = ['embedder', 'llm'] as const;
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
