/**
 * The fake Kubernetes API server for tests and benchmarks: start it with `startFakeKubernetes`, give
 * the code under test `KUBECONFIG=fake.kubeconfigPath`, then assert on `fake.jobs`, `fake.runs`,
 * `fake.timeline` and on `fake.rejections` being empty.
 */
export { startFakeKubernetes } from './fake-kubernetes.js';
export { defaultRunCommand } from './job-defaults.js';
export { parseLabelSelector, type LabelSelector } from './label-selector.js';
export { expandReferences } from './pod-env.js';
export {
  isValidJobName,
  parseQuantity,
  validateJob,
  type JobRejection,
  type StatusCause,
} from './validate-job.js';
export type * from './types.js';
