/**
 * Usage of cluster Job pods in the store (issue 22 item 4): each pod adds its job's tokens and cost
 * to one totals hash, once per job id — a Job that Kubernetes retries (`backoffLimit`) runs again
 * under the same id and is not counted twice — and the server's `/metrics` reads the totals at
 * scrape time (one HGETALL), so one scrape of any replica sees the whole cluster.
 * Keys (this package's own, under `reviewbot:`): `reviewbot:usage:totals` (hash field → amount, no
 * TTL) and `reviewbot:usage:job:<jobId>` (hash of the job's own fields, TTL `store.key_ttl_seconds`).
 */
import type { Redis } from 'ioredis';
import type { UsageTotals } from '../../usage-totals.js';
import { defineScript, runScript } from './scripts.js';

/** The totals of every job recorded so far. */
export const USAGE_TOTALS_KEY = 'reviewbot:usage:totals';

/** `reviewbot:usage:job:<jobId>`: what one job recorded (its guard against counting twice). */
export function jobUsageKey(jobId: string): string {
  return `reviewbot:usage:job:${jobId}`;
}

/**
 * Records a job's fields once. KEYS: job key, totals; ARGV: TTL (s), then field/amount pairs.
 * Returns 1 when recorded, 0 when this job id was recorded before. Amounts are added with
 * HINCRBYFLOAT (costs are fractional; token counts stay whole numbers).
 */
const RECORD = defineScript(`
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], '_recorded', '1')
for i = 2, #ARGV, 2 do
  redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1])
  redis.call('HINCRBYFLOAT', KEYS[2], ARGV[i], ARGV[i + 1])
end
redis.call('EXPIRE', KEYS[1], ARGV[1])
return 1
`);

/**
 * Adds `totals` of job `jobId` to the cluster totals unless that job id was recorded before.
 * @returns true when recorded, false for a repeat (a retried Job).
 * @throws what Redis or the connection throws.
 */
export async function recordJobUsage(
  redis: Redis,
  jobId: string,
  totals: UsageTotals,
  ttlSeconds: number,
): Promise<boolean> {
  const pairs = Object.entries(totals)
    .filter(([, value]) => Number.isFinite(value))
    .flatMap(([field, value]) => [field, String(value)]);
  const result = await runScript(
    redis,
    RECORD,
    [jobUsageKey(jobId), USAGE_TOTALS_KEY],
    [ttlSeconds, ...pairs],
  );
  return Number(result) === 1;
}

/** The cluster totals (empty before any job recorded). @throws what Redis throws. */
export async function readUsageTotals(redis: Redis): Promise<UsageTotals> {
  const raw = await redis.hgetall(USAGE_TOTALS_KEY);
  const out: UsageTotals = {};
  for (const [field, value] of Object.entries(raw)) {
    const amount = Number(value);
    if (Number.isFinite(amount)) out[field] = amount;
  }
  return out;
}
