/**
 * Returning memory after large webhook bodies. A 20 MiB delivery leaves its raw bytes (a Buffer,
 * outside the V8 heap), its UTF-8 text and its parsed JSON (large-object space) behind as garbage;
 * a server that then goes quiet allocates nothing, so V8 collects none of it for a long time and
 * the resident size stays at the storm's level (measured by `npm run bench:webhook-storm`). After
 * a body of at least `thresholdBytes`, once no such body arrived for `quietMs` (or at the latest
 * `maxDelayMs` after the first), one full garbage collection is run, which frees the buffers and
 * unmaps the large-object pages. Small deliveries never trigger anything.
 *
 * While a large body streams in, each socket chunk (up to 64 KiB, allocated outside the V8 heap) is
 * garbage once copied (`read-body.ts`), but only a scavenge frees it; until then hundreds of chunks
 * pile up, the C allocator's heap grows around them and never shrinks back. So every
 * `scavengeEveryBytes` read, a scavenge (well under a millisecond) frees them and the next chunks
 * reuse the same memory.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** V8's `gc()`: a full collection, or with `{ type: 'minor' }` a scavenge of the young generation. */
export type CollectGarbage = (options?: { type: 'minor' | 'major' }) => void;

/**
 * V8's `gc()`: the global one when Node runs with `--expose-gc`, else one exposed at run time (V8's
 * `--expose-gc` flag set through `v8.setFlagsFromString` and read from a new context, the way Node's
 * documentation of `setFlagsFromString` shows), or undefined when neither works.
 */
export function exposedGc(): CollectGarbage | undefined {
  const existing = (globalThis as { gc?: unknown }).gc;
  if (typeof existing === 'function') return existing as CollectGarbage;
  try {
    setFlagsFromString('--expose-gc');
    const gc: unknown = runInNewContext('gc');
    return typeof gc === 'function' ? (gc as CollectGarbage) : undefined;
  } catch {
    return undefined;
  }
}

/** Options of `createMemoryRelief`. */
export interface MemoryReliefOptions {
  /** Bodies of at least this many bytes schedule a collection. Default 1 MiB. */
  thresholdBytes?: number;
  /** Collect once no large body arrived for this many ms. Default 1000. */
  quietMs?: number;
  /** …but at the latest this many ms after the first large body. Default 5000. */
  maxDelayMs?: number;
  /** Run a scavenge after this many body bytes were read. Default 4 MiB. */
  scavengeEveryBytes?: number;
  /** The collector (tests pass a spy); default `exposedGc()`; none = the relief does nothing. */
  gc?: CollectGarbage | undefined;
}

/** Schedules collections after large bodies. */
export interface MemoryRelief {
  /** Notes a request body of `bytes` bytes (read or partly read). */
  noteBody(bytes: number): void;
  /** Notes `bytes` more body bytes read from a socket (one chunk). */
  noteChunk(bytes: number): void;
  /** Scavenges run so far. */
  scavenges(): number;
  /** Collections run so far. */
  collections(): number;
  /** Cancels a pending collection (server shutdown). */
  close(): void;
}

/** Creates the relief (see the module comment). Timers are unref'd: they never keep the process up. */
export function createMemoryRelief(options: MemoryReliefOptions = {}): MemoryRelief {
  const threshold = options.thresholdBytes ?? 1024 * 1024;
  const quietMs = options.quietMs ?? 1000;
  const maxDelayMs = options.maxDelayMs ?? 5000;
  const scavengeEvery = options.scavengeEveryBytes ?? 4 * 1024 * 1024;
  const gc = 'gc' in options ? options.gc : exposedGc();
  let timer: NodeJS.Timeout | undefined;
  let firstAt: number | undefined;
  let runs = 0;
  let sinceScavenge = 0;
  let scavenges = 0;

  function collect(): void {
    timer = undefined;
    firstAt = undefined;
    runs += 1;
    gc?.();
  }

  return {
    noteBody(bytes) {
      if (gc === undefined || bytes < threshold) return;
      const now = Date.now();
      firstAt ??= now;
      if (timer !== undefined) clearTimeout(timer);
      const wait = Math.max(0, Math.min(quietMs, firstAt + maxDelayMs - now));
      timer = setTimeout(collect, wait);
      timer.unref();
    },
    noteChunk(bytes) {
      if (gc === undefined) return;
      sinceScavenge += bytes;
      if (sinceScavenge < scavengeEvery) return;
      sinceScavenge = 0;
      scavenges += 1;
      gc({ type: 'minor' });
    },
    collections: () => runs,
    scavenges: () => scavenges,
    close() {
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
      firstAt = undefined;
    },
  };
}
