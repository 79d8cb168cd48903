/**
 * Making and updating the working tree of one `pr-<N>` workspace from the repository's store
 * (CONTRACT §11, §19): its own `.git` with the configuration `git clone --single-branch` writes,
 * `objects/info/alternates` naming the store's objects, the store's shallow boundary, and the head
 * checked out. A new workspace starts from the repository's spare tree when there is one
 * (`spare-tree.ts`): git then rewrites only the files that differ between the two heads.
 */
import { lstat, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { readRegularFile, writeFileAtomically } from './safe-file.js';
import { restoreSavedIndex, retakeSharedIndex, shareNewTree, sharesIndex } from './shared-index-tree.js';
import { INDEX_CONFIG, claimSpareTree } from './spare-tree.js';
import type { StoreHead } from './store.js';

/** Runs hardened git in a directory (`runGit` with a call's options bound). */
export type TreeGit = (
  args: string[],
  cwd: string,
  extra?: { objectDirectory?: string },
) => Promise<{ stdout: string; stderr: string }>;

/**
 * The workspace's `shallow` file: the store's boundary plus the workspace's own entries (a base
 * commit `readBaseFile` fetched into it with depth 1 stays marked, so its missing parent is no
 * error); no file when both are empty.
 */
export async function writeShallow(dir: string, shallow: string): Promise<void> {
  const file = path.join(dir, '.git', 'shallow');
  const own = (await readRegularFile(file, 16 * 1024 * 1024))?.toString('utf8') ?? '';
  const lines = [...new Set(`${shallow}\n${own}`.split('\n').filter((line) => line !== ''))];
  if (lines.length === 0) await rm(file, { force: true });
  else await writeFileAtomically(file, `${lines.join('\n')}\n`);
}

/**
 * A git-config(1) value as `git config` writes it: bare, or double-quoted with `"` and `\` escaped
 * when it holds one of those, a comment character or surrounding space. Callers pass values
 * without control characters (`assertSafeCloneUrl`, `assertBranchName` reject them).
 */
function quoted(value: string): string {
  if (!/["\\#;]|^\s|\s$/.test(value)) return value;
  return `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

/** A git-config(1) subsection name: always double-quoted, `"` and `\` escaped. */
function subsection(name: string): string {
  return `"${name.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

/**
 * The configuration `git clone --single-branch --no-tags --branch <branch> <url>` adds to
 * `git init`'s, with reflogs off (the store may drop a superseded head), in git-config(1) syntax
 * ("Syntax": subsection names and values in double quotes, `"` and `\` escaped).
 */
export function cloneConfigText(url: string, branch: string): string {
  return [
    '[core]',
    '\tlogallrefupdates = false',
    '[remote "origin"]',
    `\turl = ${quoted(url)}`,
    `\tfetch = ${quoted(`+refs/heads/${branch}:refs/remotes/origin/${branch}`)}`,
    `[branch ${subsection(branch)}]`,
    '\tremote = origin',
    `\tmerge = ${quoted(`refs/heads/${branch}`)}`,
    '',
  ].join('\n');
}

/**
 * Makes workspace `dir` (absent) at `head.sha`: the spare tree renamed into place when `useSpare`
 * and one exists (its HEAD then attached to `branch`), otherwise `git init`; then the clone
 * configuration (`cloneConfigText`, one file write instead of a `git config` per key), the
 * alternates entry, the shallow boundary, the tracking ref, and `git reset --hard` (which, on a
 * spare's fresh index, writes only the files that differ). Returns whether the spare was used.
 */
export async function createWorkspace(
  dir: string,
  url: string,
  branch: string,
  head: StoreHead,
  git: TreeGit,
  useSpare: boolean,
): Promise<{ fromSpare: boolean }> {
  const parent = path.dirname(dir);
  await mkdir(parent, { recursive: true });
  if (useSpare && (await claimSpareTree(parent, dir))) {
    try {
      await writeFile(path.join(dir, '.git', 'HEAD'), `ref: refs/heads/${branch}\n`);
      await setUp(dir, url, branch, head, git);
      await rm(path.join(dir, '.git', 'ORIG_HEAD'), { force: true });
      return { fromSpare: true };
    } catch {
      // A spare that fails (e.g. built before the store was rebuilt) is dropped for a full checkout.
      await rm(dir, { recursive: true, force: true, maxRetries: 3 });
    }
  }
  // No template: no sample hooks (hooks never run) and nothing else git does not need.
  const make = async () => {
    await git(['init', '--quiet', '--template=', `--initial-branch=${branch}`, path.basename(dir)], parent);
    await setUp(dir, url, branch, head, git);
  };
  await make();
  if (useSpare) {
    // Where spare trees are kept, trees share the repository's index (`shared-index.ts`); a tree
    // that cannot take it is made again with an index of its own.
    try {
      await shareNewTree(dir, parent, git);
    } catch {
      await rm(dir, { recursive: true, force: true, maxRetries: 3 });
      await make();
    }
  }
  return { fromSpare: false };
}

/** The configuration, borrowing, boundary, tracking ref and checkout of `createWorkspace`. */
async function setUp(dir: string, url: string, branch: string, head: StoreHead, git: TreeGit): Promise<void> {
  const gitDir = path.join(dir, '.git');
  const config = path.join(gitDir, 'config');
  await writeFileAtomically(config, `${await readFile(config, 'utf8')}${cloneConfigText(url, branch)}`);
  await writeFile(
    path.join(gitDir, 'objects', 'info', 'alternates'),
    `${path.join(head.gitDir, 'objects')}\n`,
  );
  await writeShallow(dir, head.shallow);
  // Different lock files (the tracking ref; the index and the branch), so both may run at once.
  const settled = await Promise.allSettled([
    git(['update-ref', `refs/remotes/origin/${branch}`, head.sha], dir),
    git([...INDEX_CONFIG, 'reset', '--quiet', '--hard', head.sha], dir),
  ]);
  for (const result of settled) if (result.status === 'rejected') throw result.reason;
}

/**
 * Removes the objects kept in workspace `dir`'s own `.git/objects` (loose object directories and
 * packs; `info`, bound read-only in the sandbox, stays), none of which an update needs.
 */
async function removeOwnObjects(dir: string): Promise<void> {
  const objects = path.join(dir, '.git', 'objects');
  for (const name of await readdir(objects).catch(() => [] as string[])) {
    if (/^[0-9a-f]{2}$/.test(name) || name === 'pack') {
      await rm(path.join(objects, name), { recursive: true, force: true, maxRetries: 3 });
    }
  }
}

/**
 * Brings a usable workspace to `head.sha`. First its index, which an agent may have written, is
 * made trustworthy: a tree sharing the repository's index takes the store's template again
 * (`retakeSharedIndex`); another gets the index saved at the end of its last preparation back
 * (`restoreSavedIndex`; none saved: the tree is made afresh) and must mark no file skip-worktree
 * (`reset --hard` leaves those as they are) or assume-unchanged; `.git/info/attributes` goes. Then `git clean -ffdx` runs while the shallow boundary and the
 * tracking ref are written (clean only reads the index), then `git reset --hard`. Cleaning before
 * the reset leaves the same tree as after it, since `reset --hard` overwrites untracked files in
 * its way and removes tracked files the new commit drops; the tree's own objects go first and the
 * reset reads objects from the store only (`GIT_OBJECT_DIRECTORY`). Rejects when git fails or the index is not to be trusted (the
 * caller makes the tree afresh).
 */
export async function updateWorkspace(
  dir: string,
  branch: string,
  head: StoreHead,
  git: TreeGit,
): Promise<void> {
  // The tree's own index is the agent's to write: a shared tree takes the store's template again;
  // another must hold no entry that `reset --hard` leaves alone (skip-worktree) or git hides.
  // Attributes an agent wrote (`eol`, `working-tree-encoding`) must not change what we check out.
  const info = path.join(dir, '.git', 'info');
  const infoStat = await lstat(info).catch(() => undefined);
  if (infoStat !== undefined && !infoStat.isDirectory()) throw new Error('.git/info is not a directory');
  await rm(path.join(info, 'attributes'), { force: true });
  if (await sharesIndex(dir)) await retakeSharedIndex(dir, path.dirname(dir));
  else {
    if (!(await restoreSavedIndex(dir))) throw new Error('no index saved at its last preparation');
    const { stdout } = await git(['ls-files', '-v', '-z'], dir);
    if (stdout.split('\0').some((entry) => entry !== '' && !entry.startsWith('H ')))
      throw new Error('the index marks files skip-worktree or assume-unchanged');
  }
  const clean = git(['clean', '-ffdxq'], dir);
  const refs = (async () => {
    await writeShallow(dir, head.shallow);
    await git(['update-ref', `refs/remotes/origin/${branch}`, head.sha], dir);
  })();
  const [cleaned, written] = await Promise.allSettled([clean, refs]);
  if (cleaned.status === 'rejected') throw cleaned.reason;
  if (written.status === 'rejected') throw written.reason;
  // Objects from the store only: an agent could have planted one under a blob's id in `.git/objects`,
  // which then goes with every object of the tree's own (what a job needs again is fetched again:
  // the head is in the store, a WORKER's pushed commits too, a base commit `readBaseFile` fetches).
  await removeOwnObjects(dir);
  // Replace refs an agent made would still change what its own git shows (ours ignore them).
  const replaced = await git(['for-each-ref', '--format=%(refname)', 'refs/replace/'], dir);
  for (const ref of replaced.stdout.split('\n').filter((line) => line !== '')) {
    await git(['update-ref', '-d', ref], dir);
  }
  await git(['reset', '--quiet', '--hard', head.sha], dir, {
    objectDirectory: path.join(head.gitDir, 'objects'),
  });
}
