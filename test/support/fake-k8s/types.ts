/**
 * Public types of the fake Kubernetes API server (`startFakeKubernetes`).
 */
import type { V1Container, V1Job } from '@kubernetes/client-node';

/** How the fake runs a Job's pod. */
export type FakePodMode =
  /** Spawn the container's command as a local process (default). */
  | 'spawn'
  /**
   * Do not spawn: the pod succeeds at once (after `onPodStart`, when given); its home and emptyDir
   * paths are named in its env but not created. For benchmarks.
   */
  | 'instant';

/** A local command line for a container. */
export interface LocalCommand {
  command: string;
  args: string[];
}

/** What a pod gets when it starts (`onPodStart`, and recorded in `FakeJobRun`). */
export interface FakePodInfo {
  job: V1Job;
  jobName: string;
  podName: string;
  /** 0 for the first pod of the Job, 1 for the first retry, … */
  attempt: number;
  /** The container's resolved environment (base env + envFrom Secrets + env, `$(VAR)` expanded). */
  env: Record<string, string>;
}

/** Options of `startFakeKubernetes`. */
export interface FakeKubernetesOptions {
  /** Secrets of the namespace: name → entries (plain strings; the fake base64s them itself). */
  secrets?: Record<string, Record<string, string>>;
  /**
   * Maps a container to a local command. Default: `reviewbot …` → `node <repo>/dist/src/cli/index.js
   * …`, `node …` → this Node binary, anything else as is.
   */
  runCommand?: (container: V1Container) => LocalCommand;
  /**
   * The image's environment (like a Dockerfile's `ENV`): default PATH (this Node's directory
   * first), LANG, and HOME pointing at a per-pod directory. The container's `env`/`envFrom` win.
   */
  baseEnv?: NodeJS.ProcessEnv;
  /** The namespace whose Role the token has (default `reviewbot`); other namespaces answer 403. */
  namespace?: string;
  /** Bearer token the API accepts (default: a random one, written into the kubeconfig). */
  token?: string;
  /** Verbs the Role grants on `batch`/`jobs` (default: create, get, list, watch, delete). */
  verbs?: string[];
  /** Default `spawn`. */
  mode?: FakePodMode;
  /** Called when each pod starts (both modes); in `instant` mode a rejection fails the pod. */
  onPodStart?: (pod: FakePodInfo) => void | Promise<void>;
  /** Grace between SIGTERM and SIGKILL when a pod is stopped, ms (default: the pod's
   * `terminationGracePeriodSeconds`, else 30 s, like the kubelet). */
  killGraceMs?: number;
}

/** One pod of a Job (a Job with `backoffLimit` > 0 may have several). */
export interface FakeJobRun {
  jobName: string;
  podName: string;
  attempt: number;
  command: string;
  args: string[];
  env: Record<string, string>;
  /** Local directories standing in for the pod's emptyDir volumes: mountPath → directory. */
  mounts: Record<string, string>;
  /** Set while the container cannot start, e.g. `CreateContainerConfigError` (missing Secret). */
  waitingReason?: string;
  waitingMessage?: string;
  startedAt?: Date;
  endedAt?: Date;
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** One change in a Job's life, in order (for "never two Jobs at once" checks). */
export interface FakeJobEvent {
  /** `Date.now()` at the change, ms. */
  at: number;
  type: 'created' | 'pod-started' | 'pod-ended' | 'succeeded' | 'failed' | 'deleted';
  job: string;
  labels: Record<string, string>;
  /** For `failed`: the condition reason (`BackoffLimitExceeded`, `DeadlineExceeded`, …). */
  reason?: string;
}

/** An answer of 400 and above, kept so a test can assert none happened. */
export interface FakeRejection {
  method: string;
  path: string;
  status: number;
  message: string;
}

/** A one-shot injected answer (`failNext`). */
export interface FakeFault {
  /** `create` | `get` | `list` | `delete` | `*`. */
  verb: string;
  status: number;
  message?: string;
}

/** The running fake. */
export interface FakeKubernetes {
  /** `http://127.0.0.1:<port>`. */
  url: string;
  token: string;
  namespace: string;
  /** A kubeconfig file for this server (set `KUBECONFIG` to it). */
  kubeconfigPath: string;
  /** Every Job created, live (status updated; kept after deletion with `deletionTimestamp`). */
  jobs: V1Job[];
  /** Every pod run, in start order. */
  runs: FakeJobRun[];
  timeline: FakeJobEvent[];
  rejections: FakeRejection[];
  /** Every request: method, path with query, status. */
  requests: { method: string; path: string; status: number }[];
  /** TCP connections accepted so far. */
  readonly connections: number;
  /** The current Job `name` (undefined once deleted). */
  job(name: string): V1Job | undefined;
  /** Names of Jobs that exist and have not finished. */
  activeJobs(): string[];
  /** Newly created Jobs wait (pod pending) until `releaseJobs()`. Their deadline still runs. */
  holdJobs(): void;
  /** Starts every held Job and stops holding. */
  releaseJobs(): void;
  /** Ends Job `name` now: kills its pod (SIGKILL) and sets the outcome's conditions. */
  complete(name: string, outcome: 'succeeded' | 'failed', reason?: string): void;
  /** Kills the running pod of Job `name` with `signal` (default SIGKILL), as a crash would. */
  kill(name: string, signal?: NodeJS.Signals): void;
  /** Resolves with Job `name` once it has succeeded or failed; rejects after `timeoutMs`. */
  waitForFinish(name: string, timeoutMs?: number): Promise<V1Job>;
  /** Resolves once `count` Jobs have been created; rejects after `timeoutMs`. */
  waitForJobs(count: number, timeoutMs?: number): Promise<V1Job[]>;
  setSecret(name: string, data: Record<string, string>): void;
  /** The next request of `verb` answers `status` (a Status object with `message`). */
  failNext(fault: FakeFault): void;
  /** Stops every pod, closes the server and removes the fake's temporary files. */
  close(): Promise<void>;
}
