/**
 * Bounded memory of recently seen webhook delivery ids (CONTRACT §5 "a delivery id seen before"):
 * least-recently-seen ids are evicted first once `capacity` ids are held. The delivery id header is
 * not covered by the signature, so a replayed body may carry any id up to the header size limit:
 * ids longer than a GUID-like 64 characters are held as their SHA-256 digest, so each entry costs at
 * most about 150 bytes whatever the sender writes. The server keeps a second cache of the same kind
 * for event identities (`event-identity.ts`, 64 hex digits each), since copies of one signed event
 * may carry any delivery ids.
 */
import { createHash } from 'node:crypto';

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

/** Longest id held as it is; longer ones are held as a digest. */
const MAX_KEPT_ID = 64;

function keyOf(id: string): string {
  return id.length <= MAX_KEPT_ID ? id : `sha256:${createHash('sha256').update(id).digest('hex')}`;
}

/**
 * Creates a delivery cache holding at most `capacity` ids (a `Set` in insertion order: O(1) per
 * call, about 100 bytes per GUID id and at most about 150 per id of any length, so 10 000 ids take
 * about 1.5 MB).
 * @throws RangeError when `capacity` is not a positive integer.
 */
export function createDeliveryCache(capacity: number): DeliveryCache {
  if (!Number.isInteger(capacity) || capacity < 1) {
    throw new RangeError(`dedupe capacity must be a positive integer, got ${capacity}`);
  }
  const ids = new Set<string>();
  return {
    seen(rawId) {
      const id = keyOf(rawId);
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
      ids.delete(keyOf(id));
    },
    size: () => ids.size,
  };
}
