/**
 * The git workspace of one pull request (seed "Git workspace", CONTRACT §11, §19): a working tree of
 * the head branch at `<base>/<platform>/<owner>/<repo>/pr-<N>` whose own `.git` borrows the objects
 * of the repository's shared store (`store.ts`, through `objects/info/alternates`). The head is
 * fetched (depth 1) into the store, which then receives only the objects it lacks; the workspace is
 * brought to it by hard reset + clean, or made afresh when it is not a usable workspace of the
 * repository.
 *
 * Callers that may touch the same pull request concurrently wrap calls in `withWorkspaceLock` (the
 * process's tree lock plus the cross-process lock directory `pr-<N>.lock`, so a spare tree's rename
 * into `pr-<N>` and every reset and clean happen under it).
 */
import { lstat, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { GitError, describeError } from '../errors.js';
import type { GitCredentials, PlatformName } from '../platforms/types.js';
import type { SecretMasker } from '../secrets.js';
import { assertBranchName, assertSafeCloneUrl, runGit } from './git.js';
import { migrateWorkspaceLayout } from './layout-migration.js';
import { inspectLocalConfig } from './local-config.js';
import { alternatesProblem } from './alternates.js';
import { markTreePrepared, sharesIndex } from './shared-index-tree.js';
import { fetchIntoStore, isRemoteFailure, withStoreLock, type StoreHead } from './store.js';
import { spareBuildSignal, spareTreesEnabledByDefault, startSpareBuild } from './spare-tree.js';
import { workspacePath } from './workspace-path.js';
import { createWorkspace, updateWorkspace } from './workspace-tree.js';
import { WORKSPACE_GIT_CONFIG, removeWorkTree, workspaceGitProblem } from './workspace-guard.js';

export {
  depsPath,
  repoPathSegments,
  repositoryDir,
  storeObjectsDirOf,
  storePaths,
  workspacePath,
} from './workspace-path.js';
export { withWorkspaceLock, createWorkspaceLock } from './lock.js';
export type { WorkspaceLock } from './lock.js';
export { migrateWorkspaceLayout } from './layout-migration.js';
export { alternatesProblem, borrowedStoreObjects } from './alternates.js';
export { setSpareTreesByDefault, spareBuildsSettled, stopSpareBuilds } from './spare-tree.js';

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
  /**
   * Keep a spare checkout of the repository (`<repo dir>/.store/spare`, built in the background
   * after a workspace is made) and make new workspaces from it. Costs one more
   * checkout of disk per repository; a new workspace then writes only the files its head changes.
   * Default: the process's (`setSpareTreesByDefault`; off unless set).
   */
  spareTree?: boolean;
}

/** A ready workspace: its absolute directory, the checked-out commit, and how it was made. */
export interface PreparedWorkspace {
  dir: string;
  /** Full 40-hex SHA of the checked-out head commit. */
  headSha: string;
  action: 'cloned' | 'updated';
  /** For `cloned`: whether the workspace was the repository's spare tree, brought to its head. */
  fromSpare?: boolean;
}

/** Runs hardened git in a directory (`runGit` with this call's options bound). */
type Git = (
  args: string[],
  cwd: string,
  extra?: { objectDirectory?: string },
) => Promise<{ stdout: string; stderr: string }>;

/**
 * Removes `dir` itself; symlinks inside are unlinked, never followed, and a tree an agent made
 * unreadable or deeper than the path limit goes too (`removeWorkTree`).
 */
function removeDir(dir: string): Promise<void> {
  return removeWorkTree(dir);
}

/**
 * Prepares the workspace of a pull request and returns its directory and head SHA.
 *
 * First the head branch is fetched into the repository's store (`fetchIntoStore`, depth 1, under
 * the store lock; only this fetch gets the credentials). Then:
 * - No directory yet, or not a usable workspace (no real `.git` directory, a symbolic link, named
 *   pipe or hard link in `.git`, a repository nested in the tree, another origin, a local git
 *   configuration with keys a workspace does not hold, e.g. `http.proxy`, or objects borrowed
 *   from anywhere but this repository's store): the directory is removed and made afresh — `git
 *   init`, origin and branch configuration as `git clone --single-branch` writes them,
 *   `objects/info/alternates` naming the store's objects, the store's `shallow` file, and `git
 *   reset --hard` to the fetched commit.
 * - A usable workspace: `git clean -ffdx` (untracked and ignored files removed) and `git reset
 *   --hard` to the fetched commit. If that fails for a local reason the directory is made afresh;
 *   if making it fails too (objects missing from a damaged store) the store is rebuilt once when it
 *   checks damaged and no other workspace of the repository is in use (`fetchIntoStore`).
 *
 * Before the first workspace of a base directory is made, workspaces of the older layout are
 * removed (`migrateWorkspaceLayout`, once per base directory).
 *
 * Throws GitError (secret-free message) when the URL carries credentials or is not http(s), the
 * branch name is invalid, or git fails to reach the remote (auth, network, missing branch, time
 * limit, abort); UsageError for an invalid platform, repository name (also one with a `pr-<N>`,
 * `.deps` or `.store` segment) or number.
 */
export async function prepareWorkspace(options: PrepareWorkspaceOptions): Promise<PreparedWorkspace> {
  assertSafeCloneUrl(options.cloneUrl);
  assertBranchName(options.branch);
  const dir = workspacePath(options.baseDir, options.platform, options.repoFullName, options.prNumber);
  const repoDir = path.dirname(dir);
  const label = `${options.repoFullName}#${options.prNumber}`;
  await mkdir(options.baseDir, { recursive: true });
  await migrateWorkspaceLayout(options.baseDir);
  const progress = (message: string) => options.onProgress?.(message);
  const common = {
    masker: options.masker,
    signal: options.signal,
    timeoutMs: options.timeoutMs,
    config: WORKSPACE_GIT_CONFIG,
  };
  // Only the commands that talk to the remote get the credentials.
  const git: Git = (args, cwd, extra) => runGit(args, { cwd, ...common, ...extra });
  const gitAuth: Git = (args, cwd) =>
    runGit(args, { cwd, ...common, credentials: options.credentials, credentialUrl: options.cloneUrl });
  const checkAborted = () => {
    if (options.signal?.aborted) throw new GitError(`preparing the workspace of ${label} was aborted`);
  };
  const fetchHead = (rebuild = false) =>
    withStoreLock(
      repoDir,
      () =>
        fetchIntoStore(repoDir, options.cloneUrl, options.branch, options.prNumber, git, gitAuth, rebuild),
      { signal: options.signal },
    );

  const [problem, fetched] = await Promise.all([
    workspaceProblem(dir, options.cloneUrl, git),
    (async () => {
      progress(`fetching ${label} (branch ${options.branch}) into the repository's store`);
      return fetchHead();
    })(),
  ]);
  let head: StoreHead = fetched;
  if (problem === undefined) {
    progress(`updating workspace of ${label}`);
    try {
      await updateWorkspace(dir, options.branch, head, git);
      await markTreePrepared(dir, await sharesIndex(dir));
      progress(`workspace of ${label} at ${head.sha}`);
      return { dir, headSha: head.sha, action: 'updated' };
    } catch (error) {
      if (isRemoteFailure(error)) throw error;
      checkAborted();
      progress(`workspace of ${label} is unusable (${describeError(error)}); making it again`);
    }
  } else if (problem !== 'missing') {
    progress(`workspace of ${label} is unusable (${problem}); making it again`);
  }

  const spare = options.spareTree ?? spareTreesEnabledByDefault();
  let fromSpare: boolean | undefined;
  for (let attempt = 0; ; attempt += 1) {
    checkAborted();
    await removeDir(dir);
    progress(`cloning ${label} (branch ${options.branch}) from the repository's store`);
    try {
      ({ fromSpare } = await createWorkspace(dir, options.cloneUrl, options.branch, head, git, spare));
      break;
    } catch (error) {
      await removeDir(dir);
      if (attempt > 0 || isRemoteFailure(error)) throw error;
      checkAborted();
      progress(`the store of ${options.repoFullName} is damaged (${describeError(error)}); rebuilding it`);
      head = await fetchHead(true);
    }
  }
  if (spare) {
    // Off the job's critical path and its abort signal: the next new pull request's head start.
    const background: Git = (args, cwd) =>
      runGit(args, { cwd, masker: options.masker, timeoutMs: options.timeoutMs, signal: spareBuildSignal() });
    startSpareBuild(repoDir, head.sha, head.gitDir, head.shallow, background);
  }
  await markTreePrepared(dir, await sharesIndex(dir));
  progress(`workspace of ${label} at ${head.sha}${fromSpare ? ' (from the spare tree)' : ''}`);
  return { dir, headSha: head.sha, action: 'cloned', ...(fromSpare === true ? { fromSpare } : {}) };
}

/**
 * Why `dir` is not a usable workspace of `url`, or undefined when it is: first what the file
 * system shows (`workspaceGitProblem`, before any git runs there: `dir/.git` a real directory of
 * ours with no link, named pipe or hard link an agent planted, no repository nested in the tree),
 * then a repository whose only origin URL is `url`, whose local configuration holds trusted keys
 * only (see `inspectLocalConfig`) and which borrows objects and a shared index from its
 * repository's store and nowhere else (`alternatesProblem`).
 */
async function workspaceProblem(dir: string, url: string, git: Git): Promise<string | undefined> {
  const exists = await lstat(path.join(dir, '.git')).then(
    () => true,
    () => false,
  );
  if (!exists) return 'missing';
  const planted = await workspaceGitProblem(dir);
  if (planted !== undefined) return planted;
  try {
    const config = await inspectLocalConfig(dir, git);
    if (config.originUrls.length !== 1 || config.originUrls[0] !== url) return 'cloned from another URL';
    if (config.untrustedKeys.length > 0) {
      return `git configuration modified: ${config.untrustedKeys.slice(0, 5).join(', ')}`;
    }
  } catch {
    return 'not a git repository';
  }
  // A `commondir` file makes git take refs, objects and configuration from another directory.
  if (
    await lstat(path.join(dir, '.git', 'commondir')).then(
      () => true,
      () => false,
    )
  ) {
    return 'takes its repository data from another place (commondir)';
  }
  return alternatesProblem(dir, true);
}
