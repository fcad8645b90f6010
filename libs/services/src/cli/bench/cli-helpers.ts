import { Presets, SingleBar } from 'cli-progress';
import { InvalidArgumentError } from 'commander';

export function progressBar(enabled: boolean, label: string, total: number): SingleBar {
  const bar = new SingleBar(
    {
      format: `${label} [{bar}] {percentage}% | {value}/{total} | {eta_formatted} left`,
      stream: process.stderr,
      noTTYOutput: false,
      hideCursor: true,
    },
    Presets.shades_classic,
  );
  if (enabled) bar.start(total, 0);
  else bar.setTotal(total);
  return bar;
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export function positiveInt(name: string, max = Number.MAX_SAFE_INTEGER) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < 1 || n > max) throw new InvalidArgumentError(`${name} must be an integer from 1 to ${max}`);
    return n;
  };
}
