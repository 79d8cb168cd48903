/**
 * `createKubernetesJobs`: the server's handle on `batch/v1` Jobs in one namespace, over
 * `@kubernetes/client-node`. It uses only what the Role of `deploy/base/role.yaml` grants
 * (`batch`/`jobs`: create, get, list, delete); it reads no pods and no `jobs/status` subresource.
 */
import path from 'node:path';
import { ApiException, KubeConfig, type V1Job } from '@kubernetes/client-node';
import { ConfigError, PlatformError } from '../../errors.js';
import { kubernetesError } from './errors.js';
import { makeBatchApi, postJob } from './http-library.js';
import { isValidLabelValue, jobIdSelector } from './labels.js';
import { reuseConnections } from './reuse-connections.js';

/** Where a Job stands, from its conditions (`missing` = no such Job, e.g. deleted by its TTL). */
export type KubernetesJobStatus = 'active' | 'succeeded' | 'failed' | 'missing';

/** A Job the server created. */
export interface CreatedJob {
  /** The name the API server generated from `generateName`. */
  name: string;
  /** The Job's `creationTimestamp` (second precision), or the local time when absent. */
  createdAt: Date;
}

/** A Job found by its job id. */
export interface FoundJob extends CreatedJob {
  /** True when the Job has condition `Failed` (or `FailureTarget`) = True. */
  failed: boolean;
  /** True when the Job has condition `Complete` (or `SuccessCriteriaMet`) = True. */
  succeeded: boolean;
}

/** Jobs in one namespace. Every method throws `PlatformError` (see `kubernetesError`) on failure. */
export interface KubernetesJobs {
  readonly namespace: string;
  /**
   * Creates `spec` (e.g. from `buildJobSpec`) in the namespace; retries twice when the generated
   * name collides (HTTP 409).
   */
  create(spec: V1Job): Promise<CreatedJob>;
  /** The newest Job labelled `reviewbot/job-id=<jobId>`, or undefined. */
  findByJobId(jobId: string): Promise<FoundJob | undefined>;
  /** Where the Job `name` stands; `missing` on HTTP 404. */
  status(name: string): Promise<KubernetesJobStatus>;
  /**
   * Deletes the Job `name` and its pod (propagation `Background`). Returns false when it did not
   * exist.
   */
  delete(name: string): Promise<boolean>;
}

/** Options of `createKubernetesJobs`. */
export interface KubernetesJobsOptions {
  namespace: string;
  /** Default: `loadKubeConfig(env)`. */
  kubeConfig?: KubeConfig;
  /** Environment deciding how to reach the API (default `process.env`). */
  env?: NodeJS.ProcessEnv;
}

/**
 * Loads the API credentials: the files of `KUBECONFIG` (path-list, merged like kubectl) when set;
 * else the in-cluster ServiceAccount when `KUBERNETES_SERVICE_HOST` is set; else the client's
 * default (`~/.kube/config`, then in-cluster).
 * @throws ConfigError naming `KUBECONFIG` when one of its files cannot be read or parsed.
 */
export function loadKubeConfig(env: NodeJS.ProcessEnv = process.env): KubeConfig {
  const kc = new KubeConfig();
  const files = (env.KUBECONFIG ?? '').split(path.delimiter).filter((file) => file !== '');
  if (files.length > 0) {
    for (const [i, file] of files.entries()) {
      const one = i === 0 ? kc : new KubeConfig();
      try {
        one.loadFromFile(file);
      } catch (error) {
        // Only the error code: a YAML error quotes the file, which may hold a token.
        const reason = (error as NodeJS.ErrnoException).code ?? 'not a valid kubeconfig file';
        throw new ConfigError([`KUBECONFIG: cannot load ${file} (${reason})`]);
      }
      if (one !== kc) kc.mergeConfig(one);
    }
  } else if (env.KUBERNETES_SERVICE_HOST) {
    kc.loadFromCluster();
  } else {
    kc.loadFromDefault();
  }
  return kc;
}

function conditionTrue(job: V1Job, ...types: string[]): boolean {
  return (job.status?.conditions ?? []).some((c) => types.includes(c.type) && c.status === 'True');
}

function statusOf(job: V1Job): Exclude<KubernetesJobStatus, 'missing'> {
  if (conditionTrue(job, 'Failed', 'FailureTarget')) return 'failed';
  if (conditionTrue(job, 'Complete', 'SuccessCriteriaMet')) return 'succeeded';
  return 'active';
}

/** The Job's creation time: a Date from the generated client, an RFC 3339 string from `postJob`. */
function createdAtOf(job: V1Job): Date {
  const raw: unknown = job.metadata?.creationTimestamp;
  const at = typeof raw === 'string' ? new Date(raw) : raw;
  return at instanceof Date && !Number.isNaN(at.getTime()) ? at : new Date();
}

/**
 * Creates the Jobs handle for `options.namespace`. Building it makes no API call; credentials are
 * loaded at once (see `loadKubeConfig`). API calls share keep-alive connections
 * (`reuseConnections`) and go through undici's `request` (`makeBatchApi`).
 */
export function createKubernetesJobs(options: KubernetesJobsOptions): KubernetesJobs {
  const { namespace } = options;
  const kubeConfig = reuseConnections(options.kubeConfig ?? loadKubeConfig(options.env));
  const api = makeBatchApi(kubeConfig);

  async function create(spec: V1Job): Promise<CreatedJob> {
    const attempts = spec.metadata?.generateName && !spec.metadata.name ? 3 : 1;
    for (let attempt = 1; ; attempt += 1) {
      let job: V1Job;
      try {
        job = await postJob(kubeConfig, namespace, spec);
      } catch (error) {
        if (error instanceof ApiException && error.code === 409 && attempt < attempts) continue;
        throw kubernetesError(error, { verb: 'create', what: 'a Job', namespace });
      }
      const name = job.metadata?.name;
      if (!name) throw new PlatformError('Kubernetes API: the created Job has no name');
      return { name, createdAt: createdAtOf(job) };
    }
  }

  async function findByJobId(jobId: string): Promise<FoundJob | undefined> {
    if (!jobId || !isValidLabelValue(jobId)) return undefined;
    let items: V1Job[];
    try {
      items = (await api.listNamespacedJob({ namespace, labelSelector: jobIdSelector(jobId) })).items;
    } catch (error) {
      throw kubernetesError(error, { verb: 'list', what: `the Jobs of job ${jobId}`, namespace });
    }
    let newest: V1Job | undefined;
    for (const job of items) {
      if (!newest || createdAtOf(job) > createdAtOf(newest)) newest = job;
    }
    const name = newest?.metadata?.name;
    if (!newest || !name) return undefined;
    const status = statusOf(newest);
    return {
      name,
      createdAt: createdAtOf(newest),
      failed: status === 'failed',
      succeeded: status === 'succeeded',
    };
  }

  async function status(name: string): Promise<KubernetesJobStatus> {
    try {
      return statusOf(await api.readNamespacedJob({ namespace, name }));
    } catch (error) {
      if (error instanceof ApiException && error.code === 404) return 'missing';
      throw kubernetesError(error, { verb: 'get', what: `Job ${name}`, namespace });
    }
  }

  async function remove(name: string): Promise<boolean> {
    try {
      await api.deleteNamespacedJob({ namespace, name, propagationPolicy: 'Background' });
      return true;
    } catch (error) {
      if (error instanceof ApiException && error.code === 404) return false;
      throw kubernetesError(error, { verb: 'delete', what: `Job ${name}`, namespace });
    }
  }

  return { namespace, create, findByJobId, status, delete: remove };
}
