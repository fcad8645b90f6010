import { Presets, SingleBar } from 'cli-progress';

/** Where a long command is: its phase, and how much of the phase is done. */
export interface PhaseProgress {
  readonly phase: string;
  readonly done: number;
  readonly total: number;
}

/** One progress bar per phase, with events/s and ETA, on stderr (reprocess, encrypt-log, rotate-master-key). */
export class PhaseBars {
  private bar: SingleBar | undefined;
  private phase = '';
  private samples: { at: number; done: number }[] = [];

  /** What is counted: `ev` (events), `keys`. */
  constructor(private readonly unit = 'ev') {}

  update(p: PhaseProgress): void {
    if (p.phase !== this.phase) {
      this.stop();
      this.phase = p.phase;
      this.samples = [];
      this.bar = new SingleBar(
        {
          format: `${p.phase.padEnd(13)} [{bar}] {percentage}% | {value}/{total} | {speed} ${this.unit}/s | ETA {eta_formatted}`,
          stream: process.stderr,
          noTTYOutput: true,
          notTTYSchedule: 1000,
          hideCursor: true,
        },
        Presets.shades_classic,
      );
      this.bar.start(Math.max(1, p.total), 0, { speed: 0 });
    }
    const now = Date.now();
    this.samples.push({ at: now, done: p.done });
    while (this.samples.length > 2 && now - this.samples[0].at > 5000) this.samples.shift();
    const first = this.samples[0];
    const seconds = (now - first.at) / 1000;
    this.bar?.setTotal(Math.max(1, p.total, p.done));
    this.bar?.update(p.done, { speed: seconds > 0 ? Math.round((p.done - first.done) / seconds) : 0 });
  }

  stop(): void {
    this.bar?.stop();
    this.bar = undefined;
    this.phase = '';
  }
}
