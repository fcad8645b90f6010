import { loadConfig, relevanceFor } from './engram-config';

describe('relevanceFor', () => {
  const thresholds = (env: Record<string, string>) => relevanceFor(loadConfig({ LOG_LEVEL: 'silent', ...env }));

  it("follows the embedder when unset: the hashing embedder's, or multilingual-e5-small's with an endpoint", () => {
    expect(thresholds({})).toEqual({ floor: 0.1, gate: 0.35, admit: 0.35, cosineWeight: 0.1, coverageWeight: 0.2 });
    expect(thresholds({ ENGRAM_EMBEDDINGS_URL: 'http://127.0.0.1:8089' })).toEqual({ floor: 0.78, gate: 0.88, admit: 0.78, cosineWeight: 0.35, coverageWeight: 0 });
  });

  it('takes set values as they are, each on its own', () => {
    expect(thresholds({ ENGRAM_EMBEDDINGS_URL: 'http://127.0.0.1:8089', ENGRAM_COSINE_FLOOR: '0.7' })).toMatchObject({ floor: 0.7, gate: 0.88 });
    expect(thresholds({ ENGRAM_COSINE_GATE: '0' })).toMatchObject({ floor: 0.1, gate: 0, admit: 0.35 });
    expect(thresholds({ ENGRAM_EMBEDDINGS_URL: 'http://127.0.0.1:8089', ENGRAM_COSINE_ADMIT: '0.8' })).toMatchObject({ gate: 0.88, admit: 0.8 });
    expect(thresholds({ ENGRAM_COSINE_WEIGHT: '2', ENGRAM_COVERAGE_WEIGHT: '0' })).toMatchObject({ cosineWeight: 2, coverageWeight: 0 });
    expect(() => thresholds({ ENGRAM_COSINE_FLOOR: '2' })).toThrow(/ENGRAM_COSINE_FLOOR="2"/);
  });
});
