/**
 * Bounded memory of recently seen webhook delivery ids (CONTRACT §5 "a delivery id seen before"):
 * least-recently-seen ids are evicted first once `capacity` ids are held.
 */

/** A set of recent delivery ids of fixed maximum size. */
export interface DeliveryCache {
  /**
   * Records `id` and returns false, or returns true when `id` is already held (a duplicate; it
   * becomes the most recently seen).
   */
  seen(id: string): boolean;
  /** Drops `id`, e.g. when its delivery failed and a redelivery must be processed. */
  forget(id: string): void;
  /** Ids held now (at most `capacity`). */
  size(): number;
}

/**
 * Creates a delivery cache holding at most `capacity` ids (a `Set` in insertion order: O(1) per
 * call, about 100 bytes per GUID id, so 10 000 ids take about 1 MB).
 * @throws RangeError when `capacity` is not a positive integer.
 */
export function createDeliveryCache(capacity: number): DeliveryCache {
  if (!Number.isInteger(capacity) || capacity < 1) {
    throw new RangeError(`dedupe capacity must be a positive integer, got ${capacity}`);
  }
  const ids = new Set<string>();
  return {
    seen(id) {
      if (ids.has(id)) {
        ids.delete(id);
        ids.add(id);
        return true;
      }
      ids.add(id);
      if (ids.size > capacity) {
        const oldest = ids.values().next();
        if (!oldest.done) ids.delete(oldest.value);
      }
      return false;
    },
    forget(id) {
      ids.delete(id);
    },
    size: () => ids.size,
  };
}
