/** Maps Octokit request errors to the project's error classes, without leaking credentials. */
import { mapPlatformFailure, type PlatformErrorNames } from '../http-errors.js';

interface RequestErrorLike {
  status?: number;
  message?: string;
  response?: { data?: unknown };
}

const NAMES: PlatformErrorNames = {
  platform: 'GitHub',
  credentialsHint: 'CODEHOST_TOKEN or the GitHub App settings',
  forbiddenHint: 'forbidden: missing permission?',
};

/**
 * Converts an error thrown by Octokit into `AuthError` (401) or `PlatformError` (`retryable` for
 * 5xx, 429 and network errors; GitHub's `errors` array appended to the message). `what` names the
 * operation, e.g. "fetch pull request".
 */
export function toPlatformError(error: unknown, what: string): Error {
  const e = (error ?? {}) as RequestErrorLike;
  const status = typeof e.status === 'number' ? e.status : undefined;
  const data = e.response?.data as { message?: unknown; errors?: unknown } | undefined;
  const message = typeof data?.message === 'string' ? data.message : (e.message ?? String(error));
  const detail = Array.isArray(data?.errors)
    ? ` (${data.errors.map((x) => (typeof x === 'string' ? x : JSON.stringify(x))).join('; ')})`
    : undefined;
  return mapPlatformFailure(NAMES, error, { status, message, detail }, what);
}
