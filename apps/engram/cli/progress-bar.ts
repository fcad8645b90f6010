import { Presets, SingleBar } from 'cli-progress';

/** A progress bar on stderr for `eval` and `bench`; when not enabled it is never started, so updates draw nothing. */
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
