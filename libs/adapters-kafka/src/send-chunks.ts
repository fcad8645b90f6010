// Splitting an append into sends under the broker's message size limit.

/**
 * Consecutive runs of messages whose keys and values add up to at most `maxBytes` (a message larger
 * than that alone is a run of one: the broker then refuses it, and the caller's retry and dead-letter
 * handling takes over).
 */
export function bySize<T extends { key: string; value: string }>(messages: readonly T[], maxBytes: number): T[][] {
  const chunks: T[][] = [];
  let chunk: T[] = [];
  let bytes = 0;
  for (const message of messages) {
    const size = Buffer.byteLength(message.key) + Buffer.byteLength(message.value);
    if (chunk.length > 0 && bytes + size > maxBytes) {
      chunks.push(chunk);
      chunk = [];
      bytes = 0;
    }
    chunk.push(message);
    bytes += size;
  }
  if (chunk.length > 0) chunks.push(chunk);
  return chunks;
}
