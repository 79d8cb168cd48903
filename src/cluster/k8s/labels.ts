/**
 * Names and labels of reviewbot's Kubernetes Jobs (CONTRACT §10): the repository slug, the
 * `generateName` prefix and the labels the server uses to find a job's Job again. Pure functions.
 *
 * Kubernetes rules applied here come from apimachinery's validation
 * (`k8s.io/apimachinery/pkg/util/validation`): a label value is at most 63 characters, empty or
 * `[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?`; the API server keeps at most 58 characters of a
 * `generateName` and appends 5 random ones (`names.SimpleNameGenerator`).
 */
import type { JobPayload } from '../../jobs/types.js';

/** Label: the platform name (`github` | `gitlab`). */
export const LABEL_PLATFORM = 'reviewbot/platform';
/** Label: the repository slug of `repoSlug`. */
export const LABEL_REPO = 'reviewbot/repo';
/** Label: the pull request number, decimal. */
export const LABEL_PR_NUMBER = 'reviewbot/pr-number';
/** Label: the JobPayload's `jobId`, for idempotent look-up after a server restart. */
export const LABEL_JOB_ID = 'reviewbot/job-id';
/** Label: `worker` | `reviewer`. */
export const LABEL_BOT_TYPE = 'reviewbot/bot-type';
/** Label on every Job and Job pod reviewbot creates (`app.kubernetes.io/name=reviewbot`). */
export const LABEL_APP_NAME = 'app.kubernetes.io/name';
/** Label: `job` on Job pods (the server's Deployment uses `server`). */
export const LABEL_APP_COMPONENT = 'app.kubernetes.io/component';

/** Longest label value, characters (apimachinery `LabelValueMaxLength`). */
export const MAX_LABEL_VALUE_LENGTH = 63;
/** Longest `generateName` the API server keeps, characters (63 − 5 random characters). */
export const MAX_GENERATE_NAME_LENGTH = 58;

const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

/** True when `value` is a valid Kubernetes label value (empty allowed, ≤ 63 characters). */
export function isValidLabelValue(value: string): boolean {
  return value.length <= MAX_LABEL_VALUE_LENGTH && LABEL_VALUE.test(value);
}

/**
 * The repository slug (CONTRACT §10): `<owner>-<repo>` lowercased, every character other than
 * `a-z0-9-` replaced by `-`, cut to 63 characters, leading and trailing dashes removed so the slug
 * is a valid label value. GitLab paths keep every group: `group/sub/project` → `group-sub-project`.
 */
export function repoSlug(repoFullName: string): string {
  const dashed = repoFullName.toLowerCase().replace(/[^a-z0-9-]/g, '-');
  return dashed.replace(/^-+/, '').slice(0, MAX_LABEL_VALUE_LENGTH).replace(/-+$/, '');
}

/** `reviewbot-<repo-slug>-<pr>-`, cut to 58 characters (CONTRACT §10). */
export function jobGenerateName(repoFullName: string, prNumber: number): string {
  return `reviewbot-${repoSlug(repoFullName)}-${prNumber}-`.slice(0, MAX_GENERATE_NAME_LENGTH);
}

/**
 * The labels of a job's Job and of its pod: platform, repo slug, pull request number, job id, bot
 * type, and `app.kubernetes.io/name=reviewbot`, `app.kubernetes.io/component=job`.
 * @throws Error when `payload.jobId` is not a valid label value (a UUID always is).
 */
export function jobLabels(payload: JobPayload): Record<string, string> {
  if (!isValidLabelValue(payload.jobId) || payload.jobId === '') {
    throw new Error(`job id ${JSON.stringify(payload.jobId)} cannot be a Kubernetes label value`);
  }
  return {
    [LABEL_APP_NAME]: 'reviewbot',
    [LABEL_APP_COMPONENT]: 'job',
    [LABEL_PLATFORM]: payload.comment.platform,
    [LABEL_REPO]: repoSlug(payload.comment.repoFullName),
    [LABEL_PR_NUMBER]: String(payload.comment.prNumber),
    [LABEL_JOB_ID]: payload.jobId,
    [LABEL_BOT_TYPE]: payload.botType,
  };
}

/** The label selector that finds the Job of `jobId`: `reviewbot/job-id=<jobId>`. */
export function jobIdSelector(jobId: string): string {
  return `${LABEL_JOB_ID}=${jobId}`;
}
