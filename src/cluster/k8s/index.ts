/**
 * The Kubernetes side of cluster mode: the Job of a JobPayload (`buildJobSpec`) and the server's
 * handle on Jobs (`createKubernetesJobs`).
 */
export {
  createKubernetesJobs,
  loadKubeConfig,
  type CreatedJob,
  type FoundJob,
  type KubernetesJobStatus,
  type KubernetesJobs,
  type KubernetesJobsOptions,
} from './client.js';
export { kubernetesError, type KubernetesAction } from './errors.js';
export {
  buildJobEnv,
  escapeEnvValue,
  fitPayload,
  JOB_WORKSPACE_DIR,
  MAX_PAYLOAD_ENV_BYTES,
  withheldJobSettings,
  type JobEnv,
} from './job-env.js';
export { buildJobSpec, JOB_COMMAND, JOB_CONTAINER_NAME, JOB_RUN_AS_USER } from './job-spec.js';
export {
  isValidLabelValue,
  jobGenerateName,
  jobIdSelector,
  jobLabels,
  LABEL_BOT_TYPE,
  LABEL_JOB_ID,
  LABEL_PLATFORM,
  LABEL_PR_NUMBER,
  LABEL_REPO,
  repoSlug,
} from './labels.js';
