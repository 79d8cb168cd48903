/**
 * `buildJobSpec`: the `batch/v1` Job that runs one JobPayload in cluster mode, exactly as CONTRACT
 * §10 describes it. A pure function of the payload, the server's effective configuration and its
 * environment.
 */
import type { V1Container, V1Job, V1PodSpec, V1ResourceRequirements } from '@kubernetes/client-node';
import type { RawConfig } from '../../config/schema.js';
import { ConfigError } from '../../errors.js';
import type { JobPayload } from '../../jobs/types.js';
import { buildJobEnv, JOB_WORKSPACE_DIR } from './job-env.js';
import { jobGenerateName, jobLabels } from './labels.js';

/** The Job container's name. */
export const JOB_CONTAINER_NAME = 'job';
/** The Job container's command; the image puts `reviewbot` on PATH. */
export const JOB_COMMAND: readonly string[] = ['reviewbot', 'run-job'];
/** UID and GID Job pods run as (the image's non-root user, `node` in `node:22-slim`). */
export const JOB_RUN_AS_USER = 1000;

function resources(config: RawConfig): V1ResourceRequirements | undefined {
  const { requests, limits } = config.kubernetes.resources;
  const pick = (values: { cpu?: string | undefined; memory?: string | undefined }) => {
    const out: Record<string, string> = {};
    if (values.cpu) out.cpu = values.cpu;
    if (values.memory) out.memory = values.memory;
    return Object.keys(out).length > 0 ? out : undefined;
  };
  const result: V1ResourceRequirements = {};
  const req = pick(requests);
  const lim = pick(limits);
  if (req) result.requests = req;
  if (lim) result.limits = lim;
  return req || lim ? result : undefined;
}

/**
 * Builds the Job of `payload` (CONTRACT §10):
 * - metadata: `generateName: reviewbot-<repo-slug>-<pr>-` (≤ 58 characters), namespace
 *   `kubernetes.namespace`, the labels of `jobLabels` (platform, repo, pr-number, job-id, bot-type);
 * - spec: `backoffLimit`, `activeDeadlineSeconds` (s), `ttlSecondsAfterFinished` (s) from
 *   `kubernetes.*`; the pod template carries the same labels;
 * - pod: `restartPolicy: Never`, `automountServiceAccountToken: false`, `serviceAccountName` when
 *   `kubernetes.service_account` is set, `securityContext` non-root (UID/GID 1000, seccomp
 *   `RuntimeDefault`), emptyDir volumes `workspace` (/workspace) and `tmp` (/tmp); with
 *   `kubernetes.workspace_claim` (CONTRACT §19) the `workspace` volume is that
 *   PersistentVolumeClaim instead, mounted at `workspace.shared_dir` (also the job's
 *   `WORKSPACE_BASE_DIR`), so every pod shares the repositories' object stores;
 * - one container `job`: `kubernetes.image`, `imagePullPolicy` when set, `command: ["reviewbot",
 *   "run-job"]`, `env` of `buildJobEnv` (no secret), `envFrom` a `secretRef` per
 *   `kubernetes.env_from_secrets` entry, `resources` requests/limits when set, read-only root file
 *   system, no privilege escalation, every capability dropped;
 * - the tool sandbox (CONTRACT §16), unless `agent.sandbox` is `off`: `hostUsers: false` (the pod
 *   gets its own user namespace, inside which bubblewrap may create the nested user, PID and network
 *   namespaces of each Bash command) and `procMount: Unmasked` (so bubblewrap can mount a fresh
 *   `/proc` for the command's PID namespace; the runtime's masked paths otherwise forbid it). Where
 *   the node or the seccomp profile still refuses namespaces, `run-job` detects it and, under
 *   `auto`, refuses Bash with a reply (never an unsandboxed run).
 *
 * The result passes the restricted Pod Security Standard.
 * @throws ConfigError when `kubernetes.image` is unset.
 * @throws Error when `payload.jobId` cannot be a label value (see `jobLabels`).
 */
export function buildJobSpec(payload: JobPayload, config: RawConfig, env: NodeJS.ProcessEnv): V1Job {
  const k8s = config.kubernetes;
  if (!k8s.image) throw new ConfigError(['kubernetes.image: required to create Kubernetes Jobs']);
  const labels = jobLabels(payload);
  const container: V1Container = {
    name: JOB_CONTAINER_NAME,
    image: k8s.image,
    command: [...JOB_COMMAND],
    env: buildJobEnv(payload, config, env).env,
    securityContext: {
      readOnlyRootFilesystem: true,
      allowPrivilegeEscalation: false,
      runAsNonRoot: true,
      capabilities: { drop: ['ALL'] },
    },
    volumeMounts: [
      { name: 'workspace', mountPath: config.workspace.shared_dir ?? JOB_WORKSPACE_DIR },
      { name: 'tmp', mountPath: '/tmp' },
    ],
  };
  if (k8s.image_pull_policy) container.imagePullPolicy = k8s.image_pull_policy;
  if (k8s.env_from_secrets.length > 0) {
    container.envFrom = k8s.env_from_secrets.map((name) => ({ secretRef: { name } }));
  }
  const limits = resources(config);
  if (limits) container.resources = limits;

  const pod: V1PodSpec = {
    restartPolicy: 'Never',
    automountServiceAccountToken: false,
    enableServiceLinks: false,
    securityContext: {
      runAsNonRoot: true,
      runAsUser: JOB_RUN_AS_USER,
      runAsGroup: JOB_RUN_AS_USER,
      fsGroup: JOB_RUN_AS_USER,
      seccompProfile: { type: 'RuntimeDefault' },
    },
    containers: [container],
    volumes: [
      k8s.workspace_claim === undefined
        ? { name: 'workspace', emptyDir: {} }
        : { name: 'workspace', persistentVolumeClaim: { claimName: k8s.workspace_claim } },
      { name: 'tmp', emptyDir: {} },
    ],
  };
  if (k8s.service_account) pod.serviceAccountName = k8s.service_account;
  if (config.agent.sandbox !== 'off') {
    pod.hostUsers = false;
    container.securityContext = { ...container.securityContext, procMount: 'Unmasked' };
  }

  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: {
      generateName: jobGenerateName(payload.comment.repoFullName, payload.comment.prNumber),
      namespace: k8s.namespace,
      labels,
    },
    spec: {
      backoffLimit: k8s.backoff_limit,
      activeDeadlineSeconds: k8s.active_deadline_seconds,
      ttlSecondsAfterFinished: k8s.ttl_after_finished,
      template: {
        metadata: { labels: { ...labels } },
        spec: pod,
      },
    },
  };
}
