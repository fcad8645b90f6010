/** Turns text into vectors: hashing (embedded default) or an OpenAI-compatible endpoint. */
export const Embedder = Symbol('Embedder');

/**
 * Which side of a search a text is on. Asymmetric models (e5, bge, …) embed a question and the
 * passage that answers it differently; symmetric ones ignore this.
 */
export type EmbeddingInputType = 'query' | 'passage';

/**
 * How long one call may take, when the caller cannot wait as long as indexing does: recall asks
 * once and briefly, then answers without vectors (ENGRAM_RECALL_EMBED_TIMEOUT_MS). Unset: the
 * embedder's own settings. An embedder that calls no server ignores them.
 */
export interface EmbedCall {
  /** Per request to the server. */
  readonly timeoutMs?: number;
  /** Retries after the first attempt. */
  readonly retries?: number;
}

export interface Embedder {
  /** Identifies the model, so a projection built with another one can be told apart. */
  readonly modelId: string;
  readonly dimensions: number;
  /**
   * One unit-length vector per text, in order. Rejects with a `DependencyUnavailableError`
   * ('embedder') when the server that computes them is unreachable or answers "later".
   */
  embed(texts: readonly string[], inputType: EmbeddingInputType, call?: EmbedCall): Promise<number[][]>;
}
