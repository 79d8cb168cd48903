/**
 * The spare working tree of a repository (CONTRACT §19): a complete, pristine checkout at
 * `<repo dir>/.store/spare` of a head the store holds, with its own `.git` borrowing the store's
 * objects exactly as a `pr-<N>` workspace does. A new pull request's workspace is made by renaming
 * the spare to `pr-<N>` (one atomic `rename`, so two jobs can never both take it) and letting git
 * rewrite only the files that differ between the two heads (`git reset --hard`, whose index is
 * already fresh); a new spare is then built in the background, off the job's critical path. Writing
 * 20,000 files costs about as much as a full checkout whether git or `cp` writes them (measured on
 * ext4 without reflinks), so the checkout is moved off the critical path rather than copied.
 *
 * The spare is never shown to an agent or a tool before it is claimed (it is not a workspace and the
 * sandbox does not bind it); it is built in `<store>/spare-tmp-<pid>-<random>` and renamed into
 * place only when complete, so a killed build leaves a temporary directory (the cleaner removes
 * those older than `STALE_SPARE_MS`), never a half-made spare. Removing a spare renames it to a
 * `spare-trash-*` directory first, so a claim and a removal cannot interleave.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { shareNewTree } from './shared-index-tree.js';
import { storePaths } from './workspace-path.js';

/** Runs hardened git in a directory (`runGit` with a call's options bound). */
export type SpareGit = (args: string[], cwd: string) => Promise<{ stdout: string; stderr: string }>;

const SPARE = 'spare';
const TEMPORARY_PREFIX = 'spare-tmp-';
const TRASH_PREFIX = 'spare-trash-';
/** Temporary spare directories older than this (ms) belong to a killed build and are removed. */
export const STALE_SPARE_MS = 60 * 60 * 1000;

/**
 * Index format of every working tree we make: version 4 compresses each path against the previous
 * one (git-config(1) `index.version`), about a fifth smaller for a large tree. Passed on the command
 * that first writes the index; git keeps an index's version on later writes.
 */
export const INDEX_CONFIG = ['-c', 'index.version=4'];

/** Whether `prepareWorkspace` keeps spare trees when its call does not say (`spareTree`). */
let spareTreesByDefault = false;

/**
 * Sets whether `prepareWorkspace` keeps spare trees by default in this process. Off unless a
 * process says otherwise: only processes whose base directory outlives them and that live on
 * after a workspace is made should pay for a spare (the standalone server; Job pods on a shared
 * volume), not a one-shot CLI run or a Job pod with its own emptyDir.
 */
export function setSpareTreesByDefault(enabled: boolean): void {
  spareTreesByDefault = enabled;
}

/** The process default of `setSpareTreesByDefault`. */
export function spareTreesEnabledByDefault(): boolean {
  return spareTreesByDefault;
}

/** The spare tree's directory of repository directory `repoDir`. */
export function spareTreeDir(repoDir: string): string {
  return path.join(storePaths(repoDir).root, SPARE);
}

/**
 * Moves the spare tree of `repoDir` to `dir` (which must not exist, or be an empty directory).
 * True when it did; false when there is no spare (another job took it) or the rename failed.
 */
export async function claimSpareTree(repoDir: string, dir: string): Promise<boolean> {
  try {
    await rename(spareTreeDir(repoDir), dir);
    return true;
  } catch {
    return false;
  }
}

/** Builds running in this process, by repository directory (one at a time per repository). */
const building = new Map<string, Promise<void>>();
/** Aborts the git runs of every build in progress (`stopSpareBuilds`). */
let builds = new AbortController();

/** The signal the git runs of spare builds take: aborted by `stopSpareBuilds`. */
export function spareBuildSignal(): AbortSignal {
  return builds.signal;
}

/**
 * Stops every spare build of this process (their git processes killed, their temporary
 * directories removed) and resolves when they have ended; later builds run again. For shutdown:
 * git runs detached, so a build left running would outlive the process.
 */
export async function stopSpareBuilds(): Promise<void> {
  builds.abort();
  await spareBuildsSettled();
  builds = new AbortController();
}

/** Resolves when every spare build this process started has ended (tests, benchmarks, shutdown). */
export async function spareBuildsSettled(): Promise<void> {
  while (building.size > 0) await Promise.allSettled([...building.values()]);
}

/**
 * Starts building the spare tree of `repoDir` at commit `sha` in the background, unless it exists
 * or this process is building it already. `storeGitDir` is the store's git directory; `shallow` its
 * shallow boundary. Never rejects: a failed build leaves no spare (the next workspace is made by a
 * full checkout) and removes its temporary directory.
 */
export function startSpareBuild(
  repoDir: string,
  sha: string,
  storeGitDir: string,
  shallow: string,
  git: SpareGit,
): void {
  if (building.has(repoDir)) return;
  const job = buildSpare(repoDir, sha, storeGitDir, shallow, git)
    .catch(() => undefined)
    .finally(() => building.delete(repoDir));
  building.set(repoDir, job);
}

async function buildSpare(
  repoDir: string,
  sha: string,
  storeGitDir: string,
  shallow: string,
  git: SpareGit,
): Promise<void> {
  const target = spareTreeDir(repoDir);
  if (await exists(target)) return;
  const root = path.dirname(target);
  const temporary = path.join(root, `${TEMPORARY_PREFIX}${process.pid}-${randomBytes(4).toString('hex')}`);
  try {
    await mkdir(root, { recursive: true });
    await git(['init', '--quiet', '--template=', path.basename(temporary)], root);
    const gitDir = path.join(temporary, '.git');
    await writeFile(
      path.join(gitDir, 'objects', 'info', 'alternates'),
      `${path.join(storeGitDir, 'objects')}\n`,
    );
    if (shallow !== '') await writeFile(path.join(gitDir, 'shallow'), shallow);
    // Detached at the head, no branch and no reflog: the claim attaches HEAD to its own branch.
    await writeFile(path.join(gitDir, 'HEAD'), `${sha}\n`);
    await git(
      [...INDEX_CONFIG, '-c', 'core.logAllRefUpdates=false', 'reset', '--quiet', '--hard'],
      temporary,
    );
    // The repository's one shared index (`shared-index.ts`), taken (or published) as a fresh
    // full checkout takes it.
    await shareNewTree(temporary, repoDir, git);
    await rename(temporary, target);
  } finally {
    await rm(temporary, { recursive: true, force: true, maxRetries: 3 }).catch(() => undefined);
  }
}

async function exists(file: string): Promise<boolean> {
  return stat(file).then(
    () => true,
    () => false,
  );
}

/**
 * Removes the leftovers of killed spare builds of `repoDir` (temporary directories older than
 * `STALE_SPARE_MS`, trash directories) or, with `everything` (the store is going), also the spare
 * tree itself (renamed to a trash directory first, so a concurrent claim gets all of it or nothing)
 * and every temporary directory.
 */
export async function removeSpareTrees(repoDir: string, everything = false): Promise<void> {
  const root = storePaths(repoDir).root;
  if (everything) {
    const trash = path.join(root, `${TRASH_PREFIX}${process.pid}-${randomBytes(4).toString('hex')}`);
    await rename(spareTreeDir(repoDir), trash).catch(() => undefined);
  }
  for (const name of await readdir(root).catch(() => [] as string[])) {
    const full = path.join(root, name);
    let remove = name.startsWith(TRASH_PREFIX);
    if (!remove && name.startsWith(TEMPORARY_PREFIX)) {
      const modified = await stat(full).then(
        (s) => s.mtimeMs,
        () => Date.now(),
      );
      remove = everything || Date.now() - modified > STALE_SPARE_MS;
    }
    if (remove) await rm(full, { recursive: true, force: true, maxRetries: 3 });
  }
}
