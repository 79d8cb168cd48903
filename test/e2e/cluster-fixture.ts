/**
 * Shared set-up of the cluster-mode end-to-end tests: a real `redis-server`, the fake Kubernetes API
 * (running each Job's `reviewbot run-job` as a local process with the Job's env and the
 * `reviewbot-secrets` Secret), and the serve fixture (fake GitHub, fake Anthropic, `reviewbot serve`
 * as a child process) started in cluster mode. Extra server replicas share Redis and the fake.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { V1Job } from '@kubernetes/client-node';
import { Redis } from 'ioredis';
import {
  startFakeKubernetes,
  type FakeKubernetes,
  type FakeKubernetesOptions,
} from '../support/fake-k8s/index.js';
import { startRedis, type RedisServer } from '../support/redis-server.js';
import { startServe, type ServeProcess } from '../support/serve-process.js';
import { GITHUB_TOKEN, LLM_KEY } from './cli-fixture.js';
import { createServeFixture, postComment, REVIEWER, type ServeFixture } from './serve-fixture.js';

/** The Secret Job pods get their credentials from (`kubernetes.env_from_secrets`). */
export const JOB_SECRET = 'reviewbot-secrets';
/** `kubernetes.image` of every test: setting it selects cluster mode. */
export const JOB_IMAGE = 'ghcr.io/acme/reviewbot:e2e';

/** A completion message as the test's own subscriber received it. */
export interface SeenDone {
  jobId: string;
  status: string;
  /** The pod's `finishedAt`, epoch ms (set before the record is written). */
  finishedAt: number;
  /** When the test process received the message, epoch ms. */
  receivedAt: number;
}

/** Everything a cluster test needs. */
export interface ClusterFixture extends ServeFixture {
  redis: RedisServer;
  k8s: FakeKubernetes;
  /** A command connection to the test Redis, for assertions. */
  store: Redis;
  /** Every completion message seen on `reviewbot:done`, in arrival order. */
  done: SeenDone[];
  /** Starts one more `reviewbot serve` on the same Redis and fake Kubernetes (closed by `closeAll`). */
  startReplica(extraEnv?: NodeJS.ProcessEnv): Promise<ServeProcess>;
  closeAll(): Promise<void>;
}

/** Options of `createClusterFixture`. */
export interface ClusterFixtureOptions {
  /** Redis with an append-only file, for restart tests. */
  persistentRedis?: boolean;
  /** Server env on top of the cluster defaults (e.g. `K8S_ACTIVE_DEADLINE_SECONDS`). */
  env?: NodeJS.ProcessEnv;
  k8s?: FakeKubernetesOptions;
}

/** The `reviewbot/job-id` label of a Job. */
export function jobIdOf(job: V1Job): string {
  return job.metadata?.labels?.['reviewbot/job-id'] ?? '';
}

/** The `reviewbot/pr-number` label of a Job, as a number. */
export function prOf(job: V1Job): number {
  return Number(job.metadata?.labels?.['reviewbot/pr-number']);
}

/** The JobPayload's prompt carried by a Job (its `REVIEWBOT_JOB_PAYLOAD`, `$$` unescaped). */
export function promptOf(job: V1Job): string {
  const env = job.spec?.template.spec?.containers[0]?.env ?? [];
  const value = env.find((e) => e.name === 'REVIEWBOT_JOB_PAYLOAD')?.value ?? '{}';
  return String((JSON.parse(value.replace(/\$\$/g, '$')) as { prompt?: string }).prompt ?? '');
}

/** When the fake recorded Job `name` as created, epoch ms. */
export function createdAt(k8s: FakeKubernetes, name: string): number {
  const event = k8s.timeline.find((e) => e.type === 'created' && e.job === name);
  if (!event) throw new Error(`no creation of ${name} in the fake's timeline`);
  return event.at;
}

/** How many Jobs the fake created per job id. */
export function creationsPerJobId(k8s: FakeKubernetes): Map<string, number> {
  const counts = new Map<string, number>();
  for (const job of k8s.jobs) counts.set(jobIdOf(job), (counts.get(jobIdOf(job)) ?? 0) + 1);
  return counts;
}

/** Polls the async `check` every 50 ms until it resolves truthy; throws after `timeoutMs`. */
export async function waitUntil(
  check: () => Promise<unknown>,
  timeoutMs: number,
  what = 'condition',
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Posts `@review-bot <text>` on pull request `pr` through `server` (default: the first server). */
export async function mention(
  fx: ClusterFixture,
  pr: number,
  text: string,
  server: ServeProcess = fx.server,
): Promise<void> {
  const res = await postComment({ ...fx, server }, pr, `@${REVIEWER} ${text}`);
  if (res.json.status !== 'accepted') throw new Error(`mention not accepted: ${JSON.stringify(res.json)}`);
}

/** Writes the servers' output, the pods' runs and the fake's timeline under `dir` (debugging aid). */
function dumpState(dir: string, servers: ServeProcess[], k8s: FakeKubernetes, done: SeenDone[]): void {
  const out = path.join(dir, `${process.pid}-${Date.now()}`);
  mkdirSync(out, { recursive: true });
  for (const [index, server] of servers.entries()) {
    writeFileSync(path.join(out, `server-${index}.out`), server.stdout());
    writeFileSync(path.join(out, `server-${index}.err`), server.stderr());
  }
  const runs = k8s.runs.map(({ env: _env, ...run }) => run);
  writeFileSync(path.join(out, 'runs.json'), JSON.stringify(runs, null, 1));
  writeFileSync(path.join(out, 'timeline.json'), JSON.stringify(k8s.timeline, null, 1));
  writeFileSync(path.join(out, 'done.json'), JSON.stringify(done, null, 1));
}

/**
 * The `reviewbot serve` variables of cluster mode on the fakes: Jobs of image `JOB_IMAGE` in the fake
 * Kubernetes' namespace with Secret `JOB_SECRET`, Redis at `redisUrl` as the store.
 */
export function clusterEnv(k8s: FakeKubernetes, redisUrl: string): NodeJS.ProcessEnv {
  return {
    K8S_IMAGE: JOB_IMAGE,
    K8S_NAMESPACE: k8s.namespace,
    K8S_ENV_FROM_SECRETS: JOB_SECRET,
    K8S_TTL_AFTER_FINISHED: '600',
    KUBECONFIG: k8s.kubeconfigPath,
    STORE_URL: redisUrl,
    STORE_KEY_TTL_SECONDS: '3600',
  };
}

/**
 * `clusterEnv` plus the scripted Anthropic model at `llmUrl` (key `LLM_KEY`) and workspaces and HOME
 * under `root`: what a platform's cluster e2e gives `reviewbot serve` besides its own credentials.
 */
export function clusterServeEnv(o: {
  root: string;
  llmUrl: string;
  k8s: FakeKubernetes;
  redisUrl: string;
}): NodeJS.ProcessEnv {
  return {
    AGENT_PROVIDER: 'anthropic',
    AGENT_MODEL: 'claude-test',
    ANTHROPIC_API_KEY: LLM_KEY,
    ANTHROPIC_BASE_URL: o.llmUrl,
    WORKSPACE_BASE_DIR: path.join(o.root, 'workspaces'),
    CLEANUP_INTERVAL_HOURS: '0',
    HOME: o.root,
    ...clusterEnv(o.k8s, o.redisUrl),
  };
}

/**
 * Starts Redis, the fake Kubernetes (Secret `reviewbot-secrets` holding the GitHub token and the
 * Anthropic key) and `reviewbot serve` in cluster mode. The server gets `K8S_IMAGE`, `STORE_URL`,
 * `KUBECONFIG`, `K8S_NAMESPACE`, `K8S_ENV_FROM_SECRETS` and `STORE_KEY_TTL_SECONDS=3600`.
 */
export async function createClusterFixture(options: ClusterFixtureOptions = {}): Promise<ClusterFixture> {
  const redis = await startRedis({ persistent: options.persistentRedis ?? false });
  const cleanups: Array<() => Promise<unknown>> = [() => redis.stop()];
  const closeStarted = async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  };
  try {
    const k8s = await startFakeKubernetes({
      secrets: { [JOB_SECRET]: { CODEHOST_TOKEN: GITHUB_TOKEN, ANTHROPIC_API_KEY: LLM_KEY } },
      killGraceMs: 500,
      ...options.k8s,
    });
    cleanups.push(() => k8s.close());
    const store = new Redis(redis.url, { maxRetriesPerRequest: null });
    store.on('error', () => undefined);
    cleanups.push(async () => store.disconnect());
    const subscriber = new Redis(redis.url, { maxRetriesPerRequest: null });
    subscriber.on('error', () => undefined);
    cleanups.push(async () => subscriber.disconnect());
    const done: SeenDone[] = [];
    subscriber.on('message', (_channel: string, text: string) => {
      const message = JSON.parse(text) as { jobId: string; status: string; finishedAt: string };
      done.push({
        jobId: message.jobId,
        status: message.status,
        finishedAt: Date.parse(message.finishedAt),
        receivedAt: Date.now(),
      });
    });
    await subscriber.subscribe('reviewbot:done');
    const fx = await createServeFixture({
      ...clusterEnv(k8s, redis.url),
      ...options.env,
    });
    const replicas: ServeProcess[] = [];
    return {
      ...fx,
      redis,
      k8s,
      store,
      done,
      async startReplica(extraEnv = {}) {
        const replica = await startServe({ ...fx.env, ...extraEnv });
        replicas.push(replica);
        return replica;
      },
      async closeAll() {
        const dumpDir = process.env.CLUSTER_E2E_DUMP;
        if (dumpDir) dumpState(dumpDir, [fx.server, ...replicas], k8s, done);
        for (const replica of replicas) await replica.stop('SIGKILL');
        await fx.server.stop('SIGKILL');
        await fx.closeAll();
        await closeStarted();
      },
    };
  } catch (error) {
    await closeStarted();
    throw error;
  }
}
