/**
 * A working tree's side of the repository's shared index (`shared-index.ts`, CONTRACT §19): the
 * stat configuration and file times a tree needs to share it, taking it right after a full
 * checkout, and taking it again — never trusting the tree's own index — before each update.
 */
import { execFile } from 'node:child_process';
import { lstat, lutimes, mkdir, readFile, rename, rm, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { readRegularFile, writeFileAtomically } from './safe-file.js';
import {
  SHARED_FILE_TIME_S,
  SHARED_STAT_CONFIG,
  adoptSharedIndex,
  hasOwnSharedIndex,
  publishSharedIndex,
  type SharedIndexGit,
} from './shared-index.js';
import { storePaths } from './workspace-path.js';

/** Concurrent `lstat`/`lutimes` calls over a tree's files. */
const FILE_CONCURRENCY = 32;
/** Time limit of the look for files changed since the last preparation, ms. */
const FIND_TIMEOUT_MS = 60_000;
/** Largest index saved for a tree that does not share the repository's, bytes. */
const MAX_SAVED_INDEX_BYTES = 256 * 1024 * 1024;
const execFileAsync = promisify(execFile);

/** The tracked paths of `dir`'s index (`git ls-files -z`). */
async function trackedFiles(dir: string, git: SharedIndexGit): Promise<string[]> {
  const { stdout } = await git(['ls-files', '-z'], dir);
  return stdout.split('\0').filter((file) => file !== '');
}

/** Runs `fn` on every item, `FILE_CONCURRENCY` at a time. */
async function eachOf<T>(items: readonly T[], fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const item = items[next]!;
      next += 1;
      await fn(item);
    }
  };
  await Promise.all(Array.from({ length: FILE_CONCURRENCY }, worker));
}

/**
 * Sets the modification (and access) time of every file tracked in `dir`'s index to
 * `SHARED_FILE_TIME_S`, without following symbolic links. Paths that are gone are skipped.
 */
export async function setTrackedFileTimes(dir: string, git: SharedIndexGit): Promise<void> {
  await eachOf(await trackedFiles(dir, git), (file) =>
    lutimes(path.join(dir, file), SHARED_FILE_TIME_S, SHARED_FILE_TIME_S).catch(() => undefined),
  );
}

/** Whether `dir`'s `.git/config` (read-only to agents) says the tree shares the repository index. */
export async function sharesIndex(dir: string): Promise<boolean> {
  const text = await readFile(path.join(dir, '.git', 'config'), 'utf8').catch(() => '');
  return text.includes(SHARED_STAT_CONFIG);
}

/** Appends `SHARED_STAT_CONFIG` to `dir`'s `.git/config` unless it is there already. */
export async function addSharedStatConfig(dir: string): Promise<void> {
  const file = path.join(dir, '.git', 'config');
  const text = await readFile(file, 'utf8');
  if (text.includes(SHARED_STAT_CONFIG)) return;
  const separator = text === '' || text.endsWith('\n') ? '' : '\n';
  await writeFileAtomically(file, `${text}${separator}${SHARED_STAT_CONFIG}`);
}

/** The record of workspace `dir` (a `pr-<N>` directory) under its store, outside every sandbox. */
export function treeRecord(dir: string): string {
  const resolved = path.resolve(dir);
  return path.join(storePaths(path.dirname(resolved)).root, 'trees', path.basename(resolved));
}

/**
 * Records that we have just finished preparing workspace `dir` (before any agent runs in it): the
 * record file's modification time, set by the file system that also stamps the tree's files, is
 * the point after which a file at `SHARED_FILE_TIME_S` with a later change time was set so by
 * someone else. A tree with an index of its own (not sharing) also has that index saved beside the
 * record (`<record>.index`), which its next update puts back (`restoreSavedIndex`): its stat data
 * (change times, inodes) are ours, so git sees every file an agent touched since.
 */
export async function markTreePrepared(dir: string, shares: boolean): Promise<void> {
  const record = treeRecord(dir);
  await mkdir(path.dirname(record), { recursive: true });
  if (shares) await rm(`${record}.index`, { force: true });
  else {
    const file = path.join(dir, '.git', 'index');
    const index = await readRegularFile(file, MAX_SAVED_INDEX_BYTES);
    if (index === undefined) await rm(`${record}.index`, { force: true });
    else {
      // With the index's own time: git treats entries as racily clean against it (git(1) "racy git").
      const { mtime } = await lstat(file);
      await writeFileAtomically(`${record}.index`, index, mtime);
    }
  }
  await writeFileAtomically(record, `${new Date().toISOString()}\n`);
}

/**
 * Puts the index `markTreePrepared` saved for workspace `dir` back as its `.git/index` (git's lock
 * protocol: `index.lock` created exclusively, renamed over the index). Resolves false when there is
 * no saved index or the lock is held.
 */
export async function restoreSavedIndex(dir: string): Promise<boolean> {
  const file = `${treeRecord(dir)}.index`;
  const saved = await readRegularFile(file, MAX_SAVED_INDEX_BYTES);
  if (saved === undefined) return false;
  const lock = path.join(dir, '.git', 'index.lock');
  try {
    await writeFile(lock, saved, { flag: 'wx' });
  } catch {
    return false;
  }
  try {
    // The saved index's time (its original's), so entries racily clean then are still compared.
    const { mtime } = await lstat(file);
    await utimes(lock, mtime, mtime);
    await rename(lock, path.join(dir, '.git', 'index'));
  } catch (error) {
    await rm(lock, { force: true });
    throw error;
  }
  return true;
}

/**
 * Gives workspace `dir`, fresh from a full checkout (no agent has run in it), the repository's
 * shared index: its files take `SHARED_FILE_TIME_S` and it takes the store's template and `git
 * reset --hard` rewrites the files that differ from it; with no shared index yet, its own index
 * (refreshed: git reads every file once) becomes the repository's. Rejects when git fails.
 */
export async function shareNewTree(dir: string, repoDir: string, git: SharedIndexGit): Promise<void> {
  await addSharedStatConfig(dir);
  await setTrackedFileTimes(dir, git);
  if (await adoptSharedIndex(dir, repoDir)) {
    await git(['reset', '--quiet', '--hard'], dir);
    if (!(await hasOwnSharedIndex(path.join(dir, '.git')))) return;
    // Git wrote a shared index of its own: this head is far from the shared one's.
    await setTrackedFileTimes(dir, git);
  }
  await git(['update-index', '-q', '--refresh'], dir);
  await publishSharedIndex(dir, repoDir, git);
}

/**
 * The entries find(1) prints (`-print0`) when run in `dir` with `args`, as bytes relative to `dir`
 * (a name need not be UTF-8; `./` removed, `.` itself left out). Rejects when find fails or takes
 * over `FIND_TIMEOUT_MS`.
 */
async function findEntries(dir: string, args: string[]): Promise<Buffer[]> {
  const { stdout } = await execFileAsync('find', args, {
    cwd: dir,
    maxBuffer: 256 * 1024 * 1024,
    timeout: FIND_TIMEOUT_MS,
    encoding: 'buffer',
  });
  const entries: Buffer[] = [];
  for (let start = 0; start < stdout.length;) {
    const end = stdout.indexOf(0, start);
    const entry = stdout.subarray(start, end === -1 ? stdout.length : end);
    start = end === -1 ? stdout.length : end + 1;
    if (entry.length > 2 && entry[0] === 0x2e && entry[1] === 0x2f) entries.push(entry.subarray(2));
  }
  return entries;
}

/**
 * Before workspace `dir` (sharing the repository's index, `sharesIndex`) is updated: its own index,
 * which an agent may have written, is replaced by the store's template, and every tracked file at
 * `SHARED_FILE_TIME_S` whose change time is later than `markTreePrepared`'s record (an agent's
 * edit made to look unchanged; a file of an interrupted preparation) gets the current time, so the
 * caller's `git clean` + `git reset --hard` compare its content (without a record: every file at
 * that time); so is every such file beneath a changed directory (a directory renamed into place).
 * Resolves with how many files were distrusted; rejects when the template cannot be taken or
 * find(1) fails (an unreadable directory, over a minute) — the caller then makes the tree afresh.
 */
export async function retakeSharedIndex(dir: string, repoDir: string): Promise<number> {
  if (!(await adoptSharedIndex(dir, repoDir))) throw new Error('the shared index could not be taken');
  const record = treeRecord(dir);
  const known = await lstat(record).then(
    () => true,
    () => false,
  );
  // find(1) lists what changed since the record (its change time after the record's modification
  // time) in a fraction of the time stat calls from here take; without a record, every file.
  const changed = await findEntries(dir, [
    '.',
    '-path',
    './.git',
    '-prune',
    '-o',
    ...(known ? ['-cnewer', record] : []),
    '-print0',
  ]);
  const root = Buffer.from(`${path.resolve(dir)}/`);
  const now = Date.now() / 1000;
  let distrusted = 0;
  const distrust = async (entry: Buffer) => {
    const full = Buffer.concat([root, entry]);
    const stat = await lstat(full).catch(() => undefined);
    if (stat === undefined || stat.isDirectory()) return false;
    if (Math.floor(stat.mtimeMs / 1000) !== SHARED_FILE_TIME_S) return true;
    distrusted += 1;
    await lutimes(full, now, now).catch(() => undefined);
    return true;
  };
  // A directory renamed into place (two swapped) changes its own change time, not its files':
  // every file beneath a changed directory is distrusted too.
  const directories: Buffer[] = [];
  await eachOf(changed, async (entry) => {
    if (!(await distrust(entry))) directories.push(entry);
  });
  if (directories.length > 0) {
    const prefixes = directories.map((d) => Buffer.concat([d, Buffer.from('/')]));
    const files = await findEntries(dir, [
      '.',
      '-path',
      './.git',
      '-prune',
      '-o',
      '!',
      '-type',
      'd',
      '-print0',
    ]);
    const beneath = files.filter((file) =>
      prefixes.some((prefix) => file.subarray(0, prefix.length).equals(prefix)),
    );
    await eachOf(beneath, async (entry) => {
      await distrust(entry);
    });
  }
  return distrusted;
}
