/**
 * Latency figures for the webhook benches: percentiles of a sample and a `/health` prober that
 * asks back to back (one request in flight, `intervalMs` apart) while a storm runs.
 */

/** Percentiles of a latency sample (ms, one decimal); zeros for an empty sample. */
export interface Percentiles {
  n: number;
  p50: number;
  p99: number;
  max: number;
}

/** The nearest-rank p50, p99 and maximum of `values` (ms). */
export function percentiles(values: readonly number[]): Percentiles {
  const sorted = [...values].sort((a, b) => a - b);
  const rank = (p: number) => sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)] ?? 0;
  const round = (ms: number) => Number(ms.toFixed(1));
  return { n: sorted.length, p50: round(rank(0.5)), p99: round(rank(0.99)), max: round(sorted.at(-1) ?? 0) };
}

/** A running `/health` prober. */
export interface HealthProbe {
  /** Stops probing; resolves with every answered probe's latency (ms). A failed probe counts as 10 s. */
  stop(): Promise<number[]>;
}

/** Probes `${base}/health` until stopped: one request at a time, `intervalMs` between them. */
export function probeHealth(base: string, intervalMs = 20): HealthProbe {
  const latencies: number[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const asked = performance.now();
      try {
        const res = await fetch(`${base}/health`, { signal: AbortSignal.timeout(10_000) });
        await res.text();
        latencies.push(performance.now() - asked);
      } catch {
        latencies.push(10_000);
      }
      await new Promise((r) => setTimeout(r, intervalMs));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return latencies;
    },
  };
}
