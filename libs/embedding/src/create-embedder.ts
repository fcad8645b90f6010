import type { EmbedderOptions } from '@engram/config';
import { type Embedder, unavailableDependency } from '@engram/ports';
import { HashingEmbedder } from './hashing-embedder';
import { OpenAiCompatibleEmbedder } from './openai-compatible-embedder';

/** The part of the configuration that chooses and sets up the embedder (libs/config's slice). */
export type EmbedderConfig = EmbedderOptions;

/**
 * The hashing embedder by default (no weights, no server); an OpenAI-compatible endpoint when
 * ENGRAM_EMBEDDINGS_URL is set. Without ENGRAM_EMBEDDINGS_DIMENSIONS the endpoint is asked once
 * at start-up for its vector length, so an unreachable server stops the process early with a
 * message naming the URL rather than failing the first indexing batch. With the length configured
 * the question is only the served model's name (for reports): an endpoint that is down then does
 * not keep engram from starting — `warn` is told, and the stages wait for it as for any outage.
 */
export async function createEmbedder(config: EmbedderConfig, warn: (message: string) => void = () => undefined): Promise<Embedder> {
  if (!config.ENGRAM_EMBEDDINGS_URL) return new HashingEmbedder(config.ENGRAM_EMBEDDING_DIMENSIONS);
  const options = {
    url: config.ENGRAM_EMBEDDINGS_URL,
    model: config.ENGRAM_EMBEDDINGS_MODEL,
    batchSize: config.ENGRAM_EMBEDDINGS_BATCH_SIZE,
    timeoutMs: config.ENGRAM_EMBEDDINGS_TIMEOUT_MS,
    retries: config.ENGRAM_EMBEDDINGS_RETRIES,
    apiKey: config.ENGRAM_EMBEDDINGS_API_KEY || undefined,
    inputTypeAs: config.ENGRAM_EMBEDDINGS_INPUT_TYPE,
    keepAlive: config.ENGRAM_EMBEDDINGS_KEEP_ALIVE,
  };
  const dimensions = config.ENGRAM_EMBEDDINGS_DIMENSIONS;
  if (dimensions !== undefined && config.ENGRAM_EMBEDDINGS_MODEL) {
    return new OpenAiCompatibleEmbedder({ ...options, dimensions, requestDimensions: true });
  }
  try {
    return await OpenAiCompatibleEmbedder.probe({ ...options, dimensions, requestDimensions: dimensions !== undefined });
  } catch (error) {
    const outage = unavailableDependency(error);
    if (dimensions === undefined || !outage) throw error;
    warn(`the embedder is unavailable at start-up (${outage.message}); starting with ENGRAM_EMBEDDINGS_DIMENSIONS=${dimensions}`);
    return new OpenAiCompatibleEmbedder({ ...options, dimensions, requestDimensions: true });
  }
}
