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
 * A tree takes the shared index only when all its tracked files hold exactly their index's
 * content: a freshly checked-out spare tree (`spare-tree.ts`), or a workspace made without the
 * spare that is idle (no job holds its locks) and clean (`shareIdleTreeIndexes`). Publishing a new
 * shared index and linking to one run under the store lock, as does removing shared indexes no
 * tree links to (`pruneSharedIndexes`, also run by the cleaner), so a file a tree links to is
 * never removed.
 */
import {
  copyFile,
  lstat,
  lutimes,
  mkdir,
  readFile,
  readdir,
  readlink,
  rename,
  rm,
  symlink,
  writeFile,
} from 'node:fs/promises';
import { constants } from 'node:fs';
import path from 'node:path';
import { alternatesProblem } from './alternates.js';
import { tryWithFileLock } from './file-lock.js';
import { processWorkspaceLock } from './lock.js';
import { withStoreLock } from './store.js';
import { PR_DIR, storePaths, workspaceLockDir } from './workspace-path.js';

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
/** Concurrent `lutimes` calls when setting a tree's file times. */
const TIME_CONCURRENCY = 16;

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

/**
 * Sets the modification (and access) time of every file tracked in `dir`'s index to
 * `SHARED_FILE_TIME_S`, without following symbolic links. Paths that are gone are skipped.
 */
export async function setTrackedFileTimes(dir: string, git: SharedIndexGit): Promise<void> {
  const { stdout } = await git(['ls-files', '-z'], dir);
  const files = stdout.split('\0').filter((file) => file !== '');
  let next = 0;
  const worker = async () => {
    while (next < files.length) {
      const file = files[next]!;
      next += 1;
      await lutimes(path.join(dir, file), SHARED_FILE_TIME_S, SHARED_FILE_TIME_S).catch(() => undefined);
    }
  };
  await Promise.all(Array.from({ length: TIME_CONCURRENCY }, worker));
}

/** Appends `SHARED_STAT_CONFIG` to `dir`'s `.git/config` unless it is there already. */
export async function addSharedStatConfig(dir: string): Promise<void> {
  const file = path.join(dir, '.git', 'config');
  const text = await readFile(file, 'utf8');
  if (text.includes(SHARED_STAT_CONFIG)) return;
  const temporary = `${file}.reviewbot-${process.pid}.tmp`;
  await writeFile(temporary, `${text}${text === '' || text.endsWith('\n') ? '' : '\n'}${SHARED_STAT_CONFIG}`);
  await rename(temporary, file);
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
 * git's `index.lock`. Resolves false when the repository has no shared index yet or a git command
 * holds the tree's index lock.
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
    } finally {
      await rm(lock, { force: true });
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
    const pointer = path.join(shared, CURRENT);
    await writeFile(`${pointer}.reviewbot-${process.pid}.tmp`, `${hash}\n`);
    await rename(`${pointer}.reviewbot-${process.pid}.tmp`, pointer);
    await pruneSharedIndexes(repoDir);
    return hash;
  });
}

/**
 * Hashes of the shared indexes the trees of `repoDir` (workspaces, spare trees) link to and whose
 * index names them.
 */
async function linkedSharedIndexes(repoDir: string): Promise<Set<string>> {
  const trees: string[] = [];
  for (const name of await readdir(repoDir).catch(() => [] as string[])) {
    if (PR_DIR.test(name)) trees.push(path.join(repoDir, name));
  }
  const store = storePaths(repoDir).root;
  for (const name of await readdir(store).catch(() => [] as string[])) {
    if (name.startsWith('spare')) trees.push(path.join(store, name));
  }
  const linked = new Set<string>();
  for (const tree of trees) {
    const links = (await sharedIndexEntries(path.join(tree, '.git'))).filter((entry) => entry.link);
    if (links.length === 0) continue;
    // A link the tree's index no longer names (git wrote a shared index of its own since) does not
    // count; an unreadable index keeps every link.
    const index = await readFile(path.join(tree, '.git', 'index')).catch(() => undefined);
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

/**
 * Gives the repository's current shared index to every `pr-<N>` tree of `repoDir` that has a whole
 * index of its own (made without the spare tree), is idle (no job of any process holds its locks)
 * and clean (no tracked file differs from its index or the index from HEAD): its tracked files
 * get `SHARED_FILE_TIME_S`, it takes the shared index, and `git reset --hard` rewrites the files
 * that differ from the shared index's commit. A tree this cannot take is left as it was. Resolves
 * with how many trees took it; never rejects.
 */
export async function shareIdleTreeIndexes(repoDir: string, git: SharedIndexGit): Promise<number> {
  let shared = 0;
  for (const name of await readdir(repoDir).catch(() => [] as string[])) {
    if (!PR_DIR.test(name)) continue;
    const dir = path.join(repoDir, name);
    if ((await sharedIndexEntries(path.join(dir, '.git'))).length > 0) continue;
    const took = await processWorkspaceLock
      .tryRun(dir, () => tryWithFileLock(workspaceLockDir(dir), () => shareTreeIndex(dir, repoDir, git)))
      .catch(() => undefined);
    if (took?.ran === true && took.value.ran && took.value.value) shared += 1;
  }
  return shared;
}

async function shareTreeIndex(dir: string, repoDir: string, git: SharedIndexGit): Promise<boolean> {
  const gitDir = path.join(dir, '.git');
  if (!(await lstat(gitDir).catch(() => undefined))?.isDirectory()) return false;
  if ((await alternatesProblem(dir, true)) !== undefined) return false;
  if ((await sharedIndexEntries(gitDir)).length > 0) return false;
  const { stdout } = await git(['status', '--porcelain', '--untracked-files=no'], dir);
  if (stdout !== '') return false;
  await addSharedStatConfig(dir);
  await setTrackedFileTimes(dir, git);
  if (!(await adoptSharedIndex(dir, repoDir))) return false;
  await git(['reset', '--quiet', '--hard'], dir);
  return true;
}
