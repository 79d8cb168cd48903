/** Maps failures of Bitbucket Data Center API calls to the project's error classes, without the token. */
import { mapPlatformFailure, type PlatformErrorNames } from '../http-errors.js';
import { BitbucketServerHttpError } from './client.js';

const NAMES: PlatformErrorNames = {
  platform: 'Bitbucket Data Center',
  credentialsHint: 'BITBUCKET_SERVER_TOKEN (expired or revoked?) and BITBUCKET_SERVER_URL',
  unreachableHint: 'check BITBUCKET_SERVER_URL',
  forbiddenHint: 'forbidden: see docs/bitbucket.md for the permissions each bot needs',
};

/**
 * `error` as `AuthError` (401) or `PlatformError` (`retryable` on 429, 5xx and unreachable), with
 * `what` the bot was trying to do.
 */
export function toPlatformError(error: unknown, what: string): Error {
  return mapPlatformFailure(
    NAMES,
    error,
    error instanceof BitbucketServerHttpError ? error : undefined,
    what,
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
