import { percentile } from '../eval';

export interface LatencySummary {
  readonly p50: number;
  readonly p95: number;
  readonly p99: number;
  readonly max: number;
  readonly mean: number;
  readonly samples: number;
}

export const round2 = (value: number) => Math.round(value * 100) / 100;

/** Nearest-rank percentiles (as `engram eval`), rounded to 0.01 ms; zeros for no samples. */
export function summariseLatencies(values: readonly number[]): LatencySummary {
  const mean = values.length === 0 ? 0 : values.reduce((s, v) => s + v, 0) / values.length;
  return {
    p50: round2(percentile(values, 50)),
    p95: round2(percentile(values, 95)),
    p99: round2(percentile(values, 99)),
    max: round2(values.length === 0 ? 0 : Math.max(...values)),
    mean: round2(mean),
    samples: values.length,
  };
}
