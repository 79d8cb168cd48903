import type { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { useTestRedis } from './redis.test-helper.js';
import {
  createDoneWatcher,
  parseDoneMessage,
  publishDone,
  type DoneWatcher,
  type DoneWatcherOptions,
} from './done-signal.js';

/** The test's Redis; `db.redis` is the test's own connection (assertions, the "Job pod" publishing). */
const db = useTestRedis({ persistent: true });
const cleanups: Array<() => Promise<void> | void> = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A watcher on two fresh connections, closed after the test. */
async function watcher(options: DoneWatcherOptions = {}): Promise<{ watcher: DoneWatcher; commands: Redis }> {
  const subscriber = db.connect();
  const commands = db.connect();
  const created = createDoneWatcher(subscriber, commands, options);
  cleanups.push(async () => {
    await created.close();
    subscriber.disconnect();
    commands.disconnect();
  });
  await created.ready();
  return { watcher: created, commands };
}

const inOneMinute = () => Date.now() + 60_000;

describe('publishDone', () => {
  it('sets the record with a 1 h TTL before publishing the same message', async () => {
    const listener = db.connect();
    cleanups.push(() => listener.disconnect());
    const seen: Array<{ message: string; keyAtDelivery: string | null }> = [];
    const checker = db.connect();
    cleanups.push(() => checker.disconnect());
    listener.on('message', (_channel: string, message: string) => {
      void checker.get('reviewbot:done:job-1').then((value) => seen.push({ message, keyAtDelivery: value }));
    });
    await listener.subscribe('reviewbot:done');

    const sent = await publishDone(db.redis, {
      jobId: 'job-1',
      status: 'succeeded',
      finishedAt: new Date('2025-05-01T10:00:00Z'),
    });

    expect(sent).toEqual({ jobId: 'job-1', status: 'succeeded', finishedAt: '2025-05-01T10:00:00.000Z' });
    await expect.poll(() => seen.length).toBe(1);
    expect(JSON.parse(seen[0]?.message ?? '')).toEqual(sent);
    expect(JSON.parse(seen[0]?.keyAtDelivery ?? 'null')).toEqual(sent);
    const ttl = await db.redis.ttl('reviewbot:done:job-1');
    expect(ttl).toBeGreaterThan(3590);
    expect(ttl).toBeLessThanOrEqual(3600);
  });
});

describe('parseDoneMessage', () => {
  it.each([
    ['valid', '{"jobId":"a","status":"failed","finishedAt":"t"}', true],
    ['unknown status', '{"jobId":"a","status":"done","finishedAt":"t"}', false],
    ['no job id', '{"status":"failed","finishedAt":"t"}', false],
    ['not JSON', 'succeeded', false],
    ['null', null, false],
  ])('%s', (_name, text, valid) => {
    expect(parseDoneMessage(text) !== undefined).toBe(valid);
  });
});

describe('createDoneWatcher', () => {
  it('finds a signal sent before it subscribed through the key', async () => {
    await publishDone(db.redis, { jobId: 'early', status: 'succeeded' });
    const { watcher: w } = await watcher();
    await expect(w.wait('early', { deadlineAt: inOneMinute() })).resolves.toEqual({
      status: 'succeeded',
      source: 'key',
    });
    expect(w.pending()).toBe(0);
  });

  it('finds a signal delivered before the wait started through the key', async () => {
    const { watcher: w } = await watcher();
    await publishDone(db.redis, { jobId: 'quick', status: 'failed' });
    await new Promise((resolve) => setTimeout(resolve, 100)); // the message has come and gone
    await expect(w.wait('quick', { deadlineAt: inOneMinute() })).resolves.toEqual({
      status: 'failed',
      source: 'key',
    });
  });

  it('resolves on the message when the signal comes after the wait started, per job id', async () => {
    const { watcher: w } = await watcher();
    const first = w.wait('job-a', { deadlineAt: inOneMinute() });
    const second = w.wait('job-b', { deadlineAt: inOneMinute() });
    await expect.poll(() => w.pending()).toBe(2);
    await new Promise((resolve) => setTimeout(resolve, 50));
    await publishDone(db.redis, { jobId: 'job-b', status: 'failed' });
    await expect(second).resolves.toEqual({ status: 'failed', source: 'signal' });
    expect(w.pending()).toBe(1);
    await publishDone(db.redis, { jobId: 'job-a', status: 'succeeded' });
    await expect(first).resolves.toEqual({ status: 'succeeded', source: 'signal' });
  });

  it('at the deadline writes the failed record itself and resolves', async () => {
    const { watcher: w } = await watcher();
    const started = Date.now();
    const outcome = await w.wait('silent', { deadlineAt: started + 300 });
    expect(outcome).toEqual({ status: 'failed', source: 'deadline' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    const record = parseDoneMessage(await db.redis.get('reviewbot:done:silent'));
    expect(record).toMatchObject({ jobId: 'silent', status: 'failed' });
    expect(await db.redis.ttl('reviewbot:done:silent')).toBeGreaterThan(3590);
  });

  it('at the deadline does not overwrite a real record that arrived without a message', async () => {
    const { watcher: w } = await watcher({ recheckIntervalMs: 60_000 });
    const waiting = w.wait('late', { deadlineAt: Date.now() + 300 });
    await new Promise((resolve) => setTimeout(resolve, 100));
    await db.redis.set(
      'reviewbot:done:late',
      JSON.stringify({ jobId: 'late', status: 'succeeded', finishedAt: 'x' }),
    );
    await expect(waiting).resolves.toEqual({ status: 'succeeded', source: 'key' });
    expect(parseDoneMessage(await db.redis.get('reviewbot:done:late'))?.status).toBe('succeeded');
  });

  it('records the job failed as soon as the poll reports it, retrying after poll errors', async () => {
    const { watcher: w } = await watcher({ pollIntervalMs: 30 });
    let polls = 0;
    const poll = async () => {
      polls += 1;
      if (polls === 1) throw new Error('kubernetes API unavailable');
      return polls >= 3 ? ('failed' as const) : undefined;
    };
    const outcome = await w.wait('crashed', { deadlineAt: inOneMinute(), poll });
    expect(outcome).toEqual({ status: 'failed', source: 'poll' });
    expect(polls).toBe(3);
    expect(parseDoneMessage(await db.redis.get('reviewbot:done:crashed'))?.status).toBe('failed');
  });

  it('rejects with the abort reason and writes nothing', async () => {
    const { watcher: w } = await watcher();
    const controller = new AbortController();
    const waiting = w.wait('aborted', { deadlineAt: Date.now() + 200, signal: controller.signal });
    controller.abort(new Error('shutting down'));
    await expect(waiting).rejects.toThrow('shutting down');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await db.redis.get('reviewbot:done:aborted')).toBeNull();
    expect(w.pending()).toBe(0);
  });

  it('rejects pending waits when closed', async () => {
    const { watcher: w } = await watcher();
    const waiting = expect(w.wait('never', { deadlineAt: inOneMinute() })).rejects.toThrow('closed');
    await w.close();
    await waiting;
    await expect(w.wait('after', { deadlineAt: inOneMinute() })).rejects.toThrow('closed');
  });

  it('re-checks pending keys after its subscription reconnects (a message lost meanwhile)', async () => {
    const { watcher: w } = await watcher({ recheckIntervalMs: 60_000 });
    const waiting = w.wait('lost-message', { deadlineAt: inOneMinute() });
    await expect.poll(() => w.pending()).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 50));
    // Drop the subscriber's connection; the db.redis publishes before ioredis reconnects (>= 50 ms).
    await db.redis.call('CLIENT', 'KILL', 'TYPE', 'pubsub');
    await publishDone(db.redis, { jobId: 'lost-message', status: 'succeeded' });
    await expect(waiting).resolves.toEqual({ status: 'succeeded', source: 'key' });
  });

  it('keeps working after the store restarts: re-subscribes and resolves pending waits', async () => {
    const { watcher: w } = await watcher({ recheckIntervalMs: 60_000 });
    const waiting = w.wait('after-restart', { deadlineAt: inOneMinute() });
    await db.server.restart();
    await publishDone(db.redis, { jobId: 'after-restart', status: 'failed' });
    await expect(waiting).resolves.toMatchObject({ status: 'failed' });
    // Messages are delivered again once ioredis has re-subscribed.
    let source = '';
    for (let attempt = 0; attempt < 100 && source !== 'signal'; attempt += 1) {
      const probe = w.wait(`probe-${attempt}`, { deadlineAt: inOneMinute() });
      await new Promise((resolve) => setTimeout(resolve, 20));
      await publishDone(db.redis, { jobId: `probe-${attempt}`, status: 'succeeded' });
      source = (await probe).source;
    }
    expect(source).toBe('signal');
  });

  it('re-checks pending keys periodically', async () => {
    const { watcher: w } = await watcher({ recheckIntervalMs: 50 });
    const waiting = w.wait('quiet', { deadlineAt: inOneMinute() });
    await new Promise((resolve) => setTimeout(resolve, 30));
    await db.redis.set(
      'reviewbot:done:quiet',
      JSON.stringify({ jobId: 'quiet', status: 'succeeded', finishedAt: 'x' }),
    );
    await expect(waiting).resolves.toEqual({ status: 'succeeded', source: 'key' });
  });
});
