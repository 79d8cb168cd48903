/** Maps failures of Azure DevOps API calls to the project's error classes, without the token. */
import { AuthError, PlatformError } from '../../errors.js';
import { AzureHttpError, toAzureHttpError } from './client.js';

/**
 * `error` as `AuthError` (401, and 203: Azure DevOps answers a sign-in page with 203 for a bad PAT)
 * or `PlatformError` (`retryable` on 429, 5xx and unreachable), with `what` the bot was trying to do.
 */
export function toPlatformError(error: unknown, what: string): Error {
  if (error instanceof AuthError || error instanceof PlatformError) return error;
  const { status, message } = error instanceof AzureHttpError ? error : toAzureHttpError(error);
  if (status === 401 || status === 203) {
    return new AuthError(
      `Azure DevOps rejected the credentials while trying to ${what} (${status} ${message}); check AZURE_DEVOPS_TOKEN (expired or revoked?) and AZURE_DEVOPS_URL`,
      { cause: error },
    );
  }
  if (status === undefined) {
    return new PlatformError(
      `Azure DevOps unreachable or answered unexpectedly while trying to ${what}: ${message}; check AZURE_DEVOPS_URL`,
      { retryable: true, cause: error },
    );
  }
  const hint =
    status === 404
      ? ' (not found, or the token cannot see it)'
      : status === 403
        ? ' (forbidden: see docs/azure-devops.md for the scopes each bot needs)'
        : '';
  return new PlatformError(`Azure DevOps API error while trying to ${what}: ${status} ${message}${hint}`, {
    status,
    retryable: status >= 500 || status === 429,
    cause: error,
  });
}

/** How each platform method calls the API: `fn` with failures mapped by `toPlatformError`. */
export type AzureCall = <T>(what: string, fn: () => Promise<T>) => Promise<T>;

/** The `AzureCall` of the platform. */
export const call: AzureCall = async (what, fn) => {
  try {
    return await fn();
  } catch (error) {
    throw toPlatformError(error, what);
  }
};
