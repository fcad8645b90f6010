import 'reflect-metadata'; // @engram/contracts' validation decorators need it
import type { MemoriesExtracted, MemoryRecord } from '@engram/contracts';
import { ResolutionDecider } from './resolution.decider';
import type { ResolverState } from './resolution.state';
import { extracted } from '../testing/fixtures';

/** A memory's expiry follows what was said last: a time scope sets one, a plain restatement lifts it. */
const options = { similarityThreshold: 0.8, recordedAt: '2026-12-01T00:00:00.000Z' };

function after(...commands: MemoriesExtracted[]): MemoryRecord {
  let state: ResolverState = ResolutionDecider.initialState();
  for (const command of commands)
    for (const event of ResolutionDecider.decide(command, state, options)) state = ResolutionDecider.evolve(state, event);
  return [...state.values()][0];
}

const vegan = (turn: string, expiresAt?: string, value = 'vegan') =>
  extracted(
    [
      {
        kind: 'profile',
        attribute: 'diet:vegan',
        value,
        content: `I'm ${value}`,
        sourceTurnIds: [turn],
        ...(expiresAt ? { expiresAt } : {}),
      },
    ],
    {
      eventId: `e-${turn}`,
    },
  );

describe('expiry through resolution', () => {
  it('given a scoped statement, then the memory expires when it does', () => {
    expect(after(vegan('t-1', '2026-12-07T00:00:00.000Z')).expiresAt).toBe('2026-12-07T00:00:00.000Z');
  });

  it('given it said again without a scope, then it no longer expires', () => {
    expect(after(vegan('t-1', '2026-12-07T00:00:00.000Z'), vegan('t-2')).expiresAt).toBeUndefined();
  });

  it('given it said again with a later scope, then the later end', () => {
    expect(after(vegan('t-1', '2026-12-07T00:00:00.000Z'), vegan('t-2', '2026-12-14T00:00:00.000Z')).expiresAt).toBe(
      '2026-12-14T00:00:00.000Z',
    );
  });

  it('given a new value without a scope, then the new value holds', () => {
    const memory = after(vegan('t-1', '2026-12-07T00:00:00.000Z'), vegan('t-2', undefined, 'vegetarian'));
    expect([memory.value, memory.expiresAt]).toEqual(['vegetarian', undefined]);
  });
});
