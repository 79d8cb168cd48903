/**
 * `parsePrRef()` (seed "CLI request flow", CONTRACT §2): `owner/repo#N` (GitLab: any
 * `group/subgroup/project#N`) or a pull/merge request URL. Pure; no network. Repository names are
 * checked against the platform's own naming rules (`platforms/github/names.ts`,
 * `platforms/gitlab/names.ts`, `platforms/gitea/names.ts`: no `.`/`..` segments, no `.git` suffix,
 * no characters outside the platform's set), and N against 1..2^31-1, the same rules the webhook
 * edge applies.
 */
import { UsageError } from '../errors.js';
import { isPrNumber } from '../platforms/git-names.js';
import { isAzureFullName } from '../platforms/azure-devops/names.js';
import { isBitbucketFullName } from '../platforms/bitbucket-cloud/names.js';
import { isBitbucketServerFullName } from '../platforms/bitbucket-server/names.js';
import { isGiteaFullName } from '../platforms/gitea/names.js';
import { isGitHubFullName } from '../platforms/github/names.js';
import { isGitLabProjectPath } from '../platforms/gitlab/names.js';
import type { PlatformName } from '../platforms/types.js';

/** A parsed pull/merge request reference. */
export interface PrRef {
  repoFullName: string;
  prNumber: number;
  /** Set when the reference's form decides the platform (a URL). */
  platform?: PlatformName;
  /** Web host of a URL reference, e.g. `github.com`. */
  host?: string;
}

const EXPECTED =
  'expected owner/repo#N (GitLab: group/subgroup/project#N) or a pull/merge request URL (…/pull/N, …/-/merge_requests/N, …/pulls/N, https://bitbucket.org/ws/repo/pull-requests/N, https://<host>/projects/KEY/repos/slug/pull-requests/N, …/project/_git/repo/pullrequest/N; Bitbucket Data Center: KEY/slug#N; Azure DevOps: project/repo#N)';

function validNumber(text: string): number | undefined {
  if (!/^[1-9][0-9]{0,9}$/.test(text)) return undefined;
  const n = Number(text);
  return isPrNumber(n) ? n : undefined;
}

/** True when `segments` name a repository of `platform` (either platform's rules when unknown). */
function validPath(segments: string[], platform?: PlatformName): boolean {
  const path = segments.join('/');
  if (platform === 'github') return segments.length === 2 && isGitHubFullName(path);
  if (platform === 'gitlab') return isGitLabProjectPath(path);
  if (platform === 'gitea') return isGiteaFullName(path);
  if (platform === 'bitbucket') return segments.length === 2 && isBitbucketFullName(path);
  if (platform === 'bitbucket-server') return segments.length === 2 && isBitbucketServerFullName(path);
  if (platform === 'azure-devops') return isAzureFullName(path);
  return (
    (segments.length === 2 && (isGitHubFullName(path) || isGiteaFullName(path))) || isGitLabProjectPath(path)
  );
}

function fail(ref: string, why?: string): never {
  throw new UsageError(`invalid pull request reference "${ref}"${why ? ` (${why})` : ''}: ${EXPECTED}`);
}

function parseUrl(ref: string): PrRef {
  let url: URL;
  try {
    url = new URL(ref);
  } catch {
    return fail(ref, 'not a valid URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') fail(ref, 'not an http(s) URL');
  const parts = url.pathname.split('/').filter((p) => p !== '');
  const dash = parts.indexOf('-');
  if (dash >= 2 && parts[dash + 1] === 'merge_requests') {
    const prNumber = validNumber(parts[dash + 2] ?? '');
    const repo = parts.slice(0, dash);
    if (prNumber === undefined || !validPath(repo, 'gitlab')) fail(ref);
    return { repoFullName: repo.join('/'), prNumber, platform: 'gitlab', host: url.host };
  }
  if (parts.length >= 4 && parts[2] === 'pull') {
    const prNumber = validNumber(parts[3] ?? '');
    const repo = parts.slice(0, 2);
    if (prNumber === undefined || !validPath(repo, 'github')) fail(ref);
    return { repoFullName: repo.join('/'), prNumber, platform: 'github', host: url.host };
  }
  const git = parts.indexOf('_git');
  if (git >= 1 && parts[git + 2] === 'pullrequest') {
    // Azure DevOps: https://dev.azure.com/org/project/_git/repo/pullrequest/N, or on Server
    // https://<server>/<collection>/project/_git/repo/pullrequest/N (URL path segments decoded).
    const prNumber = validNumber(parts[git + 3] ?? '');
    let repo: string[];
    try {
      repo = [parts[git - 1] ?? '', parts[git + 1] ?? ''].map((p) => decodeURIComponent(p));
    } catch {
      return fail(ref, 'bad percent-encoding');
    }
    if (prNumber === undefined || !validPath(repo, 'azure-devops')) fail(ref);
    return { repoFullName: repo.join('/'), prNumber, platform: 'azure-devops', host: url.host };
  }
  if (url.hostname === 'bitbucket.org' && parts.length >= 4 && parts[2] === 'pull-requests') {
    const prNumber = validNumber(parts[3] ?? '');
    const repo = parts.slice(0, 2);
    if (prNumber === undefined || !validPath(repo, 'bitbucket')) fail(ref);
    return { repoFullName: repo.join('/'), prNumber, platform: 'bitbucket', host: url.host };
  }
  // Bitbucket Data Center: `[<context path>/]projects/KEY/repos/slug/pull-requests/N[/…]`.
  const projects = parts.indexOf('projects');
  if (projects >= 0 && parts[projects + 2] === 'repos' && parts[projects + 4] === 'pull-requests') {
    const prNumber = validNumber(parts[projects + 5] ?? '');
    const repo = [parts[projects + 1] ?? '', parts[projects + 3] ?? ''];
    if (prNumber === undefined || !validPath(repo, 'bitbucket-server')) fail(ref);
    return { repoFullName: repo.join('/'), prNumber, platform: 'bitbucket-server', host: url.host };
  }
  if (parts.length >= 4 && parts[2] === 'pulls') {
    const prNumber = validNumber(parts[3] ?? '');
    const repo = parts.slice(0, 2);
    if (prNumber === undefined || !validPath(repo, 'gitea')) fail(ref);
    return { repoFullName: repo.join('/'), prNumber, platform: 'gitea', host: url.host };
  }
  return fail(ref, 'not a pull request or merge request URL');
}

/**
 * Parses `ref`. With `platform` = `github`, the repository must be exactly `owner/repo`.
 * @throws UsageError naming the expected form (exit code 2).
 */
export function parsePrRef(ref: string, platform?: PlatformName): PrRef {
  const text = ref.trim();
  if (/^https?:\/\//i.test(text)) {
    const parsed = parseUrl(text);
    if (platform && parsed.platform !== platform)
      fail(ref, `a ${parsed.platform} URL but --platform ${platform}`);
    return parsed;
  }
  const hash = text.lastIndexOf('#');
  if (hash < 0) fail(ref, 'missing #N');
  const prNumber = validNumber(text.slice(hash + 1));
  if (prNumber === undefined) fail(ref, 'N must be a whole number from 1 to 2147483647');
  const segments = text.slice(0, hash).split('/');
  if (segments.length > 2 && platform !== 'gitlab' && validPath(segments, 'gitlab')) {
    fail(
      ref,
      platform
        ? `${{ gitea: 'Gitea', bitbucket: 'Bitbucket', 'bitbucket-server': 'Bitbucket Data Center', github: 'GitHub', gitlab: 'GitLab', 'azure-devops': 'Azure DevOps' }[platform]} repositories are ${platform === 'bitbucket-server' ? 'KEY/slug' : platform === 'azure-devops' ? 'project/repo' : 'owner/repo'}`
        : 'nested paths need --platform gitlab',
    );
  }
  if (!validPath(segments, platform)) fail(ref, 'bad repository name');
  return { repoFullName: segments.join('/'), prNumber };
}
