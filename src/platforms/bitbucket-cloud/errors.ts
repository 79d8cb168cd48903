/** Maps failures of Bitbucket Cloud API calls to the project's error classes, without the token. */
import { mapPlatformFailure, type PlatformErrorNames } from '../http-errors.js';
import { BitbucketHttpError } from './client.js';

const NAMES: PlatformErrorNames = {
  platform: 'Bitbucket',
  credentialsHint: 'BITBUCKET_TOKEN (expired or revoked?) and BITBUCKET_API_URL',
  unreachableHint: 'check BITBUCKET_API_URL',
  forbiddenHint: 'forbidden: see docs/bitbucket.md for the scopes each bot needs',
};

/**
 * `error` as `AuthError` (401) or `PlatformError` (`retryable` on 429, 5xx and unreachable), with
 * `what` the bot was trying to do.
 */
export function toPlatformError(error: unknown, what: string): Error {
  return mapPlatformFailure(NAMES, error, error instanceof BitbucketHttpError ? error : undefined, what);
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
