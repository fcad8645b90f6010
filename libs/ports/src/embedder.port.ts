/** Turns text into vectors: hashing (embedded default) or an OpenAI-compatible endpoint. */
export const Embedder = Symbol('Embedder');

/**
 * Which side of a search a text is on. Asymmetric models (e5, bge, …) embed a question and the
 * passage that answers it differently; symmetric ones ignore this.
 */
export type EmbeddingInputType = 'query' | 'passage';

export interface Embedder {
  /** Identifies the model, so a projection built with another one can be told apart. */
  readonly modelId: string;
  readonly dimensions: number;
  /** One unit-length vector per text, in order. */
  embed(texts: readonly string[], inputType: EmbeddingInputType): Promise<number[][]>;
}
