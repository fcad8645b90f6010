import { testEmbedder } from '@engram/testing';
import { HashingEmbedder } from './hashing-embedder';

describe('HashingEmbedder', () => {
  testEmbedder(async () => new HashingEmbedder(64));

  it('keeps the hashing-v1 vectors: projections built earlier stay comparable', async () => {
    const golden = [0, 0, 0.267261, 0, -0.267261, 0.267261, -0.267261, 0, 0, 0, -0.267261, -0.534522, 0, 0, -0.267261, 0.534522];
    const embedder = new HashingEmbedder(16);
    for (let round = 0; round < 2; round++) {
      const [vector] = await embedder.embed(['数据库用 PostgreSQL']);
      vector.forEach((v, i) => expect(v).toBeCloseTo(golden[i], 6));
    }
  });

  it('names its dimensions in its model id', () => {
    expect(new HashingEmbedder(128).modelId).toBe('hashing-v1-128');
  });
});
