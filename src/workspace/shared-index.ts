/**
 * One index for all working trees of a repository (CONTRACT §19). Every `pr-<N>` tree needs an
 * index (git's list of the checked-out files with their stat data, ~70 bytes per file: 1.7 MB for
 * 20,000 files), and ten trees of a repository would hold ten near-identical copies of it. Git's
 * split index (git-update-index(1) "SPLIT INDEX") keeps the bulk in a `sharedindex.<hash>` file and
 * only each tree's changes in its own small `.git/index`; git looks for that file in the tree's
 * own `.git`. So the store keeps one shared index per repository at
 * `<repo dir>/.store/shared-index/sharedindex.<hash>` (plus `template.<hash>`, the small index that
 * points at it with no changes, and `current`, naming the one new trees take), and each tree's
 * `.git/sharedindex.<hash>` is a symbolic link to it: the tool sandbox binds that directory
 * read-only, so an agent can replace its own tree's link but never write the file other trees read.
 *
 * An index entry matches a file when their stat data do; the files of different trees differ in
 * inode and times, so trees sharing entries compare only what can be made equal
 * (`core.checkStat=minimal`: whole-second mtime and size; `core.trustctime=false`) and every tracked
 * file of a tree taking the shared index has its mtime set to `SHARED_FILE_TIME_S` first. Files git
 * writes later (the pull request's own changes, an agent's edits) get the current time as always,
 * so git sees every change it saw before.
 *
 * A tree takes the shared index only while no agent has run in it: a spare tree as it is built
 * (`spare-tree.ts`) and a workspace made by a full checkout right after the checkout
 * (`shareNewTree`). A tree's own `.git/index` is the agent's to write (a WORKER's sandbox binds the
 * workspace read-write), so the next update of a tree never trusts it: it takes the store's
 * template again (`retakeSharedIndex`), and since a tracked file's mtime is all git compares, any
 * file at `SHARED_FILE_TIME_S` whose change time is later than the end of our last preparation of
 * the tree (`markTreePrepared`, a record under `.store/trees/` outside every sandbox) gets the
 * current time, so git compares its content. Publishing a new shared index and linking to one run
 * under the store lock, as does removing shared indexes no tree's index names
 * (`pruneSharedIndexes`, also run by the cleaner), so a file a tree uses is never removed.
 */
import { copyFile, lstat, mkdir, readFile, readdir, readlink, rename, rm, symlink } from 'node:fs/promises';
import { constants } from 'node:fs';
import path from 'node:path';
import { readRegularFile, writeFileAtomically } from './safe-file.js';
import { withStoreLock } from './store.js';
import { PR_DIR, storePaths } from './workspace-path.js';

/** Runs hardened git in a directory (`runGit` with a call's options bound). */
export type SharedIndexGit = (args: string[], cwd: string) => Promise<{ stdout: string; stderr: string }>;

/**
 * The modification time (s since the epoch: 2000-01-01T00:00:00Z) of every tracked file of a tree
 * when it takes the shared index, so the same file in two trees has the same stat data.
 */
export const SHARED_FILE_TIME_S = 946_684_800;

/**
 * The configuration (git-config(1) syntax) a tree sharing the index needs: git compares only the
 * whole-second mtime and the size of a file with its index entry (git-config(1) `core.checkStat`,
 * `core.trustctime`), not its inode or change time, which differ between trees.
 */
export const SHARED_STAT_CONFIG = '[core]\n\tcheckStat = minimal\n\ttrustctime = false\n';

/** Name of the store's directory of shared indexes. */
const SHARED_INDEX_DIR = 'shared-index';
const SHARED_NAME = /^sharedindex\.([0-9a-f]{40}|[0-9a-f]{64})$/;
const CURRENT = 'current';
/** Largest `.git/index` read when looking for the shared index it names, bytes. */
const MAX_INDEX_BYTES = 256 * 1024 * 1024;

/** The store's shared-index directory of repository directory `repoDir`. */
export function sharedIndexDir(repoDir: string): string {
  return path.join(storePaths(repoDir).root, SHARED_INDEX_DIR);
}

/**
 * The shared-index directory workspace `dir` (a `pr-<N>` directory) may link to, when it exists as
 * a real directory; otherwise undefined. The tool sandbox binds it read-only beside the store's
 * objects, so git works inside.
 */
export async function borrowedSharedIndexDir(dir: string): Promise<string | undefined> {
  const resolved = path.resolve(dir);
  if (!PR_DIR.test(path.basename(resolved))) return undefined;
  const shared = sharedIndexDir(path.dirname(resolved));
  const stat = await lstat(shared).catch(() => undefined);
  return stat?.isDirectory() ? shared : undefined;
}

/** Entries of `gitDir` named `sharedindex.<hash>`, with whether each is a symbolic link. */
async function sharedIndexEntries(gitDir: string): Promise<Array<{ name: string; link: boolean }>> {
  const entries = await readdir(gitDir, { withFileTypes: true }).catch(() => []);
  return entries
    .filter((entry) => SHARED_NAME.test(entry.name))
    .map((entry) => ({ name: entry.name, link: entry.isSymbolicLink() }));
}

/** Whether `gitDir` holds a shared index git wrote itself (a regular file, not a link to the store). */
export async function hasOwnSharedIndex(gitDir: string): Promise<boolean> {
  return (await sharedIndexEntries(gitDir)).some((entry) => !entry.link);
}

/**
 * Why the shared-index links of workspace `dir` are not allowed, or undefined: every
 * `.git/sharedindex.<hash>` that is a symbolic link must point at the file of the same name in its
 * own repository's shared-index directory (a tree's own regular shared index, which git writes when
 * many files changed, is fine).
 */
export async function sharedIndexProblem(dir: string): Promise<string | undefined> {
  const shared = sharedIndexDir(path.dirname(path.resolve(dir)));
  for (const entry of await sharedIndexEntries(path.join(dir, '.git'))) {
    if (!entry.link) continue;
    const target = await readlink(path.join(dir, '.git', entry.name)).catch(() => '');
    if (target !== path.join(shared, entry.name)) return 'shares an index from another place';
  }
  return undefined;
}

/** The hash `current` names when its shared index and template exist; otherwise undefined. */
async function currentSharedIndex(repoDir: string): Promise<string | undefined> {
  const dir = sharedIndexDir(repoDir);
  const hash = (await readFile(path.join(dir, CURRENT), 'utf8').catch(() => '')).trim();
  if (!/^([0-9a-f]{40}|[0-9a-f]{64})$/.test(hash)) return undefined;
  for (const name of [`sharedindex.${hash}`, `template.${hash}`]) {
    if (!(await lstat(path.join(dir, name)).catch(() => undefined))?.isFile()) return undefined;
  }
  return hash;
}

/** Replaces `file` by a copy of `source` through a temporary file and a rename. */
async function copyAtomically(source: string, file: string): Promise<void> {
  const temporary = `${file}.reviewbot-${process.pid}.tmp`;
  await copyFile(source, temporary);
  await rename(temporary, file);
}

/**
 * Gives tree `treeDir` (whose `.git` is a real directory and whose tracked files already have
 * `SHARED_FILE_TIME_S`) the repository's current shared index: a link `.git/sharedindex.<hash>`
 * and a copy of the template as `.git/index` (the shared index's own commit, so the caller's
 * `git reset --hard` then rewrites only the files that differ from it). Under the store lock and
 * git's `index.lock`; the tree's other `sharedindex.*` entries go. Resolves false when the
 * repository has no shared index yet or something holds the tree's index lock; rejects when a
 * file cannot be written.
 */
export async function adoptSharedIndex(treeDir: string, repoDir: string): Promise<boolean> {
  return withStoreLock(repoDir, async () => {
    const hash = await currentSharedIndex(repoDir);
    if (hash === undefined) return false;
    const shared = sharedIndexDir(repoDir);
    const gitDir = path.join(treeDir, '.git');
    // Git's own index lock (its lockfile protocol: create `index.lock` exclusively, rename it over
    // `index`), so no git command of the tree writes its index meanwhile.
    const lock = path.join(gitDir, 'index.lock');
    try {
      await copyFile(path.join(shared, `template.${hash}`), lock, constants.COPYFILE_EXCL);
    } catch {
      return false;
    }
    try {
      const link = path.join(gitDir, `sharedindex.${hash}`);
      await rm(link, { force: true });
      await symlink(path.join(shared, `sharedindex.${hash}`), link);
      await rename(lock, path.join(gitDir, 'index'));
    } catch (error) {
      await rm(lock, { force: true });
      throw error;
    }
    // Shared indexes the tree had before (a link to an older one, one git wrote) are unused now.
    for (const entry of await sharedIndexEntries(gitDir)) {
      if (entry.name !== `sharedindex.${hash}`) await rm(path.join(gitDir, entry.name), { force: true });
    }
    return true;
  });
}

/**
 * Makes the index of tree `treeDir` (every tracked file at `SHARED_FILE_TIME_S`, index refreshed)
 * the repository's current shared index: `git update-index --split-index` pushes all of it into a
 * new `sharedindex.<hash>`, which moves into the store (the tree keeps a link to it); the tree's
 * now entry-less `.git/index` becomes the template; `current` names it; shared indexes no tree
 * links to any more are removed. Resolves with the hash. Rejects when git fails.
 */
export async function publishSharedIndex(
  treeDir: string,
  repoDir: string,
  git: SharedIndexGit,
): Promise<string> {
  const gitDir = path.join(treeDir, '.git');
  await git(['update-index', '--split-index'], treeDir);
  // The new shared index is the one whose hash the (entry-less, small) split index names.
  const index = await readFile(path.join(gitDir, 'index'));
  const own = (await sharedIndexEntries(gitDir)).filter((entry) => !entry.link);
  const hash = own
    .map((entry) => SHARED_NAME.exec(entry.name)![1]!)
    .find((candidate) => index.includes(Buffer.from(candidate, 'hex')));
  if (hash === undefined) throw new Error('git wrote no shared index');
  return withStoreLock(repoDir, async () => {
    const shared = sharedIndexDir(repoDir);
    await mkdir(shared, { recursive: true });
    const file = path.join(shared, `sharedindex.${hash}`);
    const link = path.join(gitDir, `sharedindex.${hash}`);
    await rename(link, file);
    await symlink(file, link);
    // Shared indexes this tree had before (a link to the previous one, one git wrote) are unused now.
    for (const entry of await sharedIndexEntries(gitDir)) {
      if (entry.name !== `sharedindex.${hash}`) await rm(path.join(gitDir, entry.name), { force: true });
    }
    await copyAtomically(path.join(gitDir, 'index'), path.join(shared, `template.${hash}`));
    await writeFileAtomically(path.join(shared, CURRENT), `${hash}\n`);
    await pruneSharedIndexes(repoDir);
    return hash;
  });
}

/**
 * Hashes of the shared indexes the trees of `repoDir` (workspaces, spare trees) link to and whose
 * index names them.
 */
async function linkedSharedIndexes(repoDir: string): Promise<Set<string>> {
  // The store's spare trees first: a spare claimed meanwhile is then found as `pr-<N>`.
  const trees: string[] = [];
  const store = storePaths(repoDir).root;
  for (const name of await readdir(store).catch(() => [] as string[])) {
    if (name.startsWith('spare')) trees.push(path.join(store, name));
  }
  for (const name of await readdir(repoDir).catch(() => [] as string[])) {
    if (PR_DIR.test(name)) trees.push(path.join(repoDir, name));
  }
  const linked = new Set<string>();
  for (const tree of trees) {
    const links = (await sharedIndexEntries(path.join(tree, '.git'))).filter((entry) => entry.link);
    if (links.length === 0) continue;
    // A link the tree's index no longer names (git wrote a shared index of its own since) does not
    // count; an index that is no regular file (an agent's doing) keeps every link.
    const index = await readRegularFile(path.join(tree, '.git', 'index'), MAX_INDEX_BYTES);
    for (const entry of links) {
      const hash = SHARED_NAME.exec(entry.name)![1]!;
      if (index === undefined || index.includes(Buffer.from(hash, 'hex'))) linked.add(hash);
    }
  }
  return linked;
}

/**
 * Removes the shared indexes of `repoDir`'s store that are not current and that no tree's index
 * uses (with their templates and leftovers of killed writers). The caller holds the store lock.
 */
export async function pruneSharedIndexes(repoDir: string): Promise<void> {
  const shared = sharedIndexDir(repoDir);
  const names = await readdir(shared).catch(() => [] as string[]);
  if (names.length === 0) return;
  const keep = await linkedSharedIndexes(repoDir);
  const current = await currentSharedIndex(repoDir);
  if (current !== undefined) keep.add(current);
  for (const name of names) {
    const hash = /^(?:sharedindex|template)\.([0-9a-f]+)$/.exec(name)?.[1];
    const stale = hash === undefined ? name.endsWith('.tmp') : !keep.has(hash);
    if (stale) await rm(path.join(shared, name), { force: true });
  }
}
