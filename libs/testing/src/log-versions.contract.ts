import type { LogMigration, LogVersions } from '@engram/ports';

export interface LogVersionsContractOptions {
  /** Opens the state over one fresh storage for the whole suite; every call sees the same state. */
  open(): Promise<LogVersions>;
  teardown?: () => Promise<void>;
  testTimeoutMs?: number;
}

const migration = (overrides: Partial<LogMigration> = {}): LogMigration => ({
  runId: 'run-1',
  from: 1,
  to: 2,
  phase: 'copying',
  startedAt: '2026-12-01T09:00:00.000Z',
  owner: { host: 'host-a', pid: 4242 },
  heartbeatAt: '2026-12-01T09:00:05.000Z',
  ...overrides,
});

/** The log-versions contract (SQLite, MongoDB): a small state written only by compare-and-set. */
export function testLogVersions(options: LogVersionsContractOptions): void {
  const testTimeoutMs = options.testTimeoutMs ?? 15_000;

  describe('LogVersions contract', () => {
    let store: LogVersions;
    beforeAll(async () => {
      store = await options.open();
    });
    afterAll(async () => {
      await options.teardown?.();
    });

    it(
      'starts at version 1, revision 0, with no migration',
      async () => {
        expect(await store.read()).toEqual({ version: 1, revision: 0 });
      },
      testTimeoutMs,
    );

    it(
      'writes only from the revision it read: each write bumps it, a stale one changes nothing',
      async () => {
        const start = await store.read();
        expect(await store.replace(start.revision, { version: 1, migration: migration() })).toBe(true);
        const written = await store.read();
        expect(written).toEqual({ version: 1, revision: start.revision + 1, migration: migration() });
        expect(await store.replace(start.revision, { version: 7 })).toBe(false);
        expect(await store.read()).toEqual(written);

        const released = migration({ owner: null, phase: 'switched' });
        expect(await store.replace(written.revision, { version: 2, migration: released })).toBe(true);
        expect(await store.read()).toEqual({ version: 2, revision: written.revision + 1, migration: released });
        expect(await store.replace(written.revision + 1, { version: 2 })).toBe(true);
        expect(await store.read()).toEqual({ version: 2, revision: written.revision + 2 }); // the migration is gone
      },
      testTimeoutMs,
    );

    it(
      'lets exactly one of several writers from the same revision win',
      async () => {
        const start = await store.read();
        const results = await Promise.all(
          Array.from({ length: 5 }, (_, i) =>
            store.replace(start.revision, { version: start.version, migration: migration({ runId: `racer-${i}` }) }),
          ),
        );
        expect(results.filter(Boolean)).toHaveLength(1);
        const won = await store.read();
        expect(won.revision).toBe(start.revision + 1);
        expect(won.migration?.runId).toBe(`racer-${results.indexOf(true)}`);
      },
      testTimeoutMs,
    );

    it(
      'is one state for every process: another instance over the storage reads and writes the same',
      async () => {
        const other = await options.open();
        const seen = await other.read();
        expect(seen).toEqual(await store.read());
        expect(await other.replace(seen.revision, { version: 3 })).toBe(true);
        expect(await store.read()).toEqual({ version: 3, revision: seen.revision + 1 });
      },
      testTimeoutMs,
    );
  });
}
