/**
 * Octokit client for GitHub: REST with pagination, retry and throttling plugins, token or GitHub App
 * installation auth (@octokit/auth-app caches installation tokens and mints a new one before the
 * cached one expires), API base from `CODEHOST_API_URL`.
 */
import { createAppAuth } from '@octokit/auth-app';
import { retry } from '@octokit/plugin-retry';
import { throttling } from '@octokit/plugin-throttling';
import { Octokit } from '@octokit/rest';
import type { Logger } from '../../logger.js';
import type { GitHubSettings } from './credentials.js';
import { scopedTokenStrategy, type TokenSource } from './scoped-token.js';

const GitHubOctokit = Octokit.plugin(retry, throttling);

/** The Octokit type used by the GitHub platform. */
export type GitHubClient = InstanceType<typeof GitHubOctokit>;

/** Options of `createGitHubClient`. */
export interface GitHubClientOptions {
  settings: GitHubSettings;
  logger: Logger;
  fetch?: typeof fetch;
  /** Retries of a failed request (5xx, network); default 2. */
  retries?: number;
  /**
   * App auth only: the token of every request (a job's scoped installation token, see
   * `scoped-token.ts`) instead of a token for the whole installation.
   */
  installationToken?: TokenSource;
}

/** Builds an authenticated Octokit for `settings`. Rate-limited requests are retried at most twice. */
export function createGitHubClient(options: GitHubClientOptions): GitHubClient {
  const { settings, logger } = options;
  const onLimit = (
    retryAfter: number,
    request: { method: string; url: string },
    _o: unknown,
    retryCount: number,
  ) => {
    logger.warn({ retryAfter, method: request.method, url: request.url }, 'GitHub rate limit hit');
    return retryCount < 2;
  };
  const common = {
    baseUrl: settings.apiUrl,
    userAgent: 'reviewbot',
    request: options.fetch ? { fetch: options.fetch } : {},
    retry: { retries: options.retries ?? 2, retryAfterBaseValue: 500 },
    throttle: { onRateLimit: onLimit, onSecondaryRateLimit: onLimit },
    // Octokit's own log lines go through ours. Its `error` lines come only from the request log
    // (`GET /repos/o/r/contents/AGENTS.md - 404 …`) for a failure that is thrown to, and reported
    // by, the caller, which also expects some (an absent optional file): debug, like each request.
    log: {
      debug: () => undefined,
      info: (message: string) => logger.debug(message),
      warn: (message: string) => logger.warn(message),
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
