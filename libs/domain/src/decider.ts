// The one shape every decider has (emmett's): what a command decides given the state, and how an
// event changes the state. Pure: no I/O, time passed in.

/**
 * - `decide(command, state, options)`: the events a command causes. `options` is what the
 *   deployment or the moment sets, not what happened (the screening config, `recordedAt`, the
 *   similarity threshold); a decider that needs none leaves it out.
 * - `evolve(state, event)`: the state after an event; deciding and replaying fold with it alike.
 * - `initialState()`: the state before any event.
 *
 * The resolver's deciders (resolution, insights, per-memory control, forgetting) share one state,
 * a user's memories (`ResolverState`), and `ResolutionDecider.evolve`. Screening and extraction
 * decide each turn alone: their state is `NoState` and their `evolve` returns it unchanged.
 */
export interface Decider<Command, State, Event, Options = undefined> {
  initialState(): State;
  decide(command: Command, state: State, options: Options): Event[];
  evolve(state: State, event: Event): State;
}

/** The state of a decider that decides each command alone. */
export type NoState = Readonly<Record<string, never>>;

export const noState = (): NoState => ({});

/** `evolve` of a decider without state: nothing to change. */
export const unchanged = (state: NoState): NoState => state;
