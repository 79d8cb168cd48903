/**
 * Workspace directory layout (CONTRACT §11): `<base>/<platform>/<owner>/<repo>/pr-<N>` per pull
 * request (GitLab: the full project path, `<base>/gitlab/<group>/<subgroup>/<project>/pr-<N>`) and
 * `<base>/<platform>/<owner>/<repo>/.deps` shared per repository; §19's object store lives in the
 * same repository directory: `<repo dir>/.store/git` (a bare repository) beside its lock
 * `<repo dir>/.store/lock`. The platform is the first level, so equal names on two platforms
 * never share or nest a workspace; dot-names at the base level (`.learnings`, `.reviewbot-agent`,
 * the layout marker) are never a platform. Each segment of a repository name is a directory named
 * by `encodePathSegment`: the name itself for names of letters, digits, `_`, `.` and `-` (every
 * GitHub, GitLab, Gitea and Bitbucket name), escaped for names with other characters (an Azure
 * DevOps project `Fabrikam Fiber`: `Fabrikam%20Fiber`).
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

/** Characters a workspace path segment keeps as they are; every other one is percent-encoded. */
const SAFE_CHAR = /^[A-Za-z0-9_.-]$/;

/**
 * Characters no platform allows in a repository name (C0 controls and DEL): refused, not encoded.
 */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\x00-\x1f\x7f]/;

/** A lone surrogate (text that is not well-formed UTF-16 has no UTF-8 form to escape). */
const LONE_SURROGATE = /\p{Cs}/u;

/** Longest directory name most file systems take (ext4, xfs, tmpfs: NAME_MAX), in bytes. */
const MAX_SEGMENT_BYTES = 255;

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
 * The directory name of one repository name segment: letters, digits, `_`, `.` and `-` as they
 * are, every other character as the `%XX` escapes of its UTF-8 bytes (upper-case hex), `%` itself
 * included. GitHub, GitLab, Gitea and Bitbucket names use only the kept characters, so their
 * directories are their names; an Azure DevOps project `Fabrikam Fiber` becomes `Fabrikam%20Fiber`.
 * Injective (no two names share a directory): kept characters stand for themselves, and every
 * escape starts with `%`, which is itself escaped (Azure DevOps forbids `%` in names anyway).
 * No escape contains `/`, `\` or a NUL, so an encoded segment never leaves its directory.
 */
export function encodePathSegment(segment: string): string {
  let out = '';
  for (const char of segment) {
    if (SAFE_CHAR.test(char)) {
      out += char;
      continue;
    }
    for (const byte of Buffer.from(char, 'utf8'))
      out += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/**
 * The repository name segment whose directory is `name` (the inverse of `encodePathSegment`), or
 * undefined when `encodePathSegment` never writes `name` (a bad escape, lower-case hex, an escaped
 * character that needs none, invalid UTF-8).
 */
export function decodePathSegment(name: string): string | undefined {
  let decoded: string;
  try {
    decoded = decodeURIComponent(name);
  } catch {
    return undefined;
  }
  return encodePathSegment(decoded) === name ? decoded : undefined;
}

/**
 * The repository full name (`owner/repo`, a GitLab project path) whose workspaces live in the
 * directories `segments` below a platform directory, or undefined when one of them is no
 * directory name `repoPathSegments` writes.
 */
export function repoFullNameOf(segments: readonly string[]): string | undefined {
  const names = segments.map(decodePathSegment);
  if (names.some((name) => name === undefined)) return undefined;
  return names.join('/');
}

/**
 * Splits `repoFullName` (`owner/repo`, GitLab `group/sub/project`, Azure DevOps `project/repo`)
 * into the directory names of its workspace path (see `encodePathSegment`: unchanged for names of
 * letters, digits, `_`, `.` and `-`; an Azure DevOps name with a space is escaped).
 * Throws UsageError on fewer than two segments; an empty, `.` or `..` segment (so an absolute name
 * too); a control character or text that is not well-formed UTF-16; a directory name longer than
 * 255 bytes; or a segment that could be taken for a layout directory (`pr-<N>`, `.deps`, `.store`),
 * which would nest one workspace inside another (e.g. GitLab project `acme/app/pr-7` inside
 * `acme/app`'s `pr-7`).
 */
export function repoPathSegments(repoFullName: string): string[] {
  const segments = repoFullName.split('/');
  if (segments.length < 2) {
    throw new UsageError(
      `invalid repository name "${repoFullName}" (expected owner/repo or group/.../project)`,
    );
  }
  return segments.map((segment) => {
    if (
      segment === '' ||
      segment === '.' ||
      segment === '..' ||
      CONTROL.test(segment) ||
      LONE_SURROGATE.test(segment)
    ) {
      throw new UsageError(
        `invalid repository name ${JSON.stringify(repoFullName)}: segment ${JSON.stringify(segment)} is not allowed in a workspace path`,
      );
    }
    if (LAYOUT_NAME.test(segment)) {
      throw new UsageError(
        `repository "${repoFullName}" is not supported: its path segment "${segment}" could be taken for a workspace directory`,
      );
    }
    const encoded = encodePathSegment(segment);
    if (Buffer.byteLength(encoded) > MAX_SEGMENT_BYTES) {
      throw new UsageError(
        `repository "${repoFullName}" is not supported: its path segment "${segment}" makes a directory name longer than ${MAX_SEGMENT_BYTES} bytes`,
      );
    }
    return encoded;
  });
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
