/** Maps Octokit request errors to the project's error classes, without leaking credentials. */
import { AuthError, PlatformError } from '../../errors.js';

interface RequestErrorLike {
  status?: number;
  message?: string;
  response?: { data?: unknown };
}

/**
 * Converts an error thrown by Octokit into `AuthError` (401, or 403 on auth) or `PlatformError`
 * (`retryable` for 5xx, 429 and network errors). `what` names the operation, e.g. "fetch pull request".
 */
export function toPlatformError(error: unknown, what: string): Error {
  if (error instanceof AuthError || error instanceof PlatformError) return error;
  const e = (error ?? {}) as RequestErrorLike;
  const status = typeof e.status === 'number' ? e.status : undefined;
  const data = e.response?.data as { message?: unknown; errors?: unknown } | undefined;
  const detail = typeof data?.message === 'string' ? data.message : (e.message ?? String(error));
  const errors = Array.isArray(data?.errors)
    ? ` (${data.errors.map((x) => (typeof x === 'string' ? x : JSON.stringify(x))).join('; ')})`
    : '';
  if (status === 401) {
    return new AuthError(
      `GitHub rejected the credentials while trying to ${what} (401 ${detail}); check CODEHOST_TOKEN or the GitHub App settings`,
      { cause: error },
    );
  }
  if (status === undefined || status === 0) {
    return new PlatformError(`GitHub API unreachable while trying to ${what}: ${detail}`, {
      retryable: true,
      cause: error,
    });
  }
  const hint =
    status === 404
      ? ' (not found, or the token cannot see it)'
      : status === 403
        ? ' (forbidden: missing permission?)'
        : '';
  return new PlatformError(`GitHub API error while trying to ${what}: ${status} ${detail}${errors}${hint}`, {
    status,
    retryable: status >= 500 || status === 429,
    cause: error,
  });
}
