export { EngramClient } from './engram-client';
export type {
  EngramClientOptions,
  ExportBundle,
  ImportResponse,
  MemoryCommandResponse,
  MemoryRecord,
  PipelineStatus,
  ProfileUpdateResponse,
  RecallOptions,
  RecallResponse,
  RecordedTurns,
  Turn,
  TurnInput,
} from './engram-client';
export {
  EngramAuthError,
  EngramConflictError,
  EngramError,
  EngramNotFoundError,
  EngramUnavailableError,
  EngramValidationError,
} from './errors';
export type { RetryOptions } from './retrying-fetch';
export { withMemory } from './with-memory';
export type { MemoryScope } from './with-memory';
export type { components, paths } from './generated/openapi';
