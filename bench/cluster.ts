/**
 * Cluster benchmark (`npm run bench:cluster`): the cluster JobRunner of `reviewbot serve`
 * (`createClusterJobRunner`: Redis queue, done watcher, Kubernetes executor) driven in this process
 * against a real `redis-server` and the fake Kubernetes API in `instant` mode, run in a child
 * process (`bench/cluster-fake-k8s.ts`, so its work does not count as the server's), whose pods
 * publish their completion (`publishDone`) as soon as they start.
 *
 * Phases (after a short warm-up burst), each 500 pull-request keys × 3 jobs submitted at once:
 * - `burst`: every Job completes at once, as the issue asks. Every key always has a job ready, so
 *   the system runs at full throughput; without the gate a hand-over would wait behind every Job
 *   start queued before it (about keys ÷ jobs per second, Little's law: the baseline below);
 * - `spread`: each Job completes 0–`BENCH_SPREAD_MS` ms after its pod starts (uniform), as real
 *   Jobs end at different times: the hand-over latency of a server that is not saturated.
 * Measured per phase: `signalToNextJobMs` = from a pod's completion publish to the creation of the
 * next Job of the same key (p50/p99/max), split into `serverMs` (publish → the server calls the
 * Kubernetes client's create) and `apiMs` (that call → the fake records the Job: client
 * serialization, HTTP, the fake's validation); jobs per second; Redis commands per job
 * (`INFO commandstats` delta, commands inside Lua scripts included; and client round trips of
 * the server and of the pods), and that every key got its Jobs in order, each exactly once.
 * The server bounds the Job starts in flight and lets hand-overs go first (`creation-gate.ts`), so
 * each phase also reports `submitToFirstJobMs` (submits → each key's first Job), the price idle keys
 * pay for that order. Baselines in the same run: Redis PING, pub/sub delivery, one Job creation on
 * the idle fake, and the burst once more without the gate (every Job start sent at once).
 * Prints one JSON object on stdout; progress on stderr. Target: p99 ≤ 100 ms, no key stalled.
 * Env: BENCH_KEYS (500), BENCH_JOBS_PER_KEY (3), BENCH_SPREAD_MS (4000), BENCH_CREATION_CONCURRENCY
 * (the server's default).
 */
import type { ChildProcess } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { Redis } from 'ioredis';
import { createClusterJobRunner, type ClusterJobRunner } from '../src/cluster/cluster-runner.js';
import type { CreationGateOptions } from '../src/cluster/creation-gate.js';
import { createKubernetesJobs, type KubernetesJobs } from '../src/cluster/k8s/client.js';
import { buildJobSpec } from '../src/cluster/k8s/job-spec.js';
import { rawConfigSchema, type RawConfig } from '../src/config/schema.js';
import type { JobPayload } from '../src/jobs/types.js';
import { silentLogger } from '../src/logger.js';
import { createMetrics } from '../src/metrics.js';
import { SecretMasker } from '../src/secrets.js';
import { payloadsFor } from '../test/support/job-payloads.js';
import { startRedis } from '../test/support/redis-server.js';
import {
  ask,
  countClientCommands,
  JOB_ID_LABEL,
  startFakeKubernetesProcess,
  type CommandCount,
} from './cluster-fake-k8s.js';

const KEYS = Number(process.env.BENCH_KEYS ?? 500);
const JOBS_PER_KEY = Number(process.env.BENCH_JOBS_PER_KEY ?? 3);
const SPREAD_MS = Number(process.env.BENCH_SPREAD_MS ?? 4000);
const TARGET_P99_MS = 100;
const PHASE_TIMEOUT_MS = 180_000;
/** `BENCH_CREATION_CONCURRENCY`: the gate's bound for the measured phases (default: the server's). */
const GATE_CONCURRENCY = Number(process.env.BENCH_CREATION_CONCURRENCY ?? 0);
/** A creation-gate bound no burst reaches: every Job start sent at once. */
const UNBOUNDED = 1_000_000;

const log = (message: string): void => void process.stderr.write(`[bench:cluster] ${message}\n`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Summary {
  p50: number;
  p99: number;
  max: number;
}

/** p50/p99/max of `values` (ms), rounded to 0.01 ms. */
function summary(values: number[]): Summary {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (p: number) =>
    sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
  const round = (n: number) => Number(n.toFixed(2));
  return { p50: round(at(50)), p99: round(at(99)), max: round(sorted.at(-1) ?? 0) };
}

/** Total calls of every command in `INFO commandstats`. */
async function commandCalls(redis: Redis): Promise<number> {
  let total = 0;
  for (const match of (await redis.info('commandstats')).matchAll(/calls=(\d+)/g)) total += Number(match[1]);
  return total;
}

/** What a phase drives and watches. */
interface Rig {
  runner: ClusterJobRunner;
  fake: ChildProcess;
  /** A connection for INFO. */
  probe: Redis;
  /** Commands sent by this process's Redis clients (the server's). */
  serverCommands: CommandCount;
  /** When the server called the Kubernetes client's `create`, per job id (Date.now()). */
  createCalls: Map<string, number>;
}

/** Submits `keys` × JOBS_PER_KEY jobs on pull requests `firstPr…` and measures until all are done. */
async function runPhase(rig: Rig, firstPr: number, keys = KEYS) {
  const { runner, fake, probe, serverCommands } = rig;
  const payloads: JobPayload[] = [];
  const perKey = Array.from({ length: keys }, (_, n) => payloadsFor(firstPr + n, JOBS_PER_KEY));
  // Round by round: every key's first job, then every key's second, …
  for (let round = 0; round < JOBS_PER_KEY; round += 1) {
    for (const jobs of perKey) payloads.push(jobs[round]!);
  }
  const before = {
    calls: await commandCalls(probe),
    server: serverCommands.count,
    byName: new Map(serverCommands.byName),
    ...(({ podCommands, published }) => ({ pods: podCommands, published: published.length }))(
      await ask(fake, { type: 'report' }, 'report'),
    ),
  };
  const started = Date.now();
  const cpu = process.cpuUsage();
  for (const job of payloads) runner.submit(job);
  // Cheap progress checks while the phase runs; the full report once it is over.
  while (Date.now() - started < PHASE_TIMEOUT_MS) {
    const { published } = await ask(fake, { type: 'count' }, 'count');
    if (published >= before.published + payloads.length && runner.depth() === 0) break;
    await sleep(50);
  }
  const report = await ask(fake, { type: 'report' }, 'report');
  const cpuUsed = process.cpuUsage(cpu);
  const calls = (await commandCalls(probe)) - before.calls - 1;
  const published = new Map(report.published);
  const created = new Map<string, number>();
  const creations = new Map<string, number>();
  for (const [jobId, at] of report.created) {
    created.set(jobId, at);
    creations.set(jobId, (creations.get(jobId) ?? 0) + 1);
  }
  const gaps: number[] = [];
  const firstJobs: number[] = [];
  const serverMs: number[] = [];
  const apiMs: number[] = [];
  let stalled = 0;
  let outOfOrder = 0;
  for (let pr = firstPr; pr < firstPr + keys; pr += 1) {
    const mine = payloads.filter((p) => p.comment.prNumber === pr);
    if (mine.some((p) => creations.get(p.jobId) !== 1 || !published.has(p.jobId))) stalled += 1;
    const first = created.get(mine[0]!.jobId);
    if (first !== undefined) firstJobs.push(first - started);
    for (let n = 1; n < mine.length; n += 1) {
      const signal = published.get(mine[n - 1]!.jobId);
      const next = created.get(mine[n]!.jobId);
      if (signal === undefined || next === undefined) continue;
      if (next < (created.get(mine[n - 1]!.jobId) ?? Infinity)) outOfOrder += 1;
      gaps.push(next - signal);
      const called = rig.createCalls.get(mine[n]!.jobId);
      if (called !== undefined) {
        serverMs.push(called - signal);
        apiMs.push(next - called);
      }
    }
  }
  const finished = Math.max(...payloads.map((p) => published.get(p.jobId) ?? 0));
  const jobs = payloads.length;
  return {
    jobs,
    jobsDone: payloads.filter((p) => published.has(p.jobId)).length,
    stalledKeys: stalled,
    outOfOrder,
    duplicateJobs: payloads.filter((p) => (creations.get(p.jobId) ?? 0) > 1).length,
    signalToNextJobMs: { ...summary(gaps), serverMs: summary(serverMs), apiMs: summary(apiMs) },
    /** From the submits to each key's first Job: what the gate's hand-overs-first order costs idle keys. */
    submitToFirstJobMs: summary(firstJobs),
    jobsPerSecond: Math.round(jobs / ((finished - started) / 1000)),
    durationMs: finished - started,
    /** CPU time of this process (the server's JobRunner; polling the fake adds a little), ms per job. */
    serverCpuMsPerJob: Number(((cpuUsed.user + cpuUsed.system) / 1000 / jobs).toFixed(3)),
    redisCommandsPerJob: {
      commandstats: Number((calls / jobs).toFixed(2)),
      serverRoundTrips: Number(((serverCommands.count - before.server) / jobs).toFixed(2)),
      podRoundTrips: Number(((report.podCommands - before.pods) / jobs).toFixed(2)),
      serverByCommand: Object.fromEntries(
        [...serverCommands.byName]
          .map(([name, n]): [string, number] => [
            name,
            Number(((n - (before.byName.get(name) ?? 0)) / jobs).toFixed(2)),
          ])
          .filter(([, n]) => n > 0),
      ),
    },
  };
}

/** Idle-system baselines: Redis PING, pub/sub delivery, one Job creation on the fake (ms). */
async function baselines(redisUrl: string, probe: Redis, config: RawConfig, env: NodeJS.ProcessEnv) {
  const now = () => performance.timeOrigin + performance.now();
  const pings: number[] = [];
  for (let i = 0; i < 1000; i += 1) {
    const sent = now();
    await probe.ping();
    pings.push(now() - sent);
  }
  const listener = new Redis(redisUrl);
  await listener.subscribe('bench:baseline');
  const deliveries: number[] = [];
  for (let i = 0; i < 300; i += 1) {
    const delivered = new Promise<number>((resolve) => listener.once('message', () => resolve(now())));
    const sent = now();
    await probe.publish('bench:baseline', String(i));
    deliveries.push((await delivered) - sent);
  }
  listener.disconnect();
  const jobs = createKubernetesJobs({ namespace: config.kubernetes.namespace, env });
  const creations: number[] = [];
  for (let i = 0; i < 100; i += 1) {
    const spec = buildJobSpec(payloadsFor(900_000 + i, 1)[0]!, config, env);
    const sent = now();
    await jobs.create(spec);
    creations.push(now() - sent);
  }
  return {
    redisPingMs: summary(pings),
    pubSubDeliveryMs: summary(deliveries),
    jobCreateMs: summary(creations),
  };
}

async function main(): Promise<void> {
  const redis = await startRedis();
  const serverCommands = countClientCommands();
  const fake = await startFakeKubernetesProcess(redis.url);
  const probe = new Redis(redis.url);
  const config = rawConfigSchema.parse({
    kubernetes: { image: 'ghcr.io/acme/reviewbot:bench', namespace: fake.namespace },
    store: { url: redis.url },
    agent: { provider: 'anthropic' },
    reviewer: { bot_username: 'review-bot' },
  });
  const env = { KUBECONFIG: fake.kubeconfigPath };
  const baseline = await baselines(redis.url, probe, config, env);
  // The real Kubernetes client, with the time of each create call noted.
  const createCalls = new Map<string, number>();
  const client = createKubernetesJobs({ namespace: config.kubernetes.namespace, env });
  const jobs: KubernetesJobs = {
    ...client,
    create(spec) {
      createCalls.set(spec.metadata?.labels?.[JOB_ID_LABEL] ?? '', Date.now());
      return client.create(spec);
    },
  };
  const startRunner = async (gate?: CreationGateOptions) => {
    const runner = createClusterJobRunner({
      config,
      env,
      jobs,
      logger: silentLogger(),
      metrics: createMetrics({ defaultMetrics: false }),
      masker: new SecretMasker([]),
      gate,
    });
    await runner.start();
    return runner;
  };
  const runner = await startRunner(GATE_CONCURRENCY ? { concurrency: GATE_CONCURRENCY } : undefined);
  const rig: Rig = { runner, fake: fake.child, probe, serverCommands, createCalls };
  // Warm-up (not reported), so the first measured phase does not pay for compiling the code paths.
  await runPhase(rig, 30_001, Math.ceil(KEYS / 5));
  log(`burst: ${KEYS} keys × ${JOBS_PER_KEY} jobs, every Job completing at once`);
  const burst = await runPhase(rig, 1);
  log(`burst: p99 ${burst.signalToNextJobMs.p99} ms, ${burst.jobsPerSecond} jobs/s`);
  await ask(fake.child, { type: 'spread', maxDelayMs: SPREAD_MS }, 'spread');
  log(`spread: the same, each Job completing 0–${SPREAD_MS} ms after it starts`);
  const spread = await runPhase(rig, 10_001);
  log(`spread: p99 ${spread.signalToNextJobMs.p99} ms, ${spread.jobsPerSecond} jobs/s`);
  await runner.shutdown(1000);
  await ask(fake.child, { type: 'spread', maxDelayMs: 0 }, 'spread');
  log('baseline: the burst again with every Job start sent at once (no creation gate)');
  const ungatedRunner = await startRunner({ concurrency: UNBOUNDED });
  const ungated = await runPhase({ ...rig, runner: ungatedRunner }, 20_001);
  log(`baseline: p99 ${ungated.signalToNextJobMs.p99} ms, ${ungated.jobsPerSecond} jobs/s`);
  const ok = (phase: typeof burst) =>
    phase.stalledKeys === 0 && phase.outOfOrder === 0 && phase.duplicateJobs === 0;
  const result = {
    keys: KEYS,
    jobsPerKey: JOBS_PER_KEY,
    burst,
    spread: { completionSpreadMs: SPREAD_MS, ...spread },
    baseline: {
      ...baseline,
      burstWithoutCreationGate: {
        signalToNextJobMs: ungated.signalToNextJobMs,
        submitToFirstJobMs: ungated.submitToFirstJobMs,
        jobsPerSecond: ungated.jobsPerSecond,
        serverCpuMsPerJob: ungated.serverCpuMsPerJob,
      },
    },
    targets: { signalToNextJobP99Ms: TARGET_P99_MS, stalledKeys: 0 },
    pass: {
      burst: ok(burst) && burst.signalToNextJobMs.p99 <= TARGET_P99_MS,
      spread: ok(spread) && spread.signalToNextJobMs.p99 <= TARGET_P99_MS,
    },
  };
  process.stdout.write(`${JSON.stringify(result)}\n`);
  await ungatedRunner.shutdown(1000);
  probe.disconnect();
  await ask(fake.child, { type: 'close' }, 'close');
  await redis.stop();
  if (!ok(burst) || !ok(spread) || !ok(ungated)) process.exitCode = 1;
}

await main();
