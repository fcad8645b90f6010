import { InvalidArgumentError } from 'commander';

export { progressBar } from '../progress-bar';

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export function positiveInt(name: string, max = Number.MAX_SAFE_INTEGER) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < 1 || n > max) throw new InvalidArgumentError(`${name} must be an integer from 1 to ${max}`);
    return n;
  };
}
