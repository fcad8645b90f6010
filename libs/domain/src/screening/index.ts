// Screening: which turns are worth extracting from, and how important they are.
export * from './screening.config';
export * from './screening.decider';
