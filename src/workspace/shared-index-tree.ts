/**
 * A working tree's side of the repository's shared index (`shared-index.ts`, CONTRACT §19): the
 * stat configuration and file times a tree needs to share it, taking it right after a full
 * checkout, and taking it again — never trusting the tree's own index — before each update.
 */
import { execFile } from 'node:child_process';
import { lstat, lutimes, mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { writeFileAtomically } from './safe-file.js';
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
function treeRecord(dir: string): string {
  const resolved = path.resolve(dir);
  return path.join(storePaths(path.dirname(resolved)).root, 'trees', path.basename(resolved));
}

/**
 * Records that we have just finished preparing workspace `dir` (before any agent runs in it): the
 * record file's modification time, set by the file system that also stamps the tree's files, is
 * the point after which a file at `SHARED_FILE_TIME_S` with a later change time was set so by
 * someone else.
 */
export async function markTreePrepared(dir: string): Promise<void> {
  const record = treeRecord(dir);
  await mkdir(path.dirname(record), { recursive: true });
  await writeFileAtomically(record, `${new Date().toISOString()}\n`);
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
 * Before workspace `dir` (sharing the repository's index, `sharesIndex`) is updated: its own index,
 * which an agent may have written, is replaced by the store's template, and every tracked file at
 * `SHARED_FILE_TIME_S` whose change time is later than `markTreePrepared`'s record (an agent's
 * edit made to look unchanged; a file of an interrupted preparation) gets the current time, so the
 * caller's `git clean` + `git reset --hard` compare its content (without a record: every file at
 * that time). Resolves with how many files were distrusted; rejects when the template cannot be
 * taken or the look takes over a minute (the caller then makes the tree afresh).
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
  const { stdout } = await execFileAsync(
    'find',
    ['.', '-path', './.git', '-prune', '-o', ...(known ? ['-cnewer', record] : []), '-print0'],
    { cwd: dir, maxBuffer: 256 * 1024 * 1024, timeout: FIND_TIMEOUT_MS, encoding: 'buffer' },
  );
  const changed = stdout
    .toString('utf8')
    .split('\0')
    .filter((file) => file !== '' && file !== '.');
  const now = Date.now() / 1000;
  let distrusted = 0;
  await eachOf(changed, async (file) => {
    const full = path.join(dir, file);
    const stat = await lstat(full).catch(() => undefined);
    if (stat === undefined || stat.isDirectory() || Math.floor(stat.mtimeMs / 1000) !== SHARED_FILE_TIME_S)
      return;
    distrusted += 1;
    await lutimes(full, now, now).catch(() => undefined);
  });
  return distrusted;
}
