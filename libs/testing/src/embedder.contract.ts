import type { Embedder, EmbeddingInputType } from '@engram/ports';

export interface EmbedderContractOptions {
  teardown?: (embedder: Embedder) => Promise<void>;
  /**
   * At least three different texts the embedder can embed (a stub serving recorded answers
   * knows only those). Default: a few Chinese and English sentences.
   */
  texts?: readonly string[];
  /** Largest difference allowed between two embeddings of the same text. Default 1e-6. */
  tolerance?: number;
  /** Jest timeout of each test. Default 15 s. */
  testTimeoutMs?: number;
}

const DEFAULT_TEXTS = ['我喜欢喝咖啡', 'I prefer VS Code for TypeScript work', '数据库用 PostgreSQL', 'my budget is 3000 dollars'];

/**
 * The embedder contract (hashing, OpenAI-compatible): one unit-length vector of the declared
 * length per text, in input order, the same vector for the same text, nothing for nothing.
 */
export function testEmbedder(factory: () => Promise<Embedder>, options: EmbedderContractOptions = {}): void {
  const texts = options.texts ?? DEFAULT_TEXTS;
  const tolerance = options.tolerance ?? 1e-6;
  const testTimeoutMs = options.testTimeoutMs ?? 15_000;
  if (new Set(texts).size < 3) throw new Error('testEmbedder needs at least three different texts');

  const maxDifference = (a: readonly number[], b: readonly number[]) => Math.max(...a.map((v, i) => Math.abs(v - b[i])));
  const length = (v: readonly number[]) => Math.sqrt(v.reduce((s, x) => s + x * x, 0));

  describe('Embedder contract', () => {
    let embedder: Embedder;

    beforeAll(async () => {
      embedder = await factory();
    });
    afterAll(async () => {
      if (embedder) await options.teardown?.(embedder);
    });

    it('names its model and declares a positive integer vector length', () => {
      expect(typeof embedder.modelId).toBe('string');
      expect(embedder.modelId.length).toBeGreaterThan(0);
      expect(Number.isInteger(embedder.dimensions)).toBe(true);
      expect(embedder.dimensions).toBeGreaterThan(0);
    });

    it.each<EmbeddingInputType>(['query', 'passage'])(
      'returns one unit-length vector of the declared length per text (as a %s)',
      async (inputType) => {
        const vectors = await embedder.embed(texts, inputType);
        expect(vectors).toHaveLength(texts.length);
        for (const vector of vectors) {
          expect(vector).toHaveLength(embedder.dimensions);
          expect(vector.every((v) => typeof v === 'number' && Number.isFinite(v))).toBe(true);
          expect(Math.abs(length(vector) - 1)).toBeLessThan(1e-5);
        }
      },
      testTimeoutMs,
    );

    it(
      'is deterministic: the same text gives the same vector, alone or in a batch',
      async () => {
        const first = await embedder.embed(texts, 'query');
        const again = await embedder.embed(texts, 'query');
        const alone = await embedder.embed([texts[1]], 'query');
        first.forEach((vector, i) => expect(maxDifference(vector, again[i])).toBeLessThanOrEqual(tolerance));
        expect(maxDifference(alone[0], first[1])).toBeLessThanOrEqual(tolerance);
      },
      testTimeoutMs,
    );

    it(
      'keeps the input order',
      async () => {
        const forward = await embedder.embed(texts, 'query');
        const reversed = await embedder.embed([...texts].reverse(), 'query');
        forward.forEach((vector, i) => expect(maxDifference(vector, reversed[texts.length - 1 - i])).toBeLessThanOrEqual(tolerance));
        // Different texts really are told apart, so the order check means something.
        expect(maxDifference(forward[0], forward[1])).toBeGreaterThan(tolerance);
      },
      testTimeoutMs,
    );

    it(
      'embeds nothing into nothing',
      async () => {
        expect(await embedder.embed([], 'passage')).toEqual([]);
      },
      testTimeoutMs,
    );
  });
}
