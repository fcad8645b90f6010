// eslint-disable-next-line @typescript-eslint/no-require-imports -- a plain JS script, typed here
const { median, bootstrapMedianInterval, seeded, summarise } = require('./bench-compare') as {
  median(values: number[]): number;
  bootstrapMedianInterval(values: number[], resamples?: number, random?: () => number): [number, number];
  seeded(seed: number): () => number;
  summarise(rounds: { base: Record<string, number>; head: Record<string, number> }[]): {
    metric: string;
    baseMedian: number;
    headMedian: number;
    ratioMedian: number;
    ratioInterval95: [number, number];
    ratioRange: [number, number];
  }[];
};

describe('bench-compare statistics', () => {
  it('takes the middle value, or the mean of the two middle ones', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([7])).toBe(7);
  });

  it('gives the same interval for the same rounds (seeded), inside the values and around their median', () => {
    const ratios = [0.83, 1.05, 0.78, 0.83, 0.76, 0.98, 0.94, 0.9, 0.89, 0.89, 0.76, 0.94, 1.0, 1.02, 0.96];
    const [low, high] = bootstrapMedianInterval(ratios);
    expect(bootstrapMedianInterval(ratios)).toEqual([low, high]);
    expect(low).toBeGreaterThanOrEqual(Math.min(...ratios));
    expect(high).toBeLessThanOrEqual(Math.max(...ratios));
    expect(low).toBeLessThanOrEqual(median(ratios));
    expect(high).toBeGreaterThanOrEqual(median(ratios));
    expect(high).toBeGreaterThan(low);
    // A constant ratio has no spread to resample.
    expect(bootstrapMedianInterval([0.9, 0.9, 0.9, 0.9])).toEqual([0.9, 0.9]);
  });

  it('draws from [0, 1), the same sequence for the same seed', () => {
    const a = seeded(7);
    const b = seeded(7);
    const drawn = Array.from({ length: 1000 }, () => a());
    expect(drawn.every((x) => x >= 0 && x < 1)).toBe(true);
    expect(Array.from({ length: 1000 }, () => b())).toEqual(drawn);
    expect(seeded(8)()).not.toBe(drawn[0]);
  });

  it('judges each metric by the per-round ratios, not by the ratio of the medians', () => {
    // Round 2 ran on a slower machine for both trees: its ratio is like the others'.
    const rounds = [
      { base: { ingest: 1000, rebuild: 10000 }, head: { ingest: 900, rebuild: 10000 } },
      { base: { ingest: 500, rebuild: 5000 }, head: { ingest: 450, rebuild: 5500 } },
      { base: { ingest: 1000, rebuild: 10000 }, head: { ingest: 900, rebuild: 11000 } },
    ];
    const [ingest, rebuild] = summarise(rounds);
    expect(ingest).toMatchObject({ metric: 'ingest', baseMedian: 1000, headMedian: 900, ratioRange: [0.9, 0.9] });
    expect(ingest.ratioMedian).toBeCloseTo(0.9, 10);
    expect(rebuild).toMatchObject({ metric: 'rebuild', baseMedian: 10000, headMedian: 10000 });
    expect(rebuild.ratioMedian).toBeCloseTo(1.1, 10);
  });
});
