/**
 * Octokit client for GitHub: REST with pagination and throttling, token or GitHub App installation
 * auth (@octokit/auth-app caches installation tokens and mints a new one before the cached one
 * expires), API base from `CODEHOST_API_URL`. Requests go through the shared platform transport
 * (`../http/`), which retries 5xx, 429 and network failures by the one policy; `@octokit/plugin-retry`
 * is not used. The throttling plugin paces requests and waits out an exhausted rate limit
 * (`x-ratelimit-reset`, secondary limits), with the same attempts and cap (`allowsRateLimitRetry`).
 */
import { createAppAuth } from '@octokit/auth-app';
import { throttling } from '@octokit/plugin-throttling';
import { Octokit } from '@octokit/rest';
import type { Logger } from '../../logger.js';
import {
  allowsRateLimitRetry,
  createPlatformFetch,
  DEFAULT_RETRY_POLICY,
  type PlatformHttpNames,
  type PlatformHttpOptions,
} from '../http/index.js';
import type { GitHubSettings } from './credentials.js';
import { scopedTokenStrategy, type TokenSource } from './scoped-token.js';

const GitHubOctokit = Octokit.plugin(throttling);

/** The Octokit type used by the GitHub platform. */
export type GitHubClient = InstanceType<typeof GitHubOctokit>;

interface RequestErrorLike {
  status?: unknown;
  message?: unknown;
  response?: { data?: unknown; headers?: Record<string, unknown> };
}

/**
 * An Octokit `RequestError` that carries GitHub's answer, as a status and GitHub's message (its
 * `errors` array appended); undefined for anything else.
 */
function gitHubFailure(error: unknown): { status: number; message: string; retryAfter?: string } | undefined {
  const e = (error ?? {}) as RequestErrorLike;
  if (typeof e.status !== 'number' || !e.response) return undefined;
  const data = e.response.data as { message?: unknown; errors?: unknown } | undefined;
  const message = typeof data?.message === 'string' ? data.message : String(e.message ?? e.status);
  const detail = Array.isArray(data?.errors)
    ? ` (${data.errors.map((x) => (typeof x === 'string' ? x : JSON.stringify(x))).join('; ')})`
    : '';
  const retryAfter = e.response.headers?.['retry-after'];
  return {
    status: e.status,
    message: `${message}${detail}`,
    ...(typeof retryAfter === 'string' ? { retryAfter } : {}),
  };
}

/** How GitHub failures read (`platformCall`). */
export const GITHUB_HTTP: PlatformHttpNames = {
  platform: 'GitHub',
  urlVariable: 'CODEHOST_API_URL',
  credentialsHint: 'CODEHOST_TOKEN or the GitHub App settings',
  forbiddenHint: 'forbidden: missing permission?',
  httpFailureOf: gitHubFailure,
};

/** Options of `createGitHubClient`. */
export interface GitHubClientOptions extends PlatformHttpOptions {
  settings: GitHubSettings;
  logger: Logger;
  /**
   * App auth only: the token of every request (a job's scoped installation token, see
   * `scoped-token.ts`) instead of a token for the whole installation.
   */
  installationToken?: TokenSource;
}

/** Builds an authenticated Octokit for `settings` (no request is sent). */
export function createGitHubClient(options: GitHubClientOptions): GitHubClient {
  const { settings, logger } = options;
  const policy = { ...DEFAULT_RETRY_POLICY, ...options.retry };
  const onLimit = (
    retryAfter: number,
    request: { method: string; url: string },
    _o: unknown,
    retryCount: number,
  ) => {
    const retry = allowsRateLimitRetry(policy, retryCount, retryAfter * 1000);
    logger.warn(
      { retryAfter, method: request.method, url: request.url, retry },
      retry ? 'GitHub rate limit hit; waiting' : 'GitHub rate limit hit; not waiting that long',
    );
    return retry;
  };
  const fetch = createPlatformFetch({
    ...options,
    platform: 'GitHub',
    // An exhausted rate limit is the throttling plugin's: it reads when the limit resets.
    leaveToClient: (response) => response.headers.get('x-ratelimit-remaining') === '0',
  });
  const common = {
    baseUrl: settings.apiUrl,
    userAgent: 'reviewbot',
    request: { fetch },
    throttle: { onRateLimit: onLimit, onSecondaryRateLimit: onLimit },
    // Octokit's own log lines go through ours. Its `error` lines come only from the request log
    // (`GET /repos/o/r/contents/AGENTS.md - 404 …`) for a failure that is thrown to, and reported
    // by, the caller, which also expects some (an absent optional file): debug, like each request.
    log: {
      debug: () => undefined,
      info: (message: string) => logger.debug(message),
      warn: (message: string) => logger.warn(message),
      // Octokit logs each failed request here ("GET /… - 500 …", 500 even when nothing answered);
      // the platform's error, mapped once, says what failed and what to check.
      error: (message: string) => logger.debug(message),
    },
  };
  if (settings.auth.kind === 'token') {
    return new GitHubOctokit({ ...common, auth: settings.auth.token });
  }
  if (options.installationToken) {
    return new GitHubOctokit({
      ...common,
      authStrategy: scopedTokenStrategy,
      auth: { getToken: options.installationToken },
    });
  }
  return new GitHubOctokit({
    ...common,
    authStrategy: createAppAuth,
    auth: {
      appId: settings.auth.appId,
      privateKey: settings.auth.privateKey,
      installationId: settings.auth.installationId,
    },
  });
}
