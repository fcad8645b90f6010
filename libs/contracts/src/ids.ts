import { createHash } from 'node:crypto';

/**
 * A stable id from its parts: the same inputs give the same id on every replay,
 * which is what makes derived events and projections idempotent.
 * Formatted like a UUID (v8 layout) so stores and logs treat it as one.
 */
export function deterministicId(...parts: readonly (string | number)[]): string {
  const hex = createHash('sha256').update(parts.map(String).join('\u001f')).digest('hex');
  return [
    hex.slice(0, 8),
    hex.slice(8, 12),
    `8${hex.slice(13, 16)}`,
    ((parseInt(hex.slice(16, 18), 16) & 0x3f) | 0x80).toString(16) + hex.slice(18, 20),
    hex.slice(20, 32),
  ].join('-');
}
