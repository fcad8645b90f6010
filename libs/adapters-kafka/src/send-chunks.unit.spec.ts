import { bySize } from './send-chunks';

describe('bySize (chunking an append under the broker limit)', () => {
  const message = (n: number, bytes: number) => ({ key: `k${n}`, value: 'v'.repeat(bytes - `k${n}`.length) });

  it('keeps order and cuts a run before it would pass the limit', () => {
    const chunks = bySize([message(1, 40), message(2, 40), message(3, 40), message(4, 10)], 100);
    expect(chunks.map((c) => c.map((m) => m.key))).toEqual([
      ['k1', 'k2'],
      ['k3', 'k4'],
    ]);
  });

  it('sends a message larger than the limit alone, never an empty chunk', () => {
    const chunks = bySize([message(1, 10), message(2, 500), message(3, 10)], 100);
    expect(chunks.map((c) => c.map((m) => m.key))).toEqual([['k1'], ['k2'], ['k3']]);
    expect(bySize([], 100)).toEqual([]);
  });

  it('counts bytes, not characters (Chinese text is 3 bytes a character in UTF-8)', () => {
    const zh = { key: 'k', value: '预算'.repeat(20) }; // 40 characters, 120 bytes + key
    expect(bySize([zh, zh], 200)).toHaveLength(2);
  });
});
