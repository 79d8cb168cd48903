/** Maps failures of Gitea API calls to the project's error classes, without leaking the token. */
import { mapPlatformFailure, type PlatformErrorNames } from '../http-errors.js';
import { GiteaHttpError } from './http.js';

const NAMES: PlatformErrorNames = {
  platform: 'Gitea',
  credentialsHint: 'GITEA_TOKEN (expired or revoked?) and GITEA_URL',
  unreachableHint: 'check GITEA_URL',
  forbiddenHint: 'forbidden: see docs/gitea.md for the token scopes each bot needs',
};

/**
 * Converts an error thrown while calling Gitea into `AuthError` (401: a missing, expired or revoked
 * token; Gitea answers `{"message":"token is required"}` or `"user does not exist"`) or
 * `PlatformError` (`status` when Gitea answered; `retryable` for 5xx, 429, network errors and
 * timeouts). Anything else (e.g. a body that failed schema validation) becomes a non-retryable
 * PlatformError. `what` names the operation, e.g. "fetch pull request o/r#3".
 */
export function toPlatformError(error: unknown, what: string): Error {
  return mapPlatformFailure(NAMES, error, error instanceof GiteaHttpError ? error : undefined, what);
}
