/**
 * The one mapping of a platform API failure to the project's error classes, shared by every
 * platform's `errors.ts` so each names only what differs (its name, variables and hints).
 */
import { AuthError, PlatformError } from '../errors.js';

/** How a platform names itself and its settings in error messages. */
export interface PlatformErrorNames {
  /** Display name, e.g. "Gitea", "Bitbucket". */
  platform: string;
  /** What to check on a 401, e.g. "GITEA_TOKEN (expired or revoked?) and GITEA_URL". */
  credentialsHint: string;
  /** Appended to "unreachable" messages, e.g. "check GITEA_URL"; omitted when undefined. */
  unreachableHint?: string;
  /** Shown after a 403, e.g. "forbidden: see docs/gitea.md for the token scopes each bot needs". */
  forbiddenHint: string;
}

/** An HTTP failure as a platform client reports it: `status` undefined when nothing answered. */
export interface HttpFailure {
  status: number | undefined;
  /** The platform's message (never containing the token). */
  message: string;
  /** Extra detail appended after the message (e.g. GitHub's `errors` array). */
  detail?: string;
}

/**
 * Converts a failure into `AuthError` (401) or `PlatformError` (`status` when the platform
 * answered; `retryable` for 5xx, 429 and unreachable). `failure` is `undefined` for an error that is
 * not an HTTP failure (e.g. a body that failed schema validation): a non-retryable PlatformError.
 * Errors already of the project's classes pass through. `what` names the operation, e.g.
 * "fetch pull request o/r#3".
 */
export function mapPlatformFailure(
  names: PlatformErrorNames,
  error: unknown,
  failure: HttpFailure | undefined,
  what: string,
): Error {
  if (error instanceof AuthError || error instanceof PlatformError) return error;
  const { platform } = names;
  if (!failure) {
    const detail = error instanceof Error ? error.message : String(error);
    return new PlatformError(`${platform} API answered unexpectedly while trying to ${what}: ${detail}`, {
      cause: error,
    });
  }
  const { status, message } = failure;
  if (status === 401) {
    return new AuthError(
      `${platform} rejected the credentials while trying to ${what} (401 ${message.replace(/^401\s*/, '')}); check ${names.credentialsHint}`,
      { cause: error },
    );
  }
  if (status === undefined || status === 0) {
    const hint = names.unreachableHint ? `; ${names.unreachableHint}` : '';
    return new PlatformError(`${platform} API unreachable while trying to ${what}: ${message}${hint}`, {
      retryable: true,
      cause: error,
    });
  }
  const hint =
    status === 404
      ? ' (not found, or the token cannot see it)'
      : status === 403
        ? ` (${names.forbiddenHint})`
        : '';
  const text = message.startsWith(String(status)) ? message : `${status} ${message}`;
  return new PlatformError(
    `${platform} API error while trying to ${what}: ${text}${failure.detail ?? ''}${hint}`,
    { status, retryable: status >= 500 || status === 429, cause: error },
  );
}
