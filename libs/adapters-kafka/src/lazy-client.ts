// A Kafka client (producer, admin) connected on first use, shared by the event log's calls.

/** A client connected on first use; `connected()` is the connection if one was ever asked for. */
export interface LazyClient<T> {
  (): Promise<T>;
  connected(): Promise<T> | undefined;
}

/** Memoises an async connect; a failed attempt is forgotten so the next call retries. */
export function lazily<T>(connect: () => Promise<T>, isClosed: () => boolean): LazyClient<T> {
  let pending: Promise<T> | undefined;
  const get = () => {
    if (isClosed()) return Promise.reject(new Error('KafkaEventLog is closed'));
    pending ??= connect().catch((error: unknown) => {
      pending = undefined;
      throw error;
    });
    return pending;
  };
  return Object.assign(get, { connected: () => pending });
}
