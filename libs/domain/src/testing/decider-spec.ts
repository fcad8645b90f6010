import { deepStrictEqual } from 'node:assert';
import type { Decider } from '../decider';

/**
 * Specification helpers for deciders, emmett style:
 *
 *   spec.given([events]).when(command).then([events])
 *   spec.given([events]).when(command).thenNothing()
 *
 * `given` events are folded with `evolve` from `initialState`, so a test states history as the
 * events that made it, never as a hand-built state. `options` are passed to every `decide`.
 */
export type { Decider } from '../decider';

export interface DeciderSpecification<Command, State, Event> {
  given(events: readonly Event[]): {
    when(command: Command): {
      then(expected: readonly Event[] | ((events: Event[], state: State) => void)): Event[];
      thenNothing(): void;
      /** The events decided and the state after evolving them, for assertions that need both. */
      result(): { events: Event[]; state: State };
    };
  };
}

export function deciderSpec<Command, State, Event, Options = undefined>(
  decider: Decider<Command, State, Event, Options>,
  options?: Options,
): DeciderSpecification<Command, State, Event> {
  return {
    given(history) {
      const state = history.reduce(decider.evolve, decider.initialState());
      return {
        when(command) {
          const run = () => {
            const events = decider.decide(command, state, options as Options);
            return { events, state: events.reduce(decider.evolve, state) };
          };
          return {
            then(expected) {
              const { events, state: after } = run();
              if (typeof expected === 'function') expected(events, after);
              else deepStrictEqual(events, expected);
              return events;
            },
            thenNothing() {
              deepStrictEqual(run().events, []);
            },
            result: run,
          };
        },
      };
    },
  };
}

/** The events a sequence of commands causes, each decided on the state the ones before left. */
export function decidedInOrder<Command, State, Event, Options = undefined>(
  decider: Decider<Command, State, Event, Options>,
  options: Options,
  commands: readonly Command[],
): Event[] {
  let state = decider.initialState();
  const events: Event[] = [];
  for (const command of commands) {
    for (const event of decider.decide(command, state, options)) {
      events.push(event);
      state = decider.evolve(state, event);
    }
  }
  return events;
}
