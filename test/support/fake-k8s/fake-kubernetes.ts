/**
 * `startFakeKubernetes`: a real `node:http` server on 127.0.0.1 that answers the `batch/v1` Job
 * calls like a Kubernetes API server (validating every Job against the official schema), and runs
 * each Job by spawning its container command locally with the Job's env and `envFrom` Secrets.
 * Clients reach it through the kubeconfig file it writes (`KUBECONFIG=fake.kubeconfigPath`).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { V1Job } from '@kubernetes/client-node';
import { createApiListener, statusBody, type ApiAnswer } from './api-server.js';
import { createJobController, randomSuffix, type JobState } from './job-controller.js';
import { applyDefaults, defaultRunCommand, kubeconfig } from './job-defaults.js';
import type { PodProcess } from './pod-process.js';
import type {
  FakeFault,
  FakeJobEvent,
  FakeJobRun,
  FakeKubernetes,
  FakeKubernetesOptions,
  FakeRejection,
} from './types.js';
import { isValidJobName, validateJob } from './validate-job.js';

const ROLE_VERBS = ['create', 'get', 'list', 'watch', 'delete'];

/**
 * Starts the fake on a free loopback port. Call `close()` when done: it kills every pod process,
 * closes the server and removes its temporary directory (kubeconfig, pod directories).
 */
export async function startFakeKubernetes(options: FakeKubernetesOptions = {}): Promise<FakeKubernetes> {
  const namespace = options.namespace ?? 'reviewbot';
  const token = options.token ?? randomBytes(24).toString('hex');
  const root = mkdtempSync(path.join(tmpdir(), 'fake-k8s-'));
  const secrets = new Map(Object.entries(options.secrets ?? {}).map(([k, v]) => [k, { ...v }]));
  const states = new Map<string, JobState>();
  /** Every Job ever created, deleted ones included (for `waitForFinish`). */
  const everyJob = new Map<string, JobState>();
  const jobs: V1Job[] = [];
  const runs: FakeJobRun[] = [];
  const timeline: FakeJobEvent[] = [];
  const rejections: FakeRejection[] = [];
  const requests: { method: string; path: string; status: number }[] = [];
  const faults: FakeFault[] = [];
  const live = new Set<PodProcess>();
  let version = 1000;
  let holding = false;
  const held: JobState[] = [];
  const nextVersion = (): string => String((version += 1));

  function removeJob(name: string, policy: string | undefined): boolean {
    const state = states.get(name);
    if (!state) return false;
    states.delete(name);
    controller.remove(state, policy === undefined || policy === 'Orphan');
    return true;
  }

  const controller = createJobController({
    options,
    namespace,
    secrets,
    runs,
    timeline,
    live,
    root,
    runCommand: options.runCommand ?? defaultRunCommand,
    nextVersion,
    expire: (name) => removeJob(name, 'Background'),
  });

  function create(ns: string, body: unknown, dryRun: boolean): ApiAnswer {
    const rejection = validateJob(body, ns);
    if (rejection) {
      return statusBody(rejection.status, rejection.reason, rejection.message, { causes: rejection.causes });
    }
    const job = body as V1Job;
    const meta = job.metadata ?? {};
    let name = meta.name;
    if (!name) {
      do name = `${(meta.generateName ?? '').slice(0, 58)}${randomSuffix()}`;
      while (states.has(name));
    }
    if (!isValidJobName(name)) {
      const cause = {
        reason: 'FieldValueInvalid',
        field: 'metadata.name',
        message: `Invalid value: "${name}": must be no more than 63 characters and a lowercase RFC 1123 subdomain`,
      };
      return statusBody(422, 'Invalid', `Job.batch "${name}" is invalid: metadata.name: ${cause.message}`, {
        name,
        causes: [cause],
      });
    }
    if (states.has(name))
      return statusBody(409, 'AlreadyExists', `jobs.batch "${name}" already exists`, { name });
    const stored = applyDefaults(job, name, ns, randomUUID(), nextVersion());
    if (dryRun) return { status: 201, body: stored };
    const state: JobState = {
      job: stored,
      name,
      held: false,
      finished: false,
      deleted: false,
      failures: 0,
      attempts: 0,
      timers: [],
      waiters: [],
    };
    states.set(name, state);
    everyJob.set(name, state);
    jobs.push(stored);
    if (holding) held.push(state);
    controller.admit(state, holding);
    return { status: 201, body: stored };
  }

  const server = createServer(
    createApiListener({
      token,
      namespace,
      verbs: new Set(options.verbs ?? ROLE_VERBS),
      faults,
      rejections,
      requests,
      create,
      get: (name) => states.get(name)?.job,
      list: () => [...states.values()].map((s) => s.job),
      remove: (name, policy) =>
        removeJob(name, policy)
          ? {
              status: 200,
              body: {
                kind: 'Status',
                apiVersion: 'v1',
                metadata: {},
                status: 'Success',
                details: { name, group: 'batch', kind: 'jobs' },
              },
            }
          : statusBody(404, 'NotFound', `jobs.batch "${name}" not found`, { name }),
    }),
  );
  let connections = 0;
  server.on('connection', () => {
    connections += 1;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const kubeconfigPath = path.join(root, 'kubeconfig.yaml');
  writeFileSync(kubeconfigPath, kubeconfig(url, token, namespace), { mode: 0o600 });

  function stateOf(name: string): JobState {
    const state = states.get(name);
    if (!state) throw new Error(`fake Kubernetes: no Job named ${name}`);
    return state;
  }

  function waitFor<T>(check: () => T | undefined, what: string, timeoutMs: number): Promise<T> {
    return new Promise((resolve, reject) => {
      const started = Date.now();
      const tick = (): void => {
        const value = check();
        if (value !== undefined) resolve(value);
        else if (Date.now() - started > timeoutMs)
          reject(new Error(`fake Kubernetes: timed out waiting for ${what}`));
        else setTimeout(tick, 10);
      };
      tick();
    });
  }

  return {
    url,
    token,
    namespace,
    kubeconfigPath,
    jobs,
    runs,
    timeline,
    rejections,
    requests,
    get connections() {
      return connections;
    },
    job: (name) => states.get(name)?.job,
    activeJobs: () => [...states.values()].filter((s) => !s.finished).map((s) => s.name),
    holdJobs() {
      holding = true;
    },
    releaseJobs() {
      holding = false;
      for (const state of held.splice(0)) controller.release(state);
    },
    complete(name, outcome, reason) {
      const state = stateOf(name);
      state.process?.signal('SIGKILL');
      if (outcome === 'succeeded')
        controller.finish(state, 'Complete', reason ?? 'CompletionsReached', 'Completed by the test');
      else controller.finish(state, 'Failed', reason ?? 'BackoffLimitExceeded', 'Failed by the test');
    },
    kill(name, signal = 'SIGKILL') {
      stateOf(name).process?.signal(signal);
    },
    waitForFinish(name, timeoutMs = 30_000) {
      const state = everyJob.get(name);
      if (!state) return Promise.reject(new Error(`fake Kubernetes: no Job named ${name}`));
      if (state.finished) return Promise.resolve(state.job);
      if (state.deleted) return Promise.reject(new Error(`fake Kubernetes: Job ${name} was deleted`));
      return new Promise<V1Job>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`fake Kubernetes: Job ${name} did not finish in ${timeoutMs} ms`)),
          timeoutMs,
        );
        state.waiters.push({
          resolve: (job) => (clearTimeout(timer), resolve(job)),
          reject: (error) => (clearTimeout(timer), reject(error)),
        });
      });
    },
    waitForJobs(count, timeoutMs = 30_000) {
      return waitFor(
        () => (jobs.length >= count ? jobs.slice(0, count) : undefined),
        `${count} Job(s)`,
        timeoutMs,
      );
    },
    setSecret(name, data) {
      secrets.set(name, { ...data });
    },
    failNext(fault) {
      faults.push(fault);
    },
    async close() {
      const exits: Promise<void>[] = [];
      for (const state of states.values()) for (const timer of state.timers) clearTimeout(timer);
      for (const proc of live) {
        proc.signal('SIGKILL');
        exits.push(proc.exited);
      }
      await Promise.all(exits);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(root, { recursive: true, force: true });
    },
  };
}
