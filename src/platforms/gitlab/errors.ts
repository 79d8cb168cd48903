/** Maps failures of GitLab API calls to the project's error classes, without leaking the token. */
import { mapPlatformFailure, type PlatformErrorNames } from '../http-errors.js';
import { GitLabHttpError } from './requester.js';

const NAMES: PlatformErrorNames = {
  platform: 'GitLab',
  credentialsHint: 'GITLAB_TOKEN (expired or revoked?) and GITLAB_URL',
  unreachableHint: 'check GITLAB_URL',
  forbiddenHint: 'forbidden: the token needs the `api` scope and at least Reporter access to the project',
};

/**
 * Converts an error thrown while calling GitLab into `AuthError` (401: GitLab answers
 * `{"message":"401 Unauthorized"}` for a missing, expired or revoked token) or `PlatformError`
 * (`status` set when GitLab answered; `retryable` for 5xx, 429, network errors and timeouts).
 * Anything else (e.g. a response that failed schema validation) becomes a non-retryable
 * PlatformError. `what` names the operation, e.g. "fetch merge request g/p!3".
 */
export function toPlatformError(error: unknown, what: string): Error {
  return mapPlatformFailure(NAMES, error, error instanceof GitLabHttpError ? error : undefined, what);
}
