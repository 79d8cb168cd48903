/**
 * `onceUntilRejected`: a promise-returning function run once and its result shared, unless it
 * fails, in which case the next call runs it again. For lazily loaded modules and values fetched
 * once per process (the bot's own username, a provider SDK).
 */

/**
 * Wraps `load` so that every call returns the same promise while it is pending or fulfilled; once
 * it rejects (the callers of that attempt see the rejection), the next call runs `load` again.
 * A synchronous throw of `load` counts as a rejection.
 */
export function onceUntilRejected<T>(load: () => Promise<T>): () => Promise<T> {
  let pending: Promise<T> | undefined;
  return () => {
    pending ??= (async () => load())().catch((error: unknown) => {
      pending = undefined;
      throw error;
    });
    return pending;
  };
}
