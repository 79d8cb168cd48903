/** Maps failures of Gitea API calls to the project's error classes, without leaking the token. */
import { AuthError, PlatformError } from '../../errors.js';
import { GiteaHttpError } from './http.js';

/**
 * Converts an error thrown while calling Gitea into `AuthError` (401: a missing, expired or revoked
 * token; Gitea answers `{"message":"token is required"}` or `"user does not exist"`) or
 * `PlatformError` (`status` when Gitea answered; `retryable` for 5xx, 429, network errors and
 * timeouts). Anything else (e.g. a body that failed schema validation) becomes a non-retryable
 * PlatformError. `what` names the operation, e.g. "fetch pull request o/r#3".
 */
export function toPlatformError(error: unknown, what: string): Error {
  if (error instanceof AuthError || error instanceof PlatformError) return error;
  if (!(error instanceof GiteaHttpError)) {
    const detail = error instanceof Error ? error.message : String(error);
    return new PlatformError(`Gitea API answered unexpectedly while trying to ${what}: ${detail}`, {
      cause: error,
    });
  }
  const { status, message } = error;
  if (status === 401) {
    return new AuthError(
      `Gitea rejected the credentials while trying to ${what} (401 ${message}); check GITEA_TOKEN (expired or revoked?) and GITEA_URL`,
      { cause: error },
    );
  }
  if (status === undefined) {
    return new PlatformError(`Gitea API unreachable while trying to ${what}: ${message}; check GITEA_URL`, {
      retryable: true,
      cause: error,
    });
  }
  const hint =
    status === 404
      ? ' (not found, or the token cannot see it)'
      : status === 403
        ? ' (forbidden: see docs/gitea.md for the token scopes each bot needs)'
        : '';
  return new PlatformError(`Gitea API error while trying to ${what}: ${status} ${message}${hint}`, {
    status,
    retryable: status >= 500 || status === 429,
    cause: error,
  });
}
