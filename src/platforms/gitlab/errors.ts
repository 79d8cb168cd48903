/** Maps failures of GitLab API calls to the project's error classes, without leaking the token. */
import { AuthError, PlatformError } from '../../errors.js';
import { GitLabHttpError } from './requester.js';

/**
 * Converts an error thrown while calling GitLab into `AuthError` (401: GitLab answers
 * `{"message":"401 Unauthorized"}` for a missing, expired or revoked token) or `PlatformError`
 * (`status` set when GitLab answered; `retryable` for 5xx, 429, network errors and timeouts).
 * Anything else (e.g. a response that failed schema validation) becomes a non-retryable
 * PlatformError. `what` names the operation, e.g. "fetch merge request g/p!3".
 */
export function toPlatformError(error: unknown, what: string): Error {
  if (error instanceof AuthError || error instanceof PlatformError) return error;
  if (!(error instanceof GitLabHttpError)) {
    const detail = error instanceof Error ? error.message : String(error);
    return new PlatformError(`GitLab API answered unexpectedly while trying to ${what}: ${detail}`, {
      cause: error,
    });
  }
  const { status, message } = error;
  if (status === 401) {
    return new AuthError(
      `GitLab rejected the credentials while trying to ${what} (401 ${message.replace(/^401\s*/, '')}); check GITLAB_TOKEN (expired or revoked?) and GITLAB_URL`,
      { cause: error },
    );
  }
  if (status === undefined) {
    return new PlatformError(`GitLab API unreachable while trying to ${what}: ${message}; check GITLAB_URL`, {
      retryable: true,
      cause: error,
    });
  }
  const hint =
    status === 404
      ? ' (not found, or the token cannot see it)'
      : status === 403
        ? ' (forbidden: the token needs the `api` scope and at least Reporter access to the project)'
        : '';
  const text = message.startsWith(String(status)) ? message : `${status} ${message}`;
  return new PlatformError(`GitLab API error while trying to ${what}: ${text}${hint}`, {
    status,
    retryable: status >= 500 || status === 429,
    cause: error,
  });
}
