/**
 * Upkeep of a repository's object store by the cleaner (CONTRACT §19): the store goes when none of
 * the repository's `pr-<N>` workspaces remains; otherwise the refs of removed workspaces are
 * dropped and, when that happened or loose objects and packs piled up, `git gc` repacks with a
 * prune grace period, bounded in time. Objects a workspace needs are reachable from its
 * `refs/reviewbot/pr-<N>` (kept while `pr-<N>` exists), and a workspace's own commits live in its
 * own `.git`; the grace period (`PRUNE_GRACE`) covers a job of another process that fetched a head
 * but has not made its directory yet.
 */
import { lstat, readdir, rm, rmdir } from 'node:fs/promises';
import path from 'node:path';
import { runGit } from './git.js';
import { tryWithFileLock, withFileLock } from './file-lock.js';
import { processWorkspaceLock } from './lock.js';
import { pruneSharedIndexes, sharedIndexDir } from './shared-index.js';
import { removeSpareTrees } from './spare-tree.js';
import { STORE_REF_PREFIX, withStoreLock } from './store.js';
import { PR_DIR, PR_LOCK_NAME, storePaths } from './workspace-path.js';

/** Unreachable objects younger than this survive a gc (git's approxidate). */
export const PRUNE_GRACE = '1.hour.ago';
/** `PRUNE_GRACE` in ms. */
const PRUNE_GRACE_MS = 60 * 60 * 1000;
/** Loose objects or packs beyond which a gc runs even when no ref was dropped. */
const LOOSE_LIMIT = 2000;
const PACK_LIMIT = 8;
/** Time limit of one store gc, ms. */
export const GC_TIMEOUT_MS = 10 * 60 * 1000;

/** What `maintainStore` did to one store. */
export type StoreUpkeep =
  { action: 'removed' } | { action: 'busy' } | { action: 'kept'; droppedRefs: string[]; gc: boolean };

/** Numbers N of the `pr-<N>` directories in `repoDir`. */
async function prNumbers(repoDir: string): Promise<Set<number>> {
  const entries = await readdir(repoDir, { withFileTypes: true }).catch(() => []);
  const found = new Set<number>();
  for (const entry of entries) {
    const match = entry.isDirectory() ? PR_DIR.exec(entry.name) : null;
    if (match) found.add(Number(match[1]));
  }
  return found;
}

/** The `pr-<N>.lock` directories in `repoDir` (workspace locks, held or left by a killed holder). */
async function workspaceLocks(repoDir: string): Promise<Array<{ dir: string; prNumber: number }>> {
  const entries = await readdir(repoDir, { withFileTypes: true }).catch(() => []);
  return entries
    .filter((e) => e.isDirectory() && /^pr-[1-9][0-9]*\.lock$/.test(e.name))
    .map((e) => ({ dir: path.join(repoDir, e.name), prNumber: Number(/[0-9]+/.exec(e.name)?.[0]) }));
}

/**
 * True when a job of any process holds a workspace lock of `repoDir` (it may be fetching or about
 * to make its tree); stale locks of killed holders are taken over and so removed on the way.
 */
async function anyWorkspaceLocked(repoDir: string): Promise<boolean> {
  for (const lock of await workspaceLocks(repoDir)) {
    if (!(await tryWithFileLock(lock.dir, async () => undefined)).ran) return true;
  }
  return false;
}

/**
 * Removes the preparation records (`pr-<N>`, `pr-<N>.index`) of pull requests not in `present`,
 * and temporary files of killed writers older than `PRUNE_GRACE_MS`.
 */
async function removeTreeRecords(dir: string, present: ReadonlySet<number>): Promise<void> {
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    const full = path.join(dir, name);
    const number = /^pr-([1-9][0-9]*)(\.index)?$/.exec(name)?.[1];
    let remove = number !== undefined && !present.has(Number(number));
    if (number === undefined && name.endsWith('.tmp')) {
      const modified = await lstat(full).then(
        (s) => s.mtimeMs,
        () => Date.now(),
      );
      remove = Date.now() - modified > PRUNE_GRACE_MS;
    }
    if (remove) await rm(full, { force: true });
  }
}

/**
 * Looks after the store of `repoDir` (it must exist). With no `pr-<N>` directory left, removes the
 * whole `<repoDir>/.store` — only when no job of this process uses the repository directory (its
 * tree lock), no other process holds the store lock and no job of any process holds a workspace
 * lock `pr-<N>.lock` of the repository (refs of locked pull requests are kept too). Otherwise, under the store lock, deletes
 * `refs/reviewbot/pr-<N>` of every `pr-<N>` that is gone and runs `git gc --prune=<PRUNE_GRACE>`
 * when refs were dropped or more than 2,000 loose objects or 8 packs accumulated (killed after
 * `timeoutMs`, default 10 minutes; git's gc is safe to interrupt). The spare tree goes with the
 * store; temporary spare directories of killed builds go after `STALE_SPARE_MS`. Rejects on a git
 * failure.
 */
export async function maintainStore(
  repoDir: string,
  options: { timeoutMs?: number } = {},
): Promise<StoreUpkeep> {
  const paths = storePaths(repoDir);
  if ((await prNumbers(repoDir)).size === 0) {
    const done = await processWorkspaceLock.tryRun(repoDir, () =>
      withFileLock(paths.lockDir, async () => {
        if ((await prNumbers(repoDir)).size > 0 || (await anyWorkspaceLocked(repoDir))) return false;
        await rm(paths.gitDir, { recursive: true, force: true, maxRetries: 3 });
        await removeSpareTrees(repoDir, true);
        await rm(sharedIndexDir(repoDir), { recursive: true, force: true, maxRetries: 3 });
        await rm(path.join(paths.root, 'trees'), { recursive: true, force: true, maxRetries: 3 });
        return true;
      }),
    );
    if (!done.ran || !done.value) return { action: 'busy' };
    await rmdir(paths.root).catch(() => undefined);
    return { action: 'removed' };
  }
  return withStoreLock(repoDir, async () => {
    const git = (args: string[]) =>
      runGit([`--git-dir=${paths.gitDir}`, ...args], {
        cwd: paths.root,
        timeoutMs: options.timeoutMs ?? GC_TIMEOUT_MS,
      });
    // A spare tree needs none of the dropped refs' objects: claiming it rewrites every file
    // that differs from the new head from that head's objects. Killed builds' leftovers go.
    await removeSpareTrees(repoDir);
    // Shared indexes no remaining tree links to (their trees were removed) go too, and so do the
    // preparation records of removed trees.
    await pruneSharedIndexes(repoDir);
    // A job holding `pr-<N>.lock` may have fetched its head without having made `pr-<N>` yet.
    const present = await prNumbers(repoDir);
    for (const lock of await workspaceLocks(repoDir)) present.add(lock.prNumber);
    await removeTreeRecords(path.join(paths.root, 'trees'), present);
    const { stdout } = await git(['for-each-ref', '--format=%(refname)', STORE_REF_PREFIX]);
    const dropped: string[] = [];
    for (const ref of stdout.split('\n').filter((line) => line !== '')) {
      const number = /\/pr-([1-9][0-9]*)$/.exec(ref)?.[1];
      if (number !== undefined && present.has(Number(number))) continue;
      await git(['update-ref', '-d', ref]);
      dropped.push(ref);
    }
    const counts = Object.fromEntries(
      (await git(['count-objects', '-v'])).stdout
        .split('\n')
        .map((line) => line.split(': '))
        .filter((pair) => pair.length === 2)
        .map(([key, value]) => [key, Number(value)]),
    ) as Record<string, number>;
    const gc = dropped.length > 0 || (counts.count ?? 0) > LOOSE_LIMIT || (counts.packs ?? 0) > PACK_LIMIT;
    if (gc) await git(['gc', '--quiet', `--prune=${PRUNE_GRACE}`]);
    return { action: 'kept' as const, droppedRefs: dropped, gc };
  });
}

/** Every `<repo dir>/.store` directory's repository directory under `<root>/<platform>/` (depth ≥ 2). */
export async function findStores(root: string, platforms: readonly string[]): Promise<string[]> {
  const out: string[] = [];
  async function walk(dir: string, depth: number): Promise<void> {
    if (depth > 24) return;
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      if (!entry.isDirectory() || entry.name === '.git' || entry.name === '.deps') continue;
      if (PR_DIR.test(entry.name) || PR_LOCK_NAME.test(entry.name)) continue;
      if (entry.name === '.store') {
        if (depth >= 2) out.push(dir);
      } else await walk(path.join(dir, entry.name), depth + 1);
    }
  }
  for (const platform of platforms) await walk(path.join(root, platform), 0);
  return out.sort();
}
