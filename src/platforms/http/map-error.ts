/**
 * The one mapping of a failed platform API call to the project's errors: `AuthError` for rejected
 * credentials, `PlatformError` for everything else, each message naming the platform, what the bot
 * was doing and what to check, with the platform's token masked. Each platform only names itself
 * (`PlatformHttpNames`); the HTTP layer below has already retried what was worth retrying.
 */
import { AuthError, PlatformError } from '../../errors.js';
import { SecretMasker } from '../../secrets.js';
import { PlatformHttpError } from './http-error.js';
import { NetworkError } from './platform-fetch.js';
import { parseRetryAfter } from './retry-policy.js';

/** How a platform names itself and its settings in error messages. */
export interface PlatformHttpNames {
  /** Display name, e.g. "Gitea", "Bitbucket Data Center". */
  platform: string;
  /** The variable holding the API URL, named when the API cannot be reached, e.g. "GITEA_URL". */
  urlVariable: string;
  /** What to check when the credentials are rejected, e.g. "GITEA_TOKEN (expired or revoked?) and GITEA_URL". */
  credentialsHint: string;
  /** Shown after a 403, e.g. "forbidden: see docs/gitea.md for the token scopes each bot needs". */
  forbiddenHint: string;
  /** Statuses meaning rejected credentials (default 401; Azure DevOps answers a bad PAT with 203 too). */
  authStatuses?: readonly number[];
  /** Reads an API library's own error (Octokit's `RequestError`, …) as a status and message. */
  httpFailureOf?: (error: unknown) => { status: number; message: string; retryAfter?: string } | undefined;
}

/** Runs an API call, mapping its failure with `toPlatformError` (`what`: "fetch pull request o/r#3"). */
export type PlatformCall = <T>(what: string, fn: () => Promise<T>) => Promise<T>;

/** `error` or the first error along its cause chain that `test` accepts. */
function findInChain<T>(error: unknown, test: (e: unknown) => e is T): T | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 6 && current !== null && typeof current === 'object'; depth++) {
    if (test(current)) return current;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

const isNetwork = (e: unknown): e is NetworkError => e instanceof NetworkError;
const isAbort = (e: unknown): e is Error =>
  e instanceof Error && (e.name === 'AbortError' || e.name === 'TimeoutError');

/**
 * `error` as the project's error: `AuthError` (the platform's auth statuses), or `PlatformError`
 * with `status` when the platform answered. Unreachable hosts and timeouts name `urlVariable`; a 404
 * says the token may not see the thing, a 403 gives `forbiddenHint`; a 429 or 503 whose
 * `Retry-After` was longer than reviewbot waits says so. Errors already of the project's classes
 * pass through. The message is one line and holds no secret `masker` knows, nor URL credentials.
 */
export function toPlatformError(
  names: PlatformHttpNames,
  error: unknown,
  what: string,
  masker: SecretMasker = new SecretMasker(),
): Error {
  if (error instanceof AuthError || error instanceof PlatformError) return error;
  const clean = (text: string) =>
    masker
      .mask(text)
      .replace(/\b([a-z][a-z0-9+.-]*:\/\/)[^\s/@]+@/gi, '$1***@')
      .replace(/\s*\n\s*/g, ' ');
  const { platform, urlVariable } = names;
  const network = findInChain(error, isNetwork);
  if (network) {
    const verb = network.code === 'TIMEOUT' ? 'did not answer' : 'unreachable';
    return new PlatformError(
      clean(
        `${platform} API ${verb} while trying to ${what} (${network.message}): check the network or ${urlVariable}`,
      ),
      { cause: error },
    );
  }
  const aborted = findInChain(error, isAbort);
  if (aborted) {
    const verb = aborted.name === 'TimeoutError' ? 'timed out' : 'was aborted';
    return new PlatformError(clean(`${platform} API call ${verb} while trying to ${what}`), { cause: error });
  }
  const failure = error instanceof PlatformHttpError ? error : names.httpFailureOf?.(error);
  if (!failure) {
    const detail = error instanceof Error ? error.message : String(error);
    return new PlatformError(
      clean(`${platform} API answered unexpectedly while trying to ${what}: ${detail}`),
      {
        cause: error,
      },
    );
  }
  const { status } = failure;
  const message = failure.message.startsWith(String(status))
    ? failure.message
    : `${status} ${failure.message}`;
  if ((names.authStatuses ?? [401]).includes(status)) {
    return new AuthError(
      clean(
        `${platform} rejected the credentials while trying to ${what} (${message}); check ${names.credentialsHint}`,
      ),
      { cause: error },
    );
  }
  const waitMs =
    status === 429 || status === 503 ? parseRetryAfter(failure.retryAfter, Date.now()) : undefined;
  const hint =
    status === 404
      ? ' (not found, or the token cannot see it)'
      : status === 403
        ? ` (${names.forbiddenHint})`
        : waitMs !== undefined && waitMs > 0
          ? ` (asked to retry after ${Math.ceil(waitMs / 1000)} s, longer than reviewbot waits; try again later)`
          : '';
  return new PlatformError(clean(`${platform} API error while trying to ${what}: ${message}${hint}`), {
    status,
    cause: error,
  });
}

/** The `PlatformCall` of one platform: failures mapped with `names`, `secrets` (its token) masked. */
export function platformCall(
  names: PlatformHttpNames,
  secrets: Iterable<string | undefined> = [],
): PlatformCall {
  const masker = new SecretMasker();
  for (const secret of secrets) masker.add(secret);
  return async (what, fn) => {
    try {
      return await fn();
    } catch (error) {
      throw toPlatformError(names, error, what, masker);
    }
  };
}
