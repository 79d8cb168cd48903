/**
 * The Lua scripts of the Redis job queue and a runner that calls them by SHA and falls back to the
 * full source on `NOSCRIPT` (the script cache is empty after a Redis restart). Every script that
 * touches a key's lists first checks the lease, so one consumer per key is enforced by Redis itself.
 * Scripts take their keys in KEYS, except SWEEP, which walks the queue-keys set (a plain,
 * non-cluster Redis is assumed, as `store.url` names one server).
 */
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';

/** A Lua script with its SHA-1 (for EVALSHA). */
export interface LuaScript {
  source: string;
  sha: string;
}

/** A script and its SHA-1 (for EVALSHA) from its Lua `source`. */
export function defineScript(source: string): LuaScript {
  return { source, sha: createHash('sha1').update(source).digest('hex') };
}

/**
 * Queues a job once. KEYS: queue, queue-keys set, submitted marker; ARGV: payload JSON, queue key,
 * marker TTL (s). Returns 1 when queued, 0 when this job id was queued before (a resent command).
 */
export const SUBMIT = defineScript(`
if redis.call('SET', KEYS[3], '1', 'NX', 'EX', ARGV[3]) then
  redis.call('RPUSH', KEYS[1], ARGV[1])
  redis.call('SADD', KEYS[2], ARGV[2])
  return 1
end
return 0
`);

/**
 * One consumer step. KEYS: lease, queue, active, queue-keys set; ARGV: owner id, lease (ms), queue
 * key, payload just finished ('' for none). Removes the finished payload from active (even when the
 * lease is no longer ours: the job did finish), then, holding or taking a free lease:
 * - `{2, payload, queued}`: a job is still in active (left by a dead owner): run it again;
 * - `{1, payload, queued}`: the next pending job, moved to active atomically;
 * - `{0}`: nothing left: lease deleted and the key dropped from the set, in the same atomic step,
 *   so a job queued meanwhile is never stranded.
 * `{-1, depth}` when another owner holds the lease (`depth` = pending + active).
 */
export const STEP = defineScript(`
if ARGV[4] ~= '' then redis.call('LREM', KEYS[3], 1, ARGV[4]) end
local holder = redis.call('GET', KEYS[1])
if holder and holder ~= ARGV[1] then
  return {-1, redis.call('LLEN', KEYS[2]) + redis.call('LLEN', KEYS[3])}
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
local resumed = redis.call('LINDEX', KEYS[3], 0)
if resumed then return {2, resumed, redis.call('LLEN', KEYS[2])} end
local job = redis.call('LMOVE', KEYS[2], KEYS[3], 'LEFT', 'RIGHT')
if job then return {1, job, redis.call('LLEN', KEYS[2])} end
redis.call('DEL', KEYS[1])
redis.call('SREM', KEYS[4], ARGV[3])
return {0}
`);

/**
 * Gives a key up (shutdown). KEYS: lease, queue, active, queue-keys set; ARGV: owner id, queue key,
 * payload just finished ('' for none). Removes the finished payload from active; if the lease is
 * ours, deletes it (and drops the key from the set when nothing is left). Returns 1 if it was ours.
 */
export const RELEASE = defineScript(`
if ARGV[3] ~= '' then redis.call('LREM', KEYS[3], 1, ARGV[3]) end
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1])
if redis.call('LLEN', KEYS[2]) + redis.call('LLEN', KEYS[3]) == 0 then redis.call('SREM', KEYS[4], ARGV[2]) end
return 1
`);

/** Compare-and-pexpire. KEYS: lease; ARGV: owner id, lease (ms). Returns 1 if still ours, else 0. */
export const RENEW = defineScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
return 0
`);

/**
 * Lists every queue key of the set with its depth and whether its lease is free, in one command.
 * KEYS: queue-keys set. Returns a flat array `[key, pending + active, leaseFree (1|0), …]`.
 */
export const SWEEP = defineScript(`
local out = {}
for _, k in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  local depth = redis.call('LLEN', 'reviewbot:queue:' .. k) + redis.call('LLEN', 'reviewbot:active:' .. k)
  out[#out + 1] = k
  out[#out + 1] = depth
  out[#out + 1] = redis.call('EXISTS', 'reviewbot:lease:' .. k) == 0 and 1 or 0
end
return out
`);

/** Per connection: SCRIPT LOAD of each script, in flight or done (keyed by SHA). */
const loads = new WeakMap<Redis, Map<string, Promise<unknown>>>();

/**
 * Loads `script` on `redis` once (SCRIPT LOAD), shared by every call made meanwhile: without it,
 * a burst of first calls (e.g. start-up with many jobs) would each get NOSCRIPT and resend the
 * whole source. A failed load is forgotten, so the next call tries again.
 */
function loadOnce(redis: Redis, script: LuaScript): Promise<unknown> {
  let scripts = loads.get(redis);
  if (!scripts) {
    scripts = new Map();
    loads.set(redis, scripts);
  }
  let loading = scripts.get(script.sha);
  if (!loading) {
    const table = scripts;
    loading = redis.script('LOAD', script.source);
    loading.catch(() => table.delete(script.sha));
    table.set(script.sha, loading);
  }
  return loading;
}

/**
 * Runs `script` with EVALSHA (after one shared SCRIPT LOAD per connection), or EVAL when Redis does
 * not know it (`NOSCRIPT`, e.g. after a Redis restart emptied the script cache).
 * @throws what Redis or the connection throws (e.g. "Connection is closed").
 */
export async function runScript(
  redis: Redis,
  script: LuaScript,
  keys: readonly string[],
  args: ReadonlyArray<string | number>,
): Promise<unknown> {
  await loadOnce(redis, script).catch(() => undefined);
  try {
    return await redis.evalsha(script.sha, keys.length, ...keys, ...args);
  } catch (error) {
    if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
    loads.get(redis)?.delete(script.sha);
    return redis.eval(script.source, keys.length, ...keys, ...args);
  }
}
