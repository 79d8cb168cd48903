/**
 * Least-privilege GitHub App installation tokens (CONTRACT §16): each job's token is minted for its
 * one repository with the permissions of its bot type only ("Create an installation access token
 * for an app": `repositories`, `permissions`). `@octokit/auth-app` caches tokens per installation,
 * repositories and permissions, and mints a new one before the cached one expires (59 of 60 min).
 */
import type { EndpointDefaults, RequestInterface, RequestParameters, Route } from '@octokit/types';

/** The bot types whose tokens differ (CONTRACT §6). */
export type GitHubBotType = 'reviewer' | 'worker';

/**
 * Installation permissions per bot type. REVIEWER: read the code, write reviews, comments,
 * reactions and the `reviewbot` check run (CONTRACT §18); WORKER: the same plus pushing commits.
 * (`metadata: read` is always granted.)
 */
export const BOT_PERMISSIONS: Record<GitHubBotType, Record<string, 'read' | 'write'>> = {
  reviewer: { contents: 'read', pull_requests: 'write', issues: 'write', checks: 'write' },
  worker: { contents: 'write', pull_requests: 'write', issues: 'write', checks: 'write' },
};

/**
 * Permissions a job can do without: `checks` only draws the `reviewbot` check run (§18), and an App
 * installed before reviewbot asked for it has not been granted it. GitHub refuses (422) a token
 * request that asks for a permission the installation lacks, so such a request is retried without
 * these and the job runs with no check run (logged once).
 */
export const OPTIONAL_PERMISSIONS: readonly string[] = ['checks'];

/** `options` without the optional permissions (see `OPTIONAL_PERMISSIONS`). */
export function withoutOptionalPermissions<T extends { permissions: Record<string, 'read' | 'write'> }>(
  options: T,
): T {
  const permissions = Object.fromEntries(
    Object.entries(options.permissions).filter(([name]) => !OPTIONAL_PERMISSIONS.includes(name)),
  );
  return { ...options, permissions };
}

/** What a job's token is restricted to. */
export interface TokenScope {
  /** `owner/repo`; the token covers this repository only. */
  repoFullName: string;
  botType: GitHubBotType;
}

/** The installation auth options that restrict a token to `scope` (repository name without owner). */
export function scopedInstallationOptions(scope: TokenScope): {
  type: 'installation';
  repositoryNames: string[];
  permissions: Record<string, 'read' | 'write'>;
} {
  const name = scope.repoFullName.split('/').at(-1) ?? scope.repoFullName;
  return {
    type: 'installation',
    repositoryNames: [name],
    permissions: { ...BOT_PERMISSIONS[scope.botType] },
  };
}

/** Returns a token for one request (e.g. `() => appAuth(scopedInstallationOptions(scope))`). */
export type TokenSource = () => Promise<string>;

/**
 * An Octokit `authStrategy` that authenticates every request with the token of `getToken` (a
 * scoped installation token), so a job's REST calls carry no more rights than its git pushes.
 */
export function scopedTokenStrategy(options: { getToken: TokenSource }) {
  const auth = async () => ({
    type: 'token' as const,
    tokenType: 'installation' as const,
    token: await options.getToken(),
  });
  const hook = async (
    request: RequestInterface,
    route: Route | EndpointDefaults,
    parameters?: RequestParameters,
  ) => {
    const endpoint = request.endpoint.merge(route as string, parameters);
    endpoint.headers.authorization = `token ${await options.getToken()}`;
    return request(endpoint as EndpointDefaults & { url: string });
  };
  return Object.assign(auth, { hook });
}
