/**
 * What `<topic>.dlq` holds: the original bytes plus where and why they failed,
 * so an operator can inspect them and re-drive them (`engram dlq`).
 */
export interface DeadLetter {
  readonly topic: string;
  readonly partition: number;
  readonly offset: number;
  readonly key: string;
  /** The consumer group (stage) that could not handle it. */
  readonly stage: string;
  /** `invalid`: failed validation; `failed`: the handler kept throwing. */
  readonly reason: 'invalid' | 'failed';
  readonly error: string;
  readonly attempts: number;
  readonly failedAt: string;
  readonly raw: string;
}

export const deadLetterTopic = (topic: string): string => `${topic}.dlq`;

export function isDeadLetter(value: unknown): value is DeadLetter {
  const v = value as Partial<DeadLetter> | null;
  return (
    typeof v === 'object' &&
    v !== null &&
    typeof v.topic === 'string' &&
    typeof v.stage === 'string' &&
    typeof v.raw === 'string' &&
    typeof v.offset === 'number' &&
    (v.reason === 'invalid' || v.reason === 'failed')
  );
}
