// Summaries: the rolling summary of a session's turns that left the recent window.
export * from './session-summary';
