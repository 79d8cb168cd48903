/** Maps failures of Bitbucket Cloud API calls to the project's error classes, without the token. */
import { AuthError, PlatformError } from '../../errors.js';
import { BitbucketHttpError } from './client.js';

/**
 * `error` as `AuthError` (401) or `PlatformError` (`retryable` on 429, 5xx and unreachable), with
 * `what` the bot was trying to do.
 */
export function toPlatformError(error: unknown, what: string): Error {
  if (error instanceof AuthError || error instanceof PlatformError) return error;
  if (!(error instanceof BitbucketHttpError)) {
    const detail = error instanceof Error ? error.message : String(error);
    return new PlatformError(`Bitbucket API answered unexpectedly while trying to ${what}: ${detail}`, {
      cause: error,
    });
  }
  const { status, message } = error;
  if (status === 401) {
    return new AuthError(
      `Bitbucket rejected the credentials while trying to ${what} (401 ${message}); check BITBUCKET_TOKEN (expired or revoked?) and BITBUCKET_API_URL`,
      { cause: error },
    );
  }
  if (status === undefined) {
    return new PlatformError(
      `Bitbucket API unreachable while trying to ${what}: ${message}; check BITBUCKET_API_URL`,
      { retryable: true, cause: error },
    );
  }
  const hint =
    status === 404
      ? ' (not found, or the token cannot see it)'
      : status === 403
        ? ' (forbidden: see docs/bitbucket.md for the scopes each bot needs)'
        : '';
  return new PlatformError(`Bitbucket API error while trying to ${what}: ${status} ${message}${hint}`, {
    status,
    retryable: status >= 500 || status === 429,
    cause: error,
  });
}

/** How each platform method calls the API: `fn` with failures mapped by `toPlatformError`. */
export type BitbucketCall = <T>(what: string, fn: () => Promise<T>) => Promise<T>;

/** The `BitbucketCall` of the platform. */
export const call: BitbucketCall = async (what, fn) => {
  try {
    return await fn();
  } catch (error) {
    throw toPlatformError(error, what);
  }
};
