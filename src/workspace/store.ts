/**
 * The object store of one repository (CONTRACT §19): a bare, shallow repository at
 * `<repo dir>/.store/git` that fetches each pull request's head with `--depth 1` into
 * `refs/reviewbot/pr-<N>`. A depth-1 fetch negotiates with the commits the store already has, so a
 * new pull request of a known repository receives only the objects the store lacks. The `pr-<N>`
 * workspaces borrow its objects through `objects/info/alternates` (their own `.git` stays a real
 * directory inside the workspace, which the tool sandbox binds; the store's objects are bound
 * read-only beside it).
 *
 * Every change of the store runs under `withStoreLock`: the process-wide tree lock of
 * `<repo dir>/.store` plus a lock directory that other processes and pods sharing the volume
 * respect (`withFileLock`; a killed holder's lock goes stale). The store never records a URL or a
 * token: fetches name the URL on the command line and get credentials from the environment.
 */
import { lstat, readFile, readdir, rm, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { GitError } from '../errors.js';
import { tryWithFileLock, withFileLock, type FileLockOptions } from './file-lock.js';
import { processWorkspaceLock } from './lock.js';
import { storePaths, workspaceLockDir } from './workspace-path.js';

/** Runs hardened git (`runGit` with a call's options bound) in `cwd`. */
export type StoreGit = (args: string[], cwd: string) => Promise<{ stdout: string; stderr: string }>;

/** Ref namespace of the pull request heads in the store. */
export const STORE_REF_PREFIX = 'refs/reviewbot/';

/** The store ref of pull request `prNumber`. */
export function storeRef(prNumber: number): string {
  return `${STORE_REF_PREFIX}pr-${prNumber}`;
}

/**
 * Messages of failures that are about reaching the remote (auth, network, missing branch, time
 * limit, abort) rather than about the local repository: rethrown, never "repaired".
 */
export const REMOTE_FAILURE =
  /Authentication failed|could not read (Username|Password)|unable to access|Could not resolve|Failed to connect|Connection (refused|timed out|reset)|couldn't find remote ref|returned error: \d+|timed out after|aborted/i;

/** True for a GitError about the remote (see `REMOTE_FAILURE`). */
export function isRemoteFailure(error: unknown): boolean {
  return error instanceof GitError && REMOTE_FAILURE.test(error.message);
}

/**
 * Runs `fn` while holding the store lock of the repository directory `repoDir`: first the
 * process-wide tree lock of `<repoDir>/.store` (jobs of this process queue in order), then the
 * cross-process lock directory `<repoDir>/.store/lock`.
 */
export function withStoreLock<T>(
  repoDir: string,
  fn: () => Promise<T>,
  options?: FileLockOptions,
): Promise<T> {
  const paths = storePaths(repoDir);
  return processWorkspaceLock(paths.root, () => withFileLock(paths.lockDir, fn, options));
}

/** Git's own lock and temporary files a killed git leaves behind (relative to the git dir). */
async function staleGitFiles(gitDir: string): Promise<string[]> {
  const found: string[] = [];
  const top = await readdir(gitDir).catch(() => [] as string[]);
  for (const name of top) if (name.endsWith('.lock')) found.push(path.join(gitDir, name));
  const refs = await readdir(path.join(gitDir, 'refs'), { recursive: true }).catch(() => [] as string[]);
  for (const name of refs) if (name.endsWith('.lock')) found.push(path.join(gitDir, 'refs', name));
  const packDir = path.join(gitDir, 'objects', 'pack');
  for (const name of await readdir(packDir).catch(() => [] as string[])) {
    if (name.startsWith('tmp_') || name.startsWith('.tmp-')) found.push(path.join(packDir, name));
  }
  for (const name of await readdir(path.join(gitDir, 'objects')).catch(() => [] as string[])) {
    if (name.startsWith('incoming-') || name.startsWith('tmp_')) {
      found.push(path.join(gitDir, 'objects', name));
    }
  }
  return found;
}

/**
 * What git itself checks to take a directory for a repository (setup.c `is_git_directory`: `HEAD`,
 * `objects/`, `refs/`), plus `bare = true` in its configuration, read from the files instead of
 * starting a git process. Anything else broken fails the fetch, which then rebuilds the store.
 */
async function looksLikeBareRepository(gitDir: string): Promise<boolean> {
  try {
    const [head, objects, refs, config] = await Promise.all([
      lstat(path.join(gitDir, 'HEAD')),
      lstat(path.join(gitDir, 'objects')),
      lstat(path.join(gitDir, 'refs')),
      readFile(path.join(gitDir, 'config'), 'utf8'),
    ]);
    return (
      head.isFile() && objects.isDirectory() && refs.isDirectory() && /^\s*bare\s*=\s*true\s*$/im.test(config)
    );
  } catch {
    return false;
  }
}

/**
 * The commit a ref names right after a fetch updated it: its loose ref file (every ref update of
 * git's files backend writes one), or `git rev-parse` when there is none (the ref did not move and
 * lives in `packed-refs`).
 */
async function refCommit(gitDir: string, ref: string, git: StoreGit): Promise<string> {
  const loose = await readFile(path.join(gitDir, ref), 'utf8').catch(() => '');
  if (/^[0-9a-f]{40}([0-9a-f]{24})?\n$/.test(loose)) return loose.trim();
  const { stdout } = await git([`--git-dir=${gitDir}`, 'rev-parse', '--verify', `${ref}^{commit}`], gitDir);
  return stdout.trim();
}

/**
 * Whether a workspace of `repoDir` other than `pr-<own>` is in use by a job: its process-wide tree
 * lock held or awaited, or its cross-process lock `pr-<N>.lock` held by a live holder (a stale one
 * is taken over and so removed). Such a tree borrows the store's objects right now: the store must
 * not be removed.
 */
async function otherTreeInUse(repoDir: string, own: number): Promise<boolean> {
  for (const name of await readdir(repoDir).catch(() => [] as string[])) {
    const number = /^pr-([1-9][0-9]*)(\.lock)?$/.exec(name)?.[1];
    if (number === undefined || Number(number) === own) continue;
    const dir = path.join(repoDir, `pr-${number}`);
    if (processWorkspaceLock.isBusy(dir)) return true;
    if (name.endsWith('.lock') && !(await tryWithFileLock(workspaceLockDir(dir), async () => undefined)).ran)
      return true;
  }
  return false;
}

/**
 * Whether the store's repository is damaged: not a bare repository by its files, or `git fsck
 * --connectivity-only` (every object reachable from the refs present, no object content read)
 * fails. A fetch that failed on the network (cut connection, `early EOF`, killed) leaves the store
 * as it was: its pack never got an index and its refs never moved, so this says false then.
 */
async function storeDamaged(gitDir: string, git: StoreGit): Promise<boolean> {
  if (!(await looksLikeBareRepository(gitDir))) return true;
  try {
    await git(
      [`--git-dir=${gitDir}`, 'fsck', '--connectivity-only', '--no-dangling', '--no-progress'],
      gitDir,
    );
    return false;
  } catch {
    return true;
  }
}

/**
 * Makes `<repoDir>/.store/git` a usable bare repository (call under `withStoreLock`): removes the
 * lock and temporary files a killed git left (no other git writes the store while the lock is
 * held), and (re)creates the repository when it is missing, not a bare repository, or `rebuild`.
 * Returns its git directory. An existing store is never removed while another workspace than
 * `pr-<own>` is in use (other trees borrow its objects): that throws GitError (the job may retry).
 */
export async function ensureStore(repoDir: string, git: StoreGit, rebuild = false, own = 0): Promise<string> {
  const { root, gitDir } = storePaths(repoDir);
  await mkdir(root, { recursive: true });
  const usable = !rebuild && (await looksLikeBareRepository(gitDir));
  if (usable) {
    for (const file of await staleGitFiles(gitDir)) await rm(file, { recursive: true, force: true });
    return gitDir;
  }
  const exists = await lstat(gitDir).then(
    () => true,
    () => false,
  );
  if (exists && (await otherTreeInUse(repoDir, own))) {
    throw new GitError(
      'the repository object store is damaged but other workspaces of the repository are in use; not rebuilding it now (retry later)',
    );
  }
  await rm(gitDir, { recursive: true, force: true, maxRetries: 3 });
  await git(['init', '--quiet', '--bare', '--template=', gitDir], root);
  return gitDir;
}

/** What the store holds for one pull request after `fetchIntoStore`. */
export interface StoreHead {
  /** Full SHA of the fetched head commit. */
  sha: string;
  /** The store's `shallow` file (the depth boundary; '' when none), for the workspace to copy. */
  shallow: string;
  /** The store's git directory. */
  gitDir: string;
}

/**
 * Fetches `refs/heads/<branch>` of `cloneUrl` with depth 1 into the store's `refs/reviewbot/pr-<N>`
 * (call under `withStoreLock`; `gitAuth` carries the credentials). When the fetch fails, the store
 * itself is checked (`storeDamaged`), never the error text: a remote failure (auth, missing branch)
 * is rethrown as is; otherwise a store that checks sound is left as it is and the fetch runs once
 * more (a cut connection, `early EOF`), its second failure rethrown; a damaged store is rebuilt and
 * fetched again — unless another workspace of the repository is in use (see `ensureStore`).
 * `rebuildFirst` (a workspace found objects missing) rebuilds first only when the store checks
 * damaged.
 */
export async function fetchIntoStore(
  repoDir: string,
  cloneUrl: string,
  branch: string,
  prNumber: number,
  git: StoreGit,
  gitAuth: StoreGit,
  rebuildFirst = false,
): Promise<StoreHead> {
  const ref = storeRef(prNumber);
  const attempt = async (rebuild: boolean): Promise<StoreHead> => {
    const gitDir = await ensureStore(repoDir, git, rebuild, prNumber);
    const at = [`--git-dir=${gitDir}`];
    await gitAuth(
      [
        ...at,
        'fetch',
        '--quiet',
        '--depth',
        '1',
        '--no-tags',
        '--no-recurse-submodules',
        '--no-write-fetch-head',
        '--no-show-forced-updates',
        cloneUrl,
        `+refs/heads/${branch}:${ref}`,
      ],
      gitDir,
    );
    const [sha, shallow] = await Promise.all([
      refCommit(gitDir, ref, git),
      readFile(path.join(gitDir, 'shallow'), 'utf8').catch(() => ''),
    ]);
    return { sha, shallow, gitDir };
  };
  const damaged = () => storeDamaged(storePaths(repoDir).gitDir, git);
  if (rebuildFirst) return attempt(await damaged());
  try {
    return await attempt(false);
  } catch (error) {
    if (isRemoteFailure(error)) throw error;
    return attempt(await damaged());
  }
}

/** Removes the store of `repoDir` entirely (call under `withStoreLock`, or with no job running). */
export async function removeStoreGitDir(repoDir: string): Promise<void> {
  await rm(storePaths(repoDir).gitDir, { recursive: true, force: true, maxRetries: 3 });
}
