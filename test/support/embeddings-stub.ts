import { HashingEmbedder } from '@engram/embedding';
import { JsonHttpStub } from '@engram/testing';

interface EmbeddingsBody {
  readonly input: string[];
}

/**
 * An OpenAI-compatible `POST /v1/embeddings` server on 127.0.0.1, standing in for a hosted or local
 * embedding model (ENGRAM_EMBEDDINGS_URL): it answers with the hashing embedder's vectors
 * (deterministic, no weights), so what recall finds is what it would find without an endpoint.
 * `down()` stops listening — connections are refused, as from a model server that crashed — and
 * `up()` listens again on the same port.
 */
export class EmbeddingsStub {
  readonly dimensions = 256;
  private readonly hashing = new HashingEmbedder(this.dimensions);
  private readonly stub = new JsonHttpStub<EmbeddingsBody>(({ body }) => ({
    body: {
      object: 'list',
      data: body.input.map((text, index) => ({ object: 'embedding', index, embedding: this.hashing.embedOne(text) })),
      model: 'hashing-stub',
    },
  }));
  private port = 0;
  private listening = false;

  /** Embedding requests answered so far. */
  get requests(): number {
    return this.stub.requests.length;
  }

  async up(): Promise<string> {
    const url = await this.stub.start(this.port);
    this.port = Number(new URL(url).port);
    this.listening = true;
    return url;
  }

  async down(): Promise<void> {
    if (!this.listening) return;
    this.listening = false;
    await this.stub.stop();
  }

  /** The variables that point engram at it (the vector length and model given, so nothing is probed at start). */
  env(url: string): Record<string, string> {
    return { ENGRAM_EMBEDDINGS_URL: url, ENGRAM_EMBEDDINGS_MODEL: 'hashing-stub', ENGRAM_EMBEDDINGS_DIMENSIONS: String(this.dimensions) };
  }
}
