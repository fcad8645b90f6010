import { createHash } from 'node:crypto';
import { tokenize } from '@engram/domain';
import type { Embedder, EmbeddingInputType } from '@engram/ports';

/**
 * A deterministic embedder that needs no model weights: the feature-hashing
 * trick over the domain's terms plus character trigrams (which lets "PostgreSQL"
 * and "Postgres", or 数据库 and 数据, land near each other). Not semantic, but
 * stable across processes and machines, so projections rebuild identically.
 */
export class HashingEmbedder implements Embedder {
  readonly modelId: string;
  /** feature → ±(index + 1): the sign is the hash's sign bit. */
  private readonly slots = new Map<string, number>();

  constructor(readonly dimensions = 256) {
    this.modelId = `hashing-v1-${dimensions}`;
  }

  /** Symmetric: a query and a passage of the same text get the same vector. */
  async embed(texts: readonly string[], _inputType?: EmbeddingInputType): Promise<number[][]> {
    return texts.map((text) => this.embedOne(text));
  }

  embedOne(text: string): number[] {
    const vector = new Float64Array(this.dimensions);
    for (const term of tokenize(text)) {
      this.add(vector, `t:${term}`, 1);
      for (const gram of trigrams(term)) this.add(vector, `g:${gram}`, 0.5);
    }
    let norm = 0;
    for (const v of vector) norm += v * v;
    norm = Math.sqrt(norm);
    return Array.from(vector, (v) => (norm === 0 ? 0 : v / norm));
  }

  private add(vector: Float64Array, feature: string, weight: number): void {
    // md5 per feature dominated indexing and rebuild profiles; vocabularies are small, so the
    // (index, sign) of each feature is remembered. Same vectors as before (hashing-v1).
    let slot = this.slots.get(feature);
    if (slot === undefined) {
      const digest = createHash('md5').update(feature).digest();
      const index = digest.readUInt32LE(0) % this.dimensions;
      slot = digest[4] & 1 ? index + 1 : -(index + 1);
      if (this.slots.size >= SLOT_CACHE_LIMIT) this.slots.clear();
      this.slots.set(feature, slot);
    }
    if (slot > 0) vector[slot - 1] += weight;
    else vector[-slot - 1] -= weight;
  }
}

/** Features remembered per embedder (~100 bytes each); past it the cache starts over. */
const SLOT_CACHE_LIMIT = 200_000;

function trigrams(term: string): string[] {
  const chars = Array.from(term);
  if (chars.length <= 3) return [];
  const grams: string[] = [];
  for (let i = 0; i + 3 <= chars.length; i++) grams.push(chars.slice(i, i + 3).join(''));
  return grams;
}
