/**
 * The fake's Job controller and kubelet: starts a pod per Job (retrying up to `backoffLimit`),
 * fails the Job at `activeDeadlineSeconds` (counted from its start, killing the pod), keeps
 * `status` (active/ready/succeeded/failed counts, `startTime`, `completionTime`, conditions) as the
 * real controller does, and deletes finished Jobs after `ttlSecondsAfterFinished`.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { V1Container, V1Job, V1JobCondition } from '@kubernetes/client-node';
import { buildPodEnv, expandReferences } from './pod-env.js';
import { startPodProcess, type PodProcess } from './pod-process.js';
import type { FakeJobEvent, FakeJobRun, FakeKubernetesOptions, LocalCommand } from './types.js';

/** One Job's live state. */
export interface JobState {
  job: V1Job;
  name: string;
  held: boolean;
  finished: boolean;
  deleted: boolean;
  failures: number;
  attempts: number;
  run?: FakeJobRun;
  process?: PodProcess;
  timers: NodeJS.Timeout[];
  waiters: { resolve: (job: V1Job) => void; reject: (error: Error) => void }[];
}

/** What the controller needs from the fake. */
export interface ControllerDeps {
  options: FakeKubernetesOptions;
  namespace: string;
  secrets: Map<string, Record<string, string>>;
  runs: FakeJobRun[];
  timeline: FakeJobEvent[];
  /** Every pod process still running (also orphaned ones), for `close()`. */
  live: Set<PodProcess>;
  /** The fake's temporary directory (pod directories go below it). */
  root: string;
  runCommand: (container: V1Container) => LocalCommand;
  /** Bumps and returns the resourceVersion counter. */
  nextVersion(): string;
  /** Called after a finished Job's TTL ran out: delete it. */
  expire(name: string): void;
}

const SUFFIX_CHARS = 'bcdfghjklmnpqrstvwxz2456789';

/** Random bytes drawn 4 KiB at a time (one `randomBytes` call per ~800 names, not per name). */
let randomPool = Buffer.alloc(0);
let randomAt = 0;

/** Five random characters from the API server's alphabet (`names.SimpleNameGenerator`). */
export function randomSuffix(): string {
  if (randomAt + 5 > randomPool.length) {
    randomPool = randomBytes(4096);
    randomAt = 0;
  }
  let out = '';
  for (let i = 0; i < 5; i += 1) out += SUFFIX_CHARS[(randomPool[randomAt++] ?? 0) % SUFFIX_CHARS.length];
  return out;
}

/** RFC 3339 at second precision, as the API server writes timestamps. */
export function timestamp(date: Date = new Date()): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function labelsOf(state: JobState): Record<string, string> {
  return { ...(state.job.metadata?.labels ?? {}) };
}

/** The controller of every Job of the fake. */
export function createJobController(deps: ControllerDeps) {
  const mode = deps.options.mode ?? 'spawn';

  function event(state: JobState, type: FakeJobEvent['type'], reason?: string): void {
    const entry: FakeJobEvent = { at: Date.now(), type, job: state.name, labels: labelsOf(state) };
    if (reason) entry.reason = reason;
    deps.timeline.push(entry);
  }

  function touch(state: JobState): void {
    state.job.metadata = { ...state.job.metadata, resourceVersion: deps.nextVersion() };
  }

  function graceMs(state: JobState): number {
    if (deps.options.killGraceMs !== undefined) return deps.options.killGraceMs;
    return (state.job.spec?.template.spec?.terminationGracePeriodSeconds ?? 30) * 1000;
  }

  function finish(state: JobState, type: 'Complete' | 'Failed', reason: string, message: string): void {
    if (state.finished) return;
    state.finished = true;
    for (const timer of state.timers) clearTimeout(timer);
    state.timers = [];
    const now = timestamp();
    const condition = (t: string): V1JobCondition =>
      ({
        type: t,
        status: 'True',
        reason,
        message,
        lastProbeTime: now,
        lastTransitionTime: now,
      }) as unknown as V1JobCondition;
    const status = state.job.status ?? {};
    const first = type === 'Complete' ? 'SuccessCriteriaMet' : 'FailureTarget';
    status.conditions = [...(status.conditions ?? []), condition(first), condition(type)];
    status.active = 0;
    status.ready = 0;
    if (type === 'Complete') {
      status.succeeded = 1;
      status.completionTime = now as unknown as Date;
    }
    state.job.status = status;
    touch(state);
    state.process?.stop(graceMs(state));
    event(state, type === 'Complete' ? 'succeeded' : 'failed', type === 'Failed' ? reason : undefined);
    for (const waiter of state.waiters.splice(0)) waiter.resolve(state.job);
    const ttl = state.job.spec?.ttlSecondsAfterFinished;
    if (ttl !== undefined && !state.deleted) {
      const timer = setTimeout(() => deps.expire(state.name), ttl * 1000);
      timer.unref();
    }
  }

  function podEnded(state: JobState, run: FakeJobRun): void {
    event(state, 'pod-ended');
    if (state.finished || state.deleted) return;
    const status = state.job.status ?? {};
    if (run.exitCode === 0) {
      finish(state, 'Complete', 'CompletionsReached', 'Reached expected number of succeeded pods');
      return;
    }
    state.failures += 1;
    status.failed = state.failures;
    state.job.status = status;
    touch(state);
    if (state.failures > (state.job.spec?.backoffLimit ?? 6)) {
      finish(state, 'Failed', 'BackoffLimitExceeded', 'Job has reached the specified backoff limit');
    } else setImmediate(() => startPod(state));
  }

  /** The pod's emptyDir mounts (mount path → local directory), made unless `mode` is `instant`. */
  function mountDirs(state: JobState, podDir: string): Record<string, string> {
    const pod = state.job.spec?.template.spec;
    const emptyDirs = new Set((pod?.volumes ?? []).filter((v) => v.emptyDir).map((v) => v.name));
    const mounts: Record<string, string> = {};
    for (const mount of pod?.containers[0]?.volumeMounts ?? []) {
      if (!emptyDirs.has(mount.name)) continue;
      const dir = path.join(podDir, 'volumes', mount.name);
      if (mode !== 'instant') mkdirSync(dir, { recursive: true });
      mounts[mount.mountPath] = dir;
    }
    return mounts;
  }

  function localPath(value: string, mounts: Record<string, string>): string {
    for (const [mountPath, dir] of Object.entries(mounts)) {
      if (value === mountPath) return dir;
      if (value.startsWith(`${mountPath}/`)) return path.join(dir, value.slice(mountPath.length + 1));
    }
    return value;
  }

  function startPod(state: JobState): void {
    if (state.finished || state.deleted) return;
    const container = state.job.spec?.template.spec?.containers[0];
    if (!container) return;
    state.attempts += 1;
    const podName = `${state.name}-${randomSuffix()}`;
    const podDir = path.join(deps.root, 'pods', podName);
    const home = path.join(podDir, 'home');
    // An instant pod runs no process: its directories are only named, not made.
    if (mode !== 'instant') mkdirSync(home, { recursive: true, mode: 0o555 });
    const mounts = mountDirs(state, podDir);
    const built = buildPodEnv({
      container,
      secrets: deps.secrets,
      fields: { 'metadata.name': podName, 'metadata.namespace': deps.namespace },
      baseEnv: { HOME: home, ...(deps.options.baseEnv ?? defaultBaseEnv()), HOSTNAME: podName },
    });
    const run: FakeJobRun = {
      jobName: state.name,
      podName,
      attempt: state.attempts - 1,
      command: '',
      args: [],
      env: built.ok ? built.env : {},
      mounts,
      exitCode: null,
      signal: null,
      stdout: '',
      stderr: '',
    };
    deps.runs.push(run);
    state.run = run;
    const status = state.job.status ?? {};
    status.active = 1;
    state.job.status = status;
    touch(state);
    if (!built.ok) {
      // The kubelet keeps retrying; the pod stays Pending until the Job's deadline.
      run.waitingReason = built.reason;
      run.waitingMessage = built.message;
      return;
    }
    for (const [name, value] of Object.entries(run.env)) run.env[name] = localPath(value, mounts);
    if (mounts['/tmp'] && !container.env?.some((e) => e.name === 'TMPDIR')) run.env.TMPDIR = mounts['/tmp'];
    const expand = (text: string) => expandReferences(text, (name) => run.env[name]);
    const expanded = {
      ...container,
      command: container.command?.map(expand),
      args: container.args?.map(expand),
    };
    event(state, 'pod-started');
    status.ready = 1;
    const info = { job: state.job, jobName: state.name, podName, attempt: run.attempt, env: run.env };
    if (mode === 'instant') {
      run.startedAt = new Date();
      void Promise.resolve()
        .then(() => deps.options.onPodStart?.(info))
        .then(
          () => 0,
          (error: unknown) => {
            run.stderr += `${String(error)}\n`;
            return 1;
          },
        )
        .then((code) => {
          run.exitCode = code;
          run.endedAt = new Date();
          podEnded(state, run);
        });
      return;
    }
    let local: LocalCommand;
    try {
      local = deps.runCommand(expanded);
    } catch (error) {
      run.stderr += `StartError: ${(error as Error).message}\n`;
      run.exitCode = 128;
      run.startedAt = run.endedAt = new Date();
      setImmediate(() => podEnded(state, run));
      return;
    }
    run.command = local.command;
    run.args = local.args;
    // In spawn mode the hook only observes; its failure does not change the pod.
    void Promise.resolve()
      .then(() => deps.options.onPodStart?.(info))
      .catch(() => undefined);
    const cwd = container.workingDir ? localPath(container.workingDir, mounts) : podDir;
    const proc = startPodProcess(run, cwd);
    state.process = proc;
    deps.live.add(proc);
    void proc.exited.then(() => {
      deps.live.delete(proc);
      podEnded(state, run);
    });
  }

  /** Admits a newly created Job: the controller starts it on the next tick. */
  function admit(state: JobState, holding: boolean): void {
    state.held = holding;
    event(state, 'created');
    setImmediate(() => {
      if (state.deleted) return;
      state.job.status = { ...state.job.status, startTime: timestamp() as unknown as Date, active: 1 };
      touch(state);
      const deadline = state.job.spec?.activeDeadlineSeconds;
      if (deadline !== undefined) {
        const timer = setTimeout(
          () => finish(state, 'Failed', 'DeadlineExceeded', 'Job was active longer than specified deadline'),
          deadline * 1000,
        );
        state.timers.push(timer);
      }
      if (!state.held) startPod(state);
    });
  }

  return {
    admit,
    finish,
    /** Starts a held Job's pod. */
    release(state: JobState): void {
      if (!state.held) return;
      state.held = false;
      if (state.job.status?.startTime) startPod(state);
    },
    /** Marks `state` deleted; stops its pod unless the deletion orphans it. */
    remove(state: JobState, orphan: boolean): void {
      state.deleted = true;
      for (const timer of state.timers) clearTimeout(timer);
      state.job.metadata = { ...state.job.metadata, deletionTimestamp: timestamp() as unknown as Date };
      if (!orphan) state.process?.stop(graceMs(state));
      event(state, 'deleted');
      for (const waiter of state.waiters.splice(0)) waiter.reject(new Error(`Job ${state.name} was deleted`));
    },
  };
}

/** The image environment used when `baseEnv` is not given: this Node first on PATH, UTF-8. */
export function defaultBaseEnv(): NodeJS.ProcessEnv {
  return {
    PATH: [path.dirname(process.execPath), process.env.PATH ?? '/usr/bin:/bin'].join(path.delimiter),
    LANG: 'C.UTF-8',
  };
}

/** The controller's type. */
export type JobController = ReturnType<typeof createJobController>;
