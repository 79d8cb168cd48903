/**
 * The child process of `bench/cluster.ts`: the fake Kubernetes API in `instant` mode, whose pods
 * publish their completion (`publishDone`) as soon as they start (or after a random delay), run
 * apart from the benchmarked server so the fake's own work does not count as the server's. The
 * parent talks to it over the IPC channel (`startFakeKubernetesProcess`, `ask`).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Redis } from 'ioredis';
import { publishDone } from '../src/cluster/redis/done-signal.js';
import { startFakeKubernetes } from '../test/support/fake-k8s/index.js';

/** The label carrying a Job's job id. */
export const JOB_ID_LABEL = 'reviewbot/job-id';

/** Messages to the fake: set the completion delay, count completions, report, close. */
export type ToFake =
  { type: 'spread'; maxDelayMs: number } | { type: 'count' } | { type: 'report' } | { type: 'close' };

/** Messages from the fake; `created`/`published` are `[jobId, epoch ms]` (Date.now()). */
export type FromFake =
  | { type: 'ready'; kubeconfigPath: string; namespace: string }
  | { type: 'spread' }
  | { type: 'count'; published: number }
  | { type: 'report'; created: [string, number][]; published: [string, number][]; podCommands: number }
  | { type: 'close' };

/** Commands counted by `countClientCommands`: in total and per command name. */
export interface CommandCount {
  count: number;
  byName: Map<string, number>;
}

/**
 * Counts the commands the ioredis clients of this process send — each once, also when ioredis
 * sends it again after a reconnect — by wrapping `Redis.prototype.sendCommand`.
 */
export function countClientCommands(): CommandCount {
  const counter: CommandCount = { count: 0, byName: new Map() };
  const seen = new WeakSet<object>();
  const proto = Redis.prototype as unknown as {
    sendCommand: (command: object, ...rest: unknown[]) => unknown;
  };
  const original = proto.sendCommand;
  proto.sendCommand = function (this: Redis, command: object, ...rest: unknown[]) {
    if (!seen.has(command)) {
      seen.add(command);
      counter.count += 1;
      const name = (command as { name?: string }).name ?? '?';
      counter.byName.set(name, (counter.byName.get(name) ?? 0) + 1);
    }
    return original.call(this, command, ...rest);
  };
  return counter;
}

/** Sends `message` (if any) to the fake and resolves with its next answer of type `type`. */
export function ask<T extends FromFake['type']>(
  child: ChildProcess,
  message: ToFake | undefined,
  type: T,
): Promise<Extract<FromFake, { type: T }>> {
  return new Promise((resolve) => {
    const onMessage = (answer: FromFake) => {
      if (answer.type !== type) return;
      child.off('message', onMessage);
      resolve(answer as Extract<FromFake, { type: T }>);
    };
    child.on('message', onMessage);
    if (message) child.send(message);
  });
}

/**
 * Forks this module as the fake's process, its pods publishing to `redisUrl`; resolves once the
 * fake listens. (Its instant pods make no directories; the fake's own temporary directory goes to
 * tmpfs when the machine has one.)
 */
export async function startFakeKubernetesProcess(redisUrl: string) {
  const child = fork(fileURLToPath(import.meta.url), [], {
    env: {
      ...process.env,
      BENCH_REDIS_URL: redisUrl,
      ...(existsSync('/dev/shm') ? { TMPDIR: '/dev/shm' } : {}),
    },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const ready = await ask(child, undefined, 'ready');
  return { child, kubeconfigPath: ready.kubeconfigPath, namespace: ready.namespace };
}

async function runFakeKubernetes(redisUrl: string): Promise<void> {
  const podCommands = countClientCommands();
  const publisher = new Redis(redisUrl, { enableAutoPipelining: true });
  const published = new Map<string, number>();
  let maxDelayMs = 0;
  const k8s = await startFakeKubernetes({
    mode: 'instant',
    async onPodStart(pod) {
      const jobId = pod.job.metadata?.labels?.[JOB_ID_LABEL] ?? '';
      if (maxDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, Math.random() * maxDelayMs));
      // The fake stamps Job creations with Date.now(); the publish time uses the same clock.
      published.set(jobId, Date.now());
      await publishDone(publisher, { jobId, status: 'succeeded' });
    },
  });
  const send = (message: FromFake) => process.send?.(message);
  process.on('message', (message: ToFake) => {
    if (message.type === 'spread') {
      maxDelayMs = message.maxDelayMs;
      send({ type: 'spread' });
    } else if (message.type === 'count') {
      send({ type: 'count', published: published.size });
    } else if (message.type === 'report') {
      const created = k8s.timeline
        .filter((event) => event.type === 'created')
        .map((event): [string, number] => [event.labels[JOB_ID_LABEL] ?? '', event.at]);
      send({ type: 'report', created, published: [...published], podCommands: podCommands.count });
    } else {
      publisher.disconnect();
      void k8s.close().then(() => {
        send({ type: 'close' });
        process.exit(0);
      });
    }
  });
  send({ type: 'ready', kubeconfigPath: k8s.kubeconfigPath, namespace: k8s.namespace });
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await runFakeKubernetes(process.env.BENCH_REDIS_URL ?? '');
}
