/**
 * The gate every git run of ours on a `pr-<N>` workspace passes (CONTRACT §16): nothing an agent
 * can write is ever executed or followed by our git on the host. An agent's Bash can make
 * repositories anywhere in the work tree (a nested repository brings its own configuration, so
 * its filters, fsmonitor and hooks would run as the server's user the moment our `git add` or
 * `git status` enters it), and where `.git` is writable (no sandbox) it can plant a symbolic link
 * (`COMMIT_EDITMSG`, `FETCH_HEAD`, `refs/remotes/origin`, `refs/replace`: git writes and deletes
 * through them) or a named pipe (`HEAD`: git's open waits for a writer forever).
 *
 * So before the first git run on a workspace after an agent could have touched it, the caller asks
 * `workspaceGitProblem`, which reads the file system only (`lstat`, `readdir`, `find(1)`; it never
 * opens a file an agent made): `.git` must be a real directory of ours holding only directories
 * and regular files (each with one link) — the one exception the shared-index links, checked
 * against the repository's store — and no entry named `.git` (any case, any type) may exist below
 * the root, nor a named pipe anywhere in the tree (git opens each `.gitignore` it walks past: a
 * pipe there would hold `git status` until its time limit). A workspace that fails is made afresh
 * (`prepareWorkspace`) or not committed from (`commitAndPush`, with the reason for the requester).
 * Every such run also gets `WORKSPACE_GIT_CONFIG`, so git neither looks into submodules nor writes
 * `FETCH_HEAD`.
 */
import { execFile } from 'node:child_process';
import { lstat, readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { GitError } from '../errors.js';
import { sharedIndexProblem } from './shared-index.js';

const execFileAsync = promisify(execFile);

/** Time limit of the look for nested repositories, ms. */
const FIND_TIMEOUT_MS = 60_000;
/** Time limit of each step of removing a work tree the plain way could not, ms. */
const REMOVE_TIMEOUT_MS = 10 * 60_000;
/** A tree-sharing link the repository's store owns (`shared-index.ts`), the only link allowed. */
const SHARED_INDEX_LINK = /^sharedindex\.([0-9a-f]{40}|[0-9a-f]{64})$/;

/**
 * Configuration of every git run of ours on a workspace (command scope, beating `.git/config`):
 * submodules are never looked into (`git status`, `git commit` and `git diff` otherwise run
 * `git status` inside each gitlink's directory, with that repository's configuration), a fetch
 * writes no `FETCH_HEAD`, and no attributes file outside the repository is read.
 */
export const WORKSPACE_GIT_CONFIG: Readonly<Record<string, string>> = {
  'diff.ignoreSubmodules': 'all',
  'status.submoduleSummary': 'false',
  'fetch.writeFetchHead': 'false',
  'core.attributesFile': '/dev/null',
};

/** Why one entry of `.git` is not what git alone would have made there, or undefined. */
async function gitEntryProblem(full: string, relative: string, kind: string): Promise<string | undefined> {
  if (kind === 'link') {
    // The shared-index links are checked as a whole (`sharedIndexProblem`).
    return relative.includes('/') || !SHARED_INDEX_LINK.test(relative)
      ? `.git/${relative} is a symbolic link`
      : undefined;
  }
  if (kind !== 'file' && kind !== 'dir') return `.git/${relative} is a ${kind}`;
  // Loose objects and packs are only ever read (git writes a new object beside, never through, one).
  if (kind === 'file' && !relative.startsWith('objects/')) {
    const stat = await lstat(full).catch(() => undefined);
    if (stat === undefined || !stat.isFile()) return `.git/${relative} changed while it was checked`;
    if (stat.nlink !== 1) return `.git/${relative} is a hard link`;
  }
  return undefined;
}

/** The kind of a directory entry, without following it. */
function kindOf(entry: {
  isFile(): boolean;
  isDirectory(): boolean;
  isSymbolicLink(): boolean;
  isFIFO(): boolean;
  isSocket(): boolean;
}): string {
  if (entry.isFile()) return 'file';
  if (entry.isDirectory()) return 'dir';
  if (entry.isSymbolicLink()) return 'link';
  if (entry.isFIFO()) return 'named pipe';
  if (entry.isSocket()) return 'socket';
  return 'device';
}

/** The first problem among the entries below `gitDir`, walked without following anything. */
async function gitDirProblem(gitDir: string): Promise<string | undefined> {
  const pending = [''];
  while (pending.length > 0) {
    const relative = pending.pop()!;
    let entries;
    try {
      entries = await readdir(path.join(gitDir, relative), { withFileTypes: true });
    } catch {
      return `.git/${relative} cannot be read`;
    }
    for (const entry of entries) {
      const child = relative === '' ? entry.name : `${relative}/${entry.name}`;
      const kind = kindOf(entry);
      const problem = await gitEntryProblem(path.join(gitDir, child), child, kind);
      if (problem !== undefined) return problem;
      if (kind === 'dir') pending.push(child);
    }
  }
  return undefined;
}

/**
 * The first entry below the root of work tree `dir` that our git must not meet, as a path relative
 * to it, or undefined: one named `.git` (any case: a directory, a gitfile, a link — a nested
 * repository) or a named pipe or device (git opens every `.gitignore` it walks past and the
 * `.gitattributes` of a path it adds, and an open of a pipe waits for a writer). find(1) lists
 * without following links or opening anything and never descends into the root's own `.git`.
 * @throws Error when find fails (an unreadable directory) or takes over a minute.
 */
export async function findPlantedEntry(dir: string): Promise<string | undefined> {
  const { stdout } = await execFileAsync(
    'find',
    // prettier-ignore
    ['.', '-path', './.git', '-prune', '-o',
      '(', '-iname', '.git', '-o', '-type', 'p', '-o', '-type', 'b', '-o', '-type', 'c', ')',
      '-print0', '-quit'],
    { cwd: dir, timeout: FIND_TIMEOUT_MS, maxBuffer: 1024 * 1024, encoding: 'utf8' },
  );
  const first = stdout.split('\0')[0];
  return first === undefined || first === '' ? undefined : first.replace(/^\.\//, '');
}

/** What `findPlantedEntry` found at `relative` (below `dir`), for the reason shown to the requester. */
async function plantedProblem(dir: string, relative: string): Promise<string> {
  if (path.basename(relative).toLowerCase() === '.git')
    return `the work tree holds a git repository at ${relative}`;
  const stat = await lstat(path.join(dir, relative)).catch(() => undefined);
  const kind = stat?.isFIFO() === true ? 'named pipe' : 'device';
  return `the work tree holds a ${kind} at ${relative}`;
}

/**
 * Why our git must not run in workspace `dir`, or undefined when it may (see the module comment):
 * `.git` missing or not a real directory owned by this process's user, an entry of `.git` that is
 * a symbolic link (other than a shared-index link into its own repository's store), a named pipe,
 * socket or device, a hard-linked file, a repository nested anywhere in the work tree, or a named
 * pipe or device anywhere in it (`findPlantedEntry`). Reads the file system only; the reason
 * names paths relative to `dir` and is fit to show the requester.
 */
export async function workspaceGitProblem(dir: string): Promise<string | undefined> {
  const gitDir = path.join(dir, '.git');
  const stat = await lstat(gitDir).catch(() => undefined);
  if (stat === undefined) return '.git is missing';
  if (!stat.isDirectory()) return '.git is not a directory';
  const uid = process.getuid?.();
  if (uid !== undefined && stat.uid !== uid) return '.git belongs to another user';
  const inGitDir = (await gitDirProblem(gitDir)) ?? (await sharedIndexProblem(dir));
  if (inGitDir !== undefined) return inGitDir;
  let planted: string | undefined;
  try {
    planted = await findPlantedEntry(dir);
  } catch {
    return 'the work tree could not be searched for nested repositories and named pipes';
  }
  return planted === undefined ? undefined : plantedProblem(dir, planted);
}

/**
 * Throws GitError `refusing to <action>: <problem>; nothing an agent made in the workspace is run
 * or followed by the bot's own git` when `workspaceGitProblem(dir)` finds one.
 */
export async function assertWorkspaceGitSafe(dir: string, action: string): Promise<void> {
  const problem = await workspaceGitProblem(dir);
  if (problem !== undefined) {
    throw new GitError(
      `refusing to ${action}: ${problem} (the bot's own git never enters a repository or follows a link or pipe an agent made in the workspace)`,
    );
  }
}

/**
 * Removes work tree `dir` (a workspace an agent may have written) and everything in it, however it
 * was left: `fs.rm` first; where that fails — a directory an agent made unreadable (`chmod 000`,
 * the root included, which a server not running as root cannot list) or a tree nested deeper than
 * the system's path limit (ENAMETOOLONG) — every directory is made the owner's to read again
 * (`find -execdir`, which works relative to each directory) and `rm -rf` removes the rest the same
 * way. Symbolic links are removed, never followed. Without this, such a workspace could never be
 * made afresh and every later job of the pull request would fail.
 * @throws Error when `dir` still exists afterwards.
 */
export async function removeWorkTree(dir: string): Promise<void> {
  try {
    await rm(dir, { recursive: true, force: true, maxRetries: 3 });
    return;
  } catch {
    // The hard way below.
  }
  const options = { timeout: REMOVE_TIMEOUT_MS, env: { PATH: '/usr/bin:/bin' } };
  await execFileAsync(
    'find',
    [dir, '-type', 'd', '!', '-perm', '-u=rwx', '-execdir', 'chmod', 'u+rwx', '{}', ';'],
    options,
  ).catch(() => undefined);
  await execFileAsync('rm', ['-rf', '--', dir], options).catch(() => undefined);
  if ((await lstat(dir).catch(() => undefined)) !== undefined) {
    throw new Error(`${dir} could not be removed`);
  }
}
