/** Maps failures of Bitbucket Data Center API calls to the project's error classes, without the token. */
import { AuthError, PlatformError } from '../../errors.js';
import { BitbucketServerHttpError } from './client.js';

/**
 * `error` as `AuthError` (401) or `PlatformError` (`retryable` on 429, 5xx and unreachable), with
 * `what` the bot was trying to do.
 */
export function toPlatformError(error: unknown, what: string): Error {
  if (error instanceof AuthError || error instanceof PlatformError) return error;
  if (!(error instanceof BitbucketServerHttpError)) {
    const detail = error instanceof Error ? error.message : String(error);
    return new PlatformError(
      `Bitbucket Data Center answered unexpectedly while trying to ${what}: ${detail}`,
      { cause: error },
    );
  }
  const { status, message } = error;
  if (status === 401) {
    return new AuthError(
      `Bitbucket Data Center rejected the credentials while trying to ${what} (401 ${message}); check BITBUCKET_SERVER_TOKEN (expired or revoked?) and BITBUCKET_SERVER_URL`,
      { cause: error },
    );
  }
  if (status === undefined) {
    return new PlatformError(
      `Bitbucket Data Center unreachable while trying to ${what}: ${message}; check BITBUCKET_SERVER_URL`,
      { retryable: true, cause: error },
    );
  }
  const hint =
    status === 404
      ? ' (not found, or the token cannot see it)'
      : status === 403
        ? ' (forbidden: see docs/bitbucket.md for the permissions each bot needs)'
        : '';
  return new PlatformError(
    `Bitbucket Data Center API error while trying to ${what}: ${status} ${message}${hint}`,
    { status, retryable: status >= 500 || status === 429, cause: error },
  );
}

/** How each platform method calls the API: `fn` with failures mapped by `toPlatformError`. */
export type BitbucketServerCall = <T>(what: string, fn: () => Promise<T>) => Promise<T>;

/** The `BitbucketServerCall` of the platform. */
export const call: BitbucketServerCall = async (what, fn) => {
  try {
    return await fn();
  } catch (error) {
    throw toPlatformError(error, what);
  }
};
