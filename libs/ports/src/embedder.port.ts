/** Turns text into vectors: hashing (embedded default) or an OpenAI-compatible endpoint. */
export const Embedder = Symbol('Embedder');

export interface Embedder {
  /** Identifies the model, so a projection built with another one can be told apart. */
  readonly modelId: string;
  readonly dimensions: number;
  /** One unit-length vector per text, in order. */
  embed(texts: readonly string[]): Promise<number[][]>;
}
