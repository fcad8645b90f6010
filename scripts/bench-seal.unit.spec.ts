// eslint-disable-next-line @typescript-eslint/no-require-imports -- a plain JS script, typed here
const { operationsPerTurn, floors, payloadOf } = require('./bench-seal') as {
  operationsPerTurn(
    mix: { turns: number; events: { type: string; topic: string; count: number; payloadBytes: number }[] },
    readersOf: (topic: string) => number,
  ): { type: string; topic: string; count: number; sealsPerTurn: number; opensPerTurn: number }[];
  floors(
    rows: {
      topic: string;
      count: number;
      sealsPerTurn: number;
      opensPerTurn: number;
      engramSeal: number;
      engramOpen: number;
      nodeSeal: number;
      nodeOpen: number;
    }[],
    replayedTopics: Set<string>,
  ): {
    ingestEngramMicrosPerTurn: number;
    ingestNodeMicrosPerTurn: number;
    rebuildEngramMicrosPerEvent: number;
    rebuildNodeMicrosPerEvent: number;
  };
  payloadOf(bytes: number): string;
};

describe('bench-seal arithmetic', () => {
  const mix = {
    turns: 10,
    events: [
      { type: 'TurnRecorded', topic: 'turns', count: 10, payloadBytes: 80 },
      { type: 'TurnScreened', topic: 'screened', count: 10, payloadBytes: 200 },
      { type: 'MemoryAdded', topic: 'facts', count: 20, payloadBytes: 700 },
    ],
  };
  const readers: Record<string, number> = { turns: 1, screened: 2, facts: 1 };

  it('seals each event once a turn and opens it once per stage reading its topic', () => {
    const rows = operationsPerTurn(mix, (topic) => readers[topic]);
    expect(rows.map((r) => [r.type, r.sealsPerTurn, r.opensPerTurn])).toEqual([
      ['TurnRecorded', 1, 1],
      ['TurnScreened', 1, 2],
      ['MemoryAdded', 2, 2],
    ]);
  });

  it('adds up seals and openings per turn, and weighs a rebuild by the replayed topics only', () => {
    const costs = { engramSeal: 10, engramOpen: 5, nodeSeal: 8, nodeOpen: 4 };
    const rows = operationsPerTurn(mix, (topic) => readers[topic]).map((r) => ({ ...r, ...costs }));
    const floor = floors(rows, new Set(['screened', 'facts']));
    // seals 1 + 1 + 2 = 4, openings 1 + 2 + 2 = 5
    expect(floor.ingestEngramMicrosPerTurn).toBe(4 * 10 + 5 * 5);
    expect(floor.ingestNodeMicrosPerTurn).toBe(4 * 8 + 5 * 4);
    expect(floor.rebuildEngramMicrosPerEvent).toBe(5);
    expect(floor.rebuildNodeMicrosPerEvent).toBe(4);
  });

  it('weighs a rebuild event by how often each replayed type occurs', () => {
    const rows = operationsPerTurn(mix, (topic) => readers[topic]).map((r) => ({
      ...r,
      engramSeal: 0,
      nodeSeal: 0,
      engramOpen: r.topic === 'facts' ? 9 : 3,
      nodeOpen: 1,
    }));
    // 10 screened at 3 µs and 20 decisions at 9 µs: (30 + 180) / 30
    expect(floors(rows, new Set(['screened', 'facts'])).rebuildEngramMicrosPerEvent).toBe(7);
  });

  it('makes JSON payloads of about the size asked for', () => {
    for (const bytes of [85, 231, 826, 2971]) {
      const payload = payloadOf(bytes);
      expect(() => JSON.parse(payload)).not.toThrow();
      const size = Buffer.byteLength(payload, 'utf8');
      expect(size).toBeLessThanOrEqual(bytes);
      expect(size).toBeGreaterThan(bytes - 4); // a CJK character is 3 bytes
    }
  });
});
