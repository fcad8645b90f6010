/** Time, injectable so tests can move it (expiry after 7 days, decay). */
export const Clock = Symbol('Clock');

export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };
