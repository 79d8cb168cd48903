/**
 * The git workspace of one pull request (seed "Git workspace", CONTRACT §11): a shallow clone of the
 * head branch at `<base>/<platform>/<owner>/<repo>/pr-<N>`, brought up to date by fetch + hard
 * reset + clean, or removed and cloned fresh when it is not a usable clone of the repository.
 *
 * Callers that may touch the same pull request concurrently wrap calls in `withWorkspaceLock`.
 */
import { lstat, mkdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { GitError, describeError } from '../errors.js';
import type { GitCredentials, PlatformName } from '../platforms/types.js';
import type { SecretMasker } from '../secrets.js';
import { assertBranchName, assertSafeCloneUrl, runGit } from './git.js';
import { migrateWorkspaceLayout } from './layout-migration.js';
import { inspectLocalConfig } from './local-config.js';
import { workspacePath } from './workspace-path.js';

export { depsPath, repoPathSegments, repositoryDir, workspacePath } from './workspace-path.js';
export { withWorkspaceLock, createWorkspaceLock } from './lock.js';
export type { WorkspaceLock } from './lock.js';
export { migrateWorkspaceLayout } from './layout-migration.js';

/** Options of `prepareWorkspace`. */
export interface PrepareWorkspaceOptions {
  /** Workspace base directory (`workspace.base_dir`). */
  baseDir: string;
  /** The platform of the pull request: the first level of the workspace path. */
  platform: PlatformName;
  /** `owner/repo`, or a GitLab `group/sub/project` path. */
  repoFullName: string;
  /** Pull/merge request number (>= 1). */
  prNumber: number;
  /** The clone URL the platform API reports (http/https, without credentials). */
  cloneUrl: string;
  /** The pull request's head branch. */
  branch: string;
  /** HTTP credentials (CONTRACT §4: `x-access-token` / `oauth2` + the token). */
  credentials: GitCredentials;
  /** Receives short human progress lines (never a secret). */
  onProgress?: (message: string) => void;
  /** Masks further secrets in git error messages. */
  masker?: SecretMasker;
  /** Aborting kills the running git process and rejects with a GitError. */
  signal?: AbortSignal;
  /** Time limit of each git invocation in ms (default 10 minutes). */
  timeoutMs?: number;
}

/** A ready workspace: its absolute directory, the checked-out commit, and how it was made. */
export interface PreparedWorkspace {
  dir: string;
  /** Full 40-hex SHA of the checked-out head commit. */
  headSha: string;
  action: 'cloned' | 'updated';
}

/**
 * Messages of failures that are about reaching the remote (auth, network, missing branch, time
 * limit) rather than about the local clone: those are rethrown, never "fixed" by cloning again.
 */
const REMOTE_FAILURE =
  /Authentication failed|could not read (Username|Password)|unable to access|Could not resolve|Failed to connect|Connection (refused|timed out|reset)|couldn't find remote ref|returned error: \d+|timed out after|aborted/i;

function isRemoteFailure(error: unknown): boolean {
  return error instanceof GitError && REMOTE_FAILURE.test(error.message);
}

/** Runs hardened git in a directory (`runGit` with this call's options bound). */
type Git = (args: string[], cwd: string) => Promise<{ stdout: string; stderr: string }>;

/** Removes `dir` itself; symlinks inside are unlinked, never followed (fs.rm semantics). */
async function removeDir(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true, maxRetries: 3 });
}

/**
 * Prepares the workspace of a pull request and returns its directory and head SHA.
 *
 * - No directory yet, or not a clone of `cloneUrl` (no real `.git` directory, another origin, or a
 *   local git configuration with keys a clone does not write, e.g. `http.proxy`): the directory is
 *   removed and `git clone --depth 1 --single-branch --no-tags --branch <branch>` runs.
 * - A clone of `cloneUrl`: `git fetch --depth 1 --no-tags origin <branch>`, `git clean -ffdx`
 *   (untracked and ignored files removed) and `git reset --hard` to the fetched commit; only clone
 *   and fetch get the credentials. If that fails for a local reason (broken history, corrupt
 *   objects, stale locks) the directory is removed and cloned fresh.
 *
 * Before the first workspace of a base directory is made, workspaces of the older layout are
 * removed (`migrateWorkspaceLayout`, once per base directory).
 *
 * Throws GitError (secret-free message) when the URL carries credentials or is not http(s), the
 * branch name is invalid, or git fails to reach the remote (auth, network, missing branch, time
 * limit, abort); UsageError for an invalid platform, repository name (also one with a `pr-<N>` or
 * `.deps` segment) or number.
 */
export async function prepareWorkspace(options: PrepareWorkspaceOptions): Promise<PreparedWorkspace> {
  assertSafeCloneUrl(options.cloneUrl);
  assertBranchName(options.branch);
  const dir = workspacePath(options.baseDir, options.platform, options.repoFullName, options.prNumber);
  const label = `${options.repoFullName}#${options.prNumber}`;
  await mkdir(options.baseDir, { recursive: true });
  await migrateWorkspaceLayout(options.baseDir);
  const progress = (message: string) => options.onProgress?.(message);
  const common = { masker: options.masker, signal: options.signal, timeoutMs: options.timeoutMs };
  // Only the commands that talk to the remote get the credentials.
  const git: Git = (args, cwd) => runGit(args, { cwd, ...common });
  const gitAuth: Git = (args, cwd) =>
    runGit(args, { cwd, ...common, credentials: options.credentials, credentialUrl: options.cloneUrl });
  const checkAborted = () => {
    if (options.signal?.aborted) throw new GitError(`preparing the workspace of ${label} was aborted`);
  };

  const problem = await cloneProblem(dir, options.cloneUrl, git);
  if (problem === undefined) {
    progress(`updating workspace of ${label} (branch ${options.branch})`);
    try {
      const headSha = await updateClone(dir, options.branch, git, gitAuth);
      progress(`workspace of ${label} at ${headSha}`);
      return { dir, headSha, action: 'updated' };
    } catch (error) {
      if (isRemoteFailure(error)) throw error;
      checkAborted();
      progress(`workspace of ${label} is unusable (${describeError(error)}); cloning it again`);
    }
  } else if (problem !== 'missing') {
    progress(`workspace of ${label} is unusable (${problem}); cloning it again`);
  }

  checkAborted();
  await removeDir(dir);
  await mkdir(path.dirname(dir), { recursive: true });
  progress(`cloning ${label} (branch ${options.branch})`);
  try {
    await gitAuth(
      [
        'clone',
        '--quiet',
        '--depth',
        '1',
        '--single-branch',
        '--no-tags',
        '--no-recurse-submodules',
        '--branch',
        options.branch,
        '--',
        options.cloneUrl,
        path.basename(dir),
      ],
      path.dirname(dir),
    );
  } catch (error) {
    await removeDir(dir);
    throw error;
  }
  const headSha = await revParseHead(dir, git);
  progress(`workspace of ${label} at ${headSha}`);
  return { dir, headSha, action: 'cloned' };
}

/**
 * Why `dir` is not a usable clone of `url`, or undefined when it is: `dir/.git` must be a real
 * directory (not a symlink or gitfile) of a repository whose only origin URL is `url` and whose
 * local configuration holds trusted keys only (see `inspectLocalConfig`).
 */
async function cloneProblem(dir: string, url: string, git: Git): Promise<string | undefined> {
  try {
    const stat = await lstat(path.join(dir, '.git'));
    if (!stat.isDirectory()) return '.git is not a directory';
  } catch {
    return 'missing';
  }
  try {
    const config = await inspectLocalConfig(dir, git);
    if (config.originUrls.length !== 1 || config.originUrls[0] !== url) return 'cloned from another URL';
    if (config.untrustedKeys.length > 0) {
      return `git configuration modified: ${config.untrustedKeys.slice(0, 5).join(', ')}`;
    }
    return undefined;
  } catch {
    return 'not a git repository';
  }
}

/**
 * Fetch (depth 1) + clean + hard reset; returns the new head SHA. `git clean -ffdx` runs while the
 * fetch is under way (it only reads the index, the fetch only writes objects and refs); cleaning
 * before the reset leaves the same tree as after it, since `reset --hard` overwrites untracked files
 * in its way and removes tracked files the new commit drops. The fetched commit is read from
 * `.git/FETCH_HEAD` (one `<sha>\t\tbranch '<name>' of <url>` line per fetched ref, git-fetch(1)), so
 * the reset targets exactly what was fetched and no extra `rev-parse` runs.
 */
async function updateClone(dir: string, branch: string, git: Git, gitAuth: Git): Promise<string> {
  const tracking = `refs/remotes/origin/${branch}`;
  const fetch = gitAuth(
    [
      'fetch',
      '--quiet',
      '--depth',
      '1',
      '--no-tags',
      '--no-recurse-submodules',
      'origin',
      `+refs/heads/${branch}:${tracking}`,
    ],
    dir,
  );
  const clean = git(['clean', '-ffdxq'], dir);
  const [fetched, cleaned] = await Promise.allSettled([fetch, clean]);
  if (fetched.status === 'rejected') throw fetched.reason;
  if (cleaned.status === 'rejected') throw cleaned.reason;
  const fetchHead = await readFile(path.join(dir, '.git', 'FETCH_HEAD'), 'utf8');
  const sha = /^([0-9a-f]{40}|[0-9a-f]{64})\t/.exec(fetchHead)?.[1];
  await git(['reset', '--quiet', '--hard', sha ?? tracking], dir);
  return sha ?? revParseHead(dir, git);
}

async function revParseHead(dir: string, git: Git): Promise<string> {
  const { stdout } = await git(['rev-parse', '--verify', 'HEAD^{commit}'], dir);
  return stdout.trim();
}
