/**
 * Workspace directory layout (CONTRACT §11): `<base>/<platform>/<owner>/<repo>/pr-<N>` per pull
 * request (GitLab: the full project path, `<base>/gitlab/<group>/<subgroup>/<project>/pr-<N>`) and
 * `<base>/<platform>/<owner>/<repo>/.deps` shared per repository; §19's object store lives in the
 * same repository directory: `<repo dir>/.store/git` (a bare repository) beside its lock
 * `<repo dir>/.store/lock`. The platform is the first level, so equal names on two platforms
 * never share or nest a workspace; dot-names at the base level (`.learnings`, `.reviewbot-agent`,
 * the layout marker) are never a platform.
 */
import path from 'node:path';
import { UsageError } from '../errors.js';
import type { PlatformName } from '../platforms/types.js';

/** The layout version `<base>/LAYOUT_MARKER` records once workspaces of older layouts are removed. */
export const LAYOUT_VERSION = 2;

/** File at the base directory recording the layout version (a dot-name: never a platform directory). */
export const LAYOUT_MARKER = '.reviewbot-layout';

/** Directory name of a pull request's workspace: `pr-<N>`, N >= 1 without leading zeros. */
export const PR_DIR = /^pr-([1-9][0-9]*)$/;

/**
 * Names of a workspace's cross-process lock directory `pr-<N>.lock` (beside the tree, never inside
 * it, so no tool of the agent sees it) and of the helpers `withFileLock` makes beside a lock
 * (`pr-<N>.lock.takeover`, `pr-<N>.lock.stale-*`): never a workspace, never searched.
 */
export const PR_LOCK_NAME = /^pr-[0-9]+\.lock/i;

/** The cross-process lock directory of workspace `dir` (`<dir>.lock`, a sibling of the tree). */
export function workspaceLockDir(dir: string): string {
  return `${path.resolve(dir)}.lock`;
}

/**
 * One path segment of a repository full name: GitHub owners/repositories and GitLab
 * groups/projects use letters, digits, `_`, `-` and `.` only.
 */
const SEGMENT = /^[A-Za-z0-9_.-]+$/;

/** Directory of a repository's object store and its lock (CONTRACT §19), inside the repository directory. */
export const STORE_DIR = '.store';

/**
 * Segments that could be taken for a layout directory (CONTRACT §11, §19): `pr-<digits>`, a
 * workspace lock `pr-<digits>.lock*`, `.deps` and `.store`, in any letter case (a case-insensitive file system would treat `PR-7` as `pr-7`).
 */
const LAYOUT_NAME = /^(pr-[0-9]+(\.lock.*)?|\.deps|\.store)$/i;

/** A platform directory name: lower-case letters, digits and `-`, never a dot-name. */
const PLATFORM_SEGMENT = /^[a-z][a-z0-9-]*$/;

/**
 * Splits `repoFullName` (`owner/repo`, GitLab `group/sub/project`) into checked segments.
 * Throws UsageError on fewer than two segments, an empty, `.` or `..` segment, an absolute name,
 * any character outside `[A-Za-z0-9_.-]` (so no segment can leave the base directory), or a
 * segment that could be taken for a layout directory (`pr-<N>`, `.deps`, `.store`), which would nest one
 * workspace inside another (e.g. GitLab project `acme/app/pr-7` inside `acme/app`'s `pr-7`).
 */
export function repoPathSegments(repoFullName: string): string[] {
  const segments = repoFullName.split('/');
  if (segments.length < 2) {
    throw new UsageError(
      `invalid repository name "${repoFullName}" (expected owner/repo or group/.../project)`,
    );
  }
  for (const segment of segments) {
    if (segment === '' || segment === '.' || segment === '..' || !SEGMENT.test(segment)) {
      throw new UsageError(
        `invalid repository name "${repoFullName}": segment "${segment}" is not allowed in a workspace path`,
      );
    }
    if (LAYOUT_NAME.test(segment)) {
      throw new UsageError(
        `repository "${repoFullName}" is not supported: its path segment "${segment}" could be taken for a workspace directory`,
      );
    }
  }
  return segments;
}

/**
 * `<base>/<platform>/<owner>/<repo>` (absolute) for a checked `repoFullName`: the directory that
 * holds the repository's `pr-<N>` workspaces, `.deps` and (CONTRACT §19) its object store.
 * Throws UsageError for an empty base directory, an invalid platform name or repository name.
 */
export function repositoryDir(baseDir: string, platform: PlatformName, repoFullName: string): string {
  if (baseDir === '') throw new UsageError('the workspace base directory is empty');
  if (!PLATFORM_SEGMENT.test(platform)) {
    throw new UsageError(`invalid platform name "${String(platform)}" in a workspace path`);
  }
  return path.join(path.resolve(baseDir), platform, ...repoPathSegments(repoFullName));
}

/**
 * The workspace of pull request `prNumber`: `<base>/<platform>/<owner>/<repo>/pr-<N>` (absolute).
 * Throws UsageError for an invalid platform or repository name (see `repoPathSegments`) or a
 * `prNumber` that is not a positive safe integer.
 */
export function workspacePath(
  baseDir: string,
  platform: PlatformName,
  repoFullName: string,
  prNumber: number,
): string {
  if (!Number.isSafeInteger(prNumber) || prNumber < 1) {
    throw new UsageError(`invalid pull request number ${String(prNumber)} (expected an integer >= 1)`);
  }
  return path.join(repositoryDir(baseDir, platform, repoFullName), `pr-${prNumber}`);
}

/**
 * The shared directory for private dependency clones of a repository:
 * `<base>/<platform>/<owner>/<repo>/.deps` (absolute). Throws UsageError for an invalid name.
 */
export function depsPath(baseDir: string, platform: PlatformName, repoFullName: string): string {
  return path.join(repositoryDir(baseDir, platform, repoFullName), '.deps');
}

/**
 * The object store of the repository whose workspaces live in `repoDir` (CONTRACT §19): the bare
 * repository `<repoDir>/.store/git` and its cross-process lock directory `<repoDir>/.store/lock`.
 */
export function storePaths(repoDir: string): { root: string; gitDir: string; lockDir: string } {
  const root = path.join(repoDir, STORE_DIR);
  return { root, gitDir: path.join(root, 'git'), lockDir: path.join(root, 'lock') };
}

/**
 * The objects directory of the store a `pr-<N>` workspace borrows from (its only allowed
 * `objects/info/alternates` entry): `<dirname(workspace)>/.store/git/objects`; undefined when
 * `workspaceDir` is not named `pr-<N>`.
 */
export function storeObjectsDirOf(workspaceDir: string): string | undefined {
  const resolved = path.resolve(workspaceDir);
  if (!PR_DIR.test(path.basename(resolved))) return undefined;
  return path.join(storePaths(path.dirname(resolved)).gitDir, 'objects');
}
