import { Generations } from './generations';

describe('Generations', () => {
  it('keeps the newest half of its budget at least and never more than the budget', () => {
    const map = new Generations<number, string>(100);
    for (let i = 0; i < 1_000; i++) {
      map.set(i, `v${i}`);
      let held = 0;
      for (let k = 0; k <= i; k++) if (map.get(k) !== undefined) held++;
      expect(held).toBeLessThanOrEqual(100);
      // The newest 50 are always there.
      for (let k = Math.max(0, i - 49); k <= i; k++) expect(map.get(k)).toBe(`v${k}`);
    }
  });

  it('gives the newest value of a key, keeps a key set again among the newest, and forgets a deleted one', () => {
    const map = new Generations<string, string | null>(6);
    map.set('a', 'first');
    map.set('b', null);
    map.set('c', 'c'); // half the budget: a, b, c become the old generation
    expect(map.get('b')).toBeNull();
    map.set('a', 'second');
    expect(map.get('a')).toBe('second');
    map.set('d', 'd');
    map.set('e', 'e'); // a, d, e become the old generation: the one holding b and c is dropped
    expect(map.get('a')).toBe('second');
    expect(map.get('b')).toBeUndefined();
    expect(map.get('c')).toBeUndefined();
    map.delete('a');
    map.delete('e');
    expect(map.get('a')).toBeUndefined();
    expect(map.get('e')).toBeUndefined();
    expect(map.get('d')).toBe('d');
  });
});
