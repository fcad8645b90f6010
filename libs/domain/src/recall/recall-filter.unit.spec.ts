import { narrowsBeyondKinds } from './recall-filter';

describe('narrowsBeyondKinds: what the search index cannot filter by itself', () => {
  it('is kinds alone, or nothing, that the index filters without the fact store', () => {
    expect(narrowsBeyondKinds({})).toBe(false);
    expect(narrowsBeyondKinds({ kinds: ['preference'] })).toBe(false);
    expect(narrowsBeyondKinds({ kinds: ['preference'], from: undefined })).toBe(false);
  });

  it('is every other field, sessions and time alike', () => {
    expect(narrowsBeyondKinds({ turnIds: new Set() })).toBe(true);
    expect(narrowsBeyondKinds({ kinds: ['fact'], from: new Date('2026-11-30T09:00:00Z') })).toBe(true);
    expect(narrowsBeyondKinds({ to: new Date('2026-11-30T09:00:00Z') })).toBe(true);
  });
});
