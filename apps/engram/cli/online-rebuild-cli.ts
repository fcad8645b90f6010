import { MultiBar, Presets, type SingleBar } from 'cli-progress';
import { VERSIONED_PROJECTIONS } from '@engram/ports';
import type { RebuildStatus } from '@engram/services/replay/rebuild-status';
import type { EngramClient } from './client/engram-client';

const TARGETS = [...VERSIONED_PROJECTIONS, 'all'];

/**
 * `engram rebuild --url`: starts online rebuilds on a running engram
 * (`startRebuilds`: POST /v1/admin/rebuilds) and follows `rebuilds()` (GET /v1/admin/rebuilds) with one progress
 * bar per projection (events/s, ETA, phase) until each is done or failed.
 */
export async function rebuildOnline(engram: EngramClient, projection: string, options: { pollMs?: number } = {}): Promise<void> {
  if (!TARGETS.includes(projection)) throw new Error(`--projection must be one of ${TARGETS.join(', ')} for an online rebuild`);
  const started = await engram.startRebuilds(projection);
  const key = (r: Pick<RebuildStatus, 'projection' | 'version'>) => `${r.projection}@${r.version}`;
  const wanted = new Set(started.map(key));
  const multi = new MultiBar(
    {
      format: '{name} [{bar}] {percentage}% | {value}/{total} | {speed} ev/s | ETA {remaining} | {phase}',
      stream: process.stderr,
      // Not a terminal (CI, logs): a plain line per bar every second instead of redraws.
      noTTYOutput: true,
      notTTYSchedule: 1000,
      hideCursor: true,
      clearOnComplete: false,
    },
    Presets.shades_classic,
  );
  const bars = new Map<string, SingleBar>();
  const began = Date.now();
  let last: RebuildStatus[];
  try {
    for (;;) {
      last = (await engram.rebuilds()).filter((r) => wanted.has(key(r)));
      for (const r of last) {
        const payload = {
          name: `${r.projection} v${r.version}`.padEnd(13),
          speed: r.eventsPerSecond,
          remaining: r.etaSeconds === null ? '?' : `${r.etaSeconds}s`,
          phase: r.phase,
        };
        let bar = bars.get(key(r));
        if (!bar) bars.set(key(r), (bar = multi.create(Math.max(1, r.total), 0, payload)));
        bar.setTotal(Math.max(1, r.total, r.done));
        bar.update(r.done, payload);
      }
      if (last.length === wanted.size && last.every((r) => r.phase === 'done' || r.phase === 'failed')) break;
      await new Promise((resolve) => setTimeout(resolve, options.pollMs ?? 250));
    }
  } finally {
    multi.stop();
  }
  const seconds = (Date.now() - began) / 1000;
  const failed = last.filter((r) => r.phase === 'failed');
  console.log(
    JSON.stringify({
      rebuilt: last.map((r) => ({ projection: r.projection, version: r.version, phase: r.phase, events: r.done, error: r.error })),
      seconds,
    }),
  );
  if (failed.length > 0) throw new Error(`rebuild failed: ${failed.map((r) => `${r.projection}: ${r.error}`).join('; ')}`);
}
