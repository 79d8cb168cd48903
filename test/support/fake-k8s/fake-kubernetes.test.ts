import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  defaultRunCommand,
  startFakeKubernetes,
  type FakeKubernetes,
  type FakeKubernetesOptions,
} from './index.js';
import { api, conditions, createJob, JOBS, nodeJob } from './test-kit.js';

let fake: FakeKubernetes | undefined;

afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

async function start(options: FakeKubernetesOptions = {}): Promise<FakeKubernetes> {
  fake = await startFakeKubernetes({ killGraceMs: 300, ...options });
  return fake;
}

const PRINT_ENV = `
const fs = require('node:fs');
fs.writeFileSync(require('node:path').join(process.env.WORKSPACE_BASE_DIR, 'proof.txt'), 'written');
console.log(JSON.stringify({ ...process.env, cwd: process.cwd() }));
`;

describe('startFakeKubernetes: running Jobs', () => {
  it('runs the container with its env and envFrom Secrets, volumes on temp dirs, and completes the Job', async () => {
    const k8s = await start({
      secrets: { 'reviewbot-secrets': { API_KEY: 'sk-secret', SHARED: 'from-secret', 'bad key': 'x' } },
    });
    const job = nodeJob(PRINT_ENV, {
      container: {
        envFrom: [{ secretRef: { name: 'reviewbot-secrets' } }],
        env: [
          { name: 'SHARED', value: 'from-env' },
          { name: 'WORKSPACE_BASE_DIR', value: '/workspace' },
          { name: 'PAYLOAD', value: 'literal $$(API_KEY) and ref $(SHARED)' },
          { name: 'POD', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
        ],
      },
    });
    const name = await createJob(k8s, job);
    expect(name).toMatch(/^reviewbot-acme-widgets-7-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    const done = await k8s.waitForFinish(name);
    expect(conditions(done)).toEqual([
      'SuccessCriteriaMet:CompletionsReached',
      'Complete:CompletionsReached',
    ]);
    expect(done.status).toMatchObject({ succeeded: 1, active: 0 });
    const run = k8s.runs[0];
    expect(run?.exitCode).toBe(0);
    const env = JSON.parse(run?.stdout ?? '{}') as Record<string, string>;
    expect(env.API_KEY).toBe('sk-secret');
    expect(env.SHARED).toBe('from-env');
    // `$(SHARED)` sees the variables defined before it: the env entry overrode the Secret's.
    expect(env.PAYLOAD).toBe('literal $(API_KEY) and ref from-env');
    expect(env.POD).toBe(run?.podName);
    expect(env.HOSTNAME).toBe(run?.podName);
    expect(env).not.toHaveProperty('bad key');
    expect(env.KUBECONFIG).toBeUndefined();
    expect(env.WORKSPACE_BASE_DIR).toBe(run?.mounts['/workspace']);
    expect(env.TMPDIR).toBe(run?.mounts['/tmp']);
    expect(existsSync(path.join(env.WORKSPACE_BASE_DIR ?? '', 'proof.txt'))).toBe(true);
    expect(k8s.timeline.map((e) => e.type)).toEqual(['created', 'pod-started', 'pod-ended', 'succeeded']);
    expect(k8s.rejections).toEqual([]);
  });

  it('retries a failing pod up to backoffLimit, then fails the Job', async () => {
    const k8s = await start();
    const name = await createJob(
      k8s,
      nodeJob('console.error("boom"); process.exit(3)', { spec: { backoffLimit: 2 } }),
    );
    const done = await k8s.waitForFinish(name);
    expect(conditions(done)).toEqual(['FailureTarget:BackoffLimitExceeded', 'Failed:BackoffLimitExceeded']);
    expect(done.status?.failed).toBe(3);
    expect(k8s.runs.map((r) => [r.attempt, r.exitCode, r.stderr.trim()])).toEqual([
      [0, 3, 'boom'],
      [1, 3, 'boom'],
      [2, 3, 'boom'],
    ]);
  });

  it('kills the pod at activeDeadlineSeconds (SIGKILL after the grace period) and fails the Job', async () => {
    const k8s = await start();
    const started = Date.now();
    const script =
      'process.on("SIGTERM", () => console.log("term")); setInterval(() => {}, 1000); console.log("up")';
    const name = await createJob(k8s, nodeJob(script, { spec: { activeDeadlineSeconds: 1 } }));
    const done = await k8s.waitForFinish(name);
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(conditions(done)).toEqual(['FailureTarget:DeadlineExceeded', 'Failed:DeadlineExceeded']);
    await waitUntil(() => k8s.runs[0]?.endedAt !== undefined);
    expect(k8s.runs[0]?.signal).toBe('SIGKILL');
    expect(k8s.runs[0]?.stdout).toContain('term');
  });

  it('leaves a pod with a missing Secret waiting (CreateContainerConfigError) until the deadline', async () => {
    const k8s = await start();
    const job = nodeJob('process.exit(0)', {
      spec: { activeDeadlineSeconds: 1 },
      container: { envFrom: [{ secretRef: { name: 'reviewbot-secrets' } }] },
    });
    const name = await createJob(k8s, job);
    await waitUntil(() => k8s.runs.length === 1);
    expect(k8s.runs[0]).toMatchObject({
      waitingReason: 'CreateContainerConfigError',
      waitingMessage: 'secret "reviewbot-secrets" not found',
    });
    expect(k8s.job(name)?.status?.active).toBe(1);
    const done = await k8s.waitForFinish(name);
    expect(conditions(done)).toEqual(['FailureTarget:DeadlineExceeded', 'Failed:DeadlineExceeded']);
    expect(k8s.runs[0]?.startedAt).toBeUndefined();
    expect(k8s.runs).toHaveLength(1);
  });

  it('holds Jobs until released, and lets a test end one', async () => {
    const k8s = await start();
    k8s.holdJobs();
    const first = await createJob(k8s, nodeJob('process.exit(0)'));
    const second = await createJob(k8s, nodeJob('setInterval(() => {}, 1000)'));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(k8s.runs).toHaveLength(0);
    expect(k8s.activeJobs()).toEqual([first, second]);
    k8s.releaseJobs();
    await k8s.waitForFinish(first);
    await waitUntil(() => k8s.runs[1]?.startedAt !== undefined);
    k8s.complete(second, 'failed', 'Crashed');
    expect(conditions(k8s.job(second))).toEqual(['FailureTarget:Crashed', 'Failed:Crashed']);
    await waitUntil(() => k8s.runs[1]?.endedAt !== undefined);
    expect(k8s.runs[1]?.signal).toBe('SIGKILL');
    expect(k8s.activeJobs()).toEqual([]);
  });

  it('a killed pod fails its Job like a crash', async () => {
    const k8s = await start();
    const name = await createJob(k8s, nodeJob('setInterval(() => {}, 1000)'));
    await waitUntil(() => k8s.runs[0]?.startedAt !== undefined);
    k8s.kill(name);
    expect(conditions(await k8s.waitForFinish(name))).toEqual([
      'FailureTarget:BackoffLimitExceeded',
      'Failed:BackoffLimitExceeded',
    ]);
  });

  it('deletes finished Jobs after ttlSecondsAfterFinished', async () => {
    const k8s = await start();
    const name = await createJob(k8s, nodeJob('process.exit(0)', { spec: { ttlSecondsAfterFinished: 0 } }));
    await k8s.waitForFinish(name).catch(() => undefined);
    await waitUntil(() => k8s.job(name) === undefined);
    expect((await api(k8s, 'GET', `${JOBS}/${name}`)).status).toBe(404);
    expect(k8s.jobs[0]?.metadata?.deletionTimestamp).toBeDefined();
  });

  it('orphans the pod on a delete without propagationPolicy, stops it with Background', async () => {
    const k8s = await start();
    const orphaned = await createJob(k8s, nodeJob('setTimeout(() => process.exit(0), 400)'));
    const stopped = await createJob(k8s, nodeJob('setInterval(() => {}, 1000)'));
    await waitUntil(() => k8s.runs.length === 2 && k8s.runs.every((r) => r.startedAt));
    expect((await api(k8s, 'DELETE', `${JOBS}/${orphaned}`)).status).toBe(200);
    expect((await api(k8s, 'DELETE', `${JOBS}/${stopped}?propagationPolicy=Background`)).status).toBe(200);
    await waitUntil(() => k8s.runs.every((r) => r.endedAt));
    const byJob = Object.fromEntries(k8s.runs.map((r) => [r.jobName, r]));
    expect(byJob[orphaned]).toMatchObject({ exitCode: 0, signal: null });
    expect(byJob[stopped]?.signal).toBe('SIGTERM');
  });

  it('completes Jobs at once without spawning in instant mode', async () => {
    const seen: string[] = [];
    const k8s = await start({ mode: 'instant', onPodStart: (pod) => void seen.push(pod.env.MARK ?? '') });
    const names: string[] = [];
    for (let i = 0; i < 20; i += 1) {
      names.push(
        await createJob(k8s, nodeJob('not run', { container: { env: [{ name: 'MARK', value: `m${i}` }] } })),
      );
    }
    for (const name of names)
      expect(conditions(await k8s.waitForFinish(name, 5_000))).toContain('Complete:CompletionsReached');
    expect(seen).toEqual(names.map((_n, i) => `m${i}`));
    expect(k8s.runs.every((r) => r.command === '' && r.exitCode === 0)).toBe(true);
  });

  it('runs `reviewbot` from the built CLI (npm run build first)', async () => {
    const k8s = await start();
    const job = nodeJob('');
    Object.assign(job.spec?.template.spec?.containers[0] ?? {}, { command: ['reviewbot', '--help'] });
    const name = await createJob(k8s, job);
    expect(conditions(await k8s.waitForFinish(name))).toContain('Complete:CompletionsReached');
    expect(k8s.runs[0]?.stdout).toContain('Usage: reviewbot');
  });

  it('maps reviewbot to the built CLI and node to this Node', () => {
    const cli = defaultRunCommand({ name: 'job', command: ['reviewbot', 'run-job'] });
    expect(cli.command).toBe(process.execPath);
    expect(cli.args[0]?.endsWith(path.join('dist', 'src', 'cli', 'index.js'))).toBe(true);
    expect(cli.args.slice(1)).toEqual(['run-job']);
    expect(defaultRunCommand({ name: 'job', command: ['node'], args: ['-v'] })).toEqual({
      command: process.execPath,
      args: ['-v'],
    });
  });
});

async function waitUntil(check: () => unknown, timeoutMs = 10_000): Promise<void> {
  const started = Date.now();
  while (!check()) {
    if (Date.now() - started > timeoutMs) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
