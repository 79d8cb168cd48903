/**
 * Workspace directory layout (CONTRACT §11, seed "Workspace directory layout"):
 * `<base>/<owner>/<repo>/pr-<N>` per pull request (GitLab: the full project path,
 * `<base>/<group>/<subgroup>/<project>/pr-<N>`) and `<base>/<owner>/<repo>/.deps` shared per repository.
 */
import path from 'node:path';
import { UsageError } from '../errors.js';

/**
 * One path segment of a repository full name: GitHub owners/repositories and GitLab
 * groups/projects use letters, digits, `_`, `-` and `.` only.
 */
const SEGMENT = /^[A-Za-z0-9_.-]+$/;

/**
 * Splits `repoFullName` (`owner/repo`, GitLab `group/sub/project`) into checked segments.
 * Throws UsageError on fewer than two segments, an empty, `.` or `..` segment, an absolute name,
 * or any character outside `[A-Za-z0-9_.-]` (so no segment can leave the base directory).
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
  }
  return segments;
}

/** `<base>/<owner>/<repo>` for a checked `repoFullName`; `baseDir` is resolved to an absolute path. */
function repoDir(baseDir: string, repoFullName: string): string {
  if (baseDir === '') throw new UsageError('the workspace base directory is empty');
  return path.join(path.resolve(baseDir), ...repoPathSegments(repoFullName));
}

/**
 * The workspace of pull request `prNumber`: `<base>/<owner>/<repo>/pr-<N>` (absolute).
 * Throws UsageError for an invalid repository name (see `repoPathSegments`) or a `prNumber` that is
 * not a positive safe integer.
 */
export function workspacePath(baseDir: string, repoFullName: string, prNumber: number): string {
  if (!Number.isSafeInteger(prNumber) || prNumber < 1) {
    throw new UsageError(`invalid pull request number ${String(prNumber)} (expected an integer >= 1)`);
  }
  return path.join(repoDir(baseDir, repoFullName), `pr-${prNumber}`);
}

/**
 * The shared directory for private dependency clones of a repository: `<base>/<owner>/<repo>/.deps`
 * (absolute). Throws UsageError for an invalid repository name.
 */
export function depsPath(baseDir: string, repoFullName: string): string {
  return path.join(repoDir(baseDir, repoFullName), '.deps');
}
