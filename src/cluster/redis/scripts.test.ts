import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { useTestRedis } from './redis.test-helper.js';
import { defineScript, runScript } from './scripts.js';

const db = useTestRedis({ persistent: true, flush: false });

/** `INFO commandstats` calls of `name` (lower case), 0 when never called. */
async function calls(name: string): Promise<number> {
  const line = (await db.redis.info('commandstats'))
    .split('\n')
    .find((l) => l.startsWith(`cmdstat_${name}:`));
  const match = /calls=(\d+)/.exec(line ?? '');
  return Number(match?.[1] ?? 0);
}

const INCR = defineScript(`return redis.call('INCRBY', KEYS[1], ARGV[1])`);

describe('runScript', () => {
  it('loads a script once per connection for a burst of first calls, then runs it by SHA', async () => {
    await db.redis.config('RESETSTAT');
    const redis = new Redis(db.server.url);
    const results = await Promise.all(Array.from({ length: 200 }, () => runScript(redis, INCR, ['n'], [1])));
    expect(Math.max(...(results as number[]))).toBe(200);
    expect(await calls('script|load')).toBe(1);
    expect(await calls('eval')).toBe(0);
    expect(await calls('evalsha')).toBe(200);
    redis.disconnect();
  });

  it('falls back to EVAL after a Redis restart emptied the script cache, then reloads', async () => {
    const redis = new Redis(db.server.url);
    redis.on('error', () => undefined);
    await runScript(redis, INCR, ['m'], [1]);
    await db.server.restart();
    await db.redis.config('RESETSTAT');
    expect(await runScript(redis, INCR, ['m'], [1])).toBe(2);
    expect(await calls('eval')).toBe(1);
    expect(await runScript(redis, INCR, ['m'], [1])).toBe(3);
    expect(await calls('eval')).toBe(1);
    redis.disconnect();
  });
});
