/** What screening can find in a turn; each signal but `detail` is found by cue words (`screening.config.ts`). */
export const SIGNALS = [
  'preference',
  'profile',
  'fact',
  'task',
  'decision',
  'correction',
  'remember',
  'schedule',
  'budget',
  'recommendation',
  'procedure',
  'detail',
] as const;
export type Signal = (typeof SIGNALS)[number];
/** Signals found by cue words; `detail` is found by the shape of the text (`detailPatterns`). */
export type CueSignal = Exclude<Signal, 'detail'>;
