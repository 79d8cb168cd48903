/**
 * What an agent can plant in a workspace for our own git on the host (CONTRACT §16), each planted
 * the way a Bash command would (plain git and the file system, no sandbox here) and each followed
 * by the git run of ours that used to execute or follow it: a repository nested in the tree whose
 * filter runs when we commit, `.git/COMMIT_EDITMSG` and `.git/FETCH_HEAD` linked to a file
 * elsewhere, `.git/refs/remotes/origin` and `.git/refs/replace` linked to a directory elsewhere, a
 * named pipe at `.git/HEAD` (also in a `.git` swapped in by `mv`). Nothing may run, nothing outside
 * may change, and nothing may wait on the pipe.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, readFile, readdir, rename, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GitError } from '../errors.js';
import { commitAndPush, listWorkspaceChanges } from './commit-and-push.js';
import { pathExists, prepareOptions, startGitFixture, type GitFixture } from './git-fixture.test-helper.js';
import { readBaseFile } from './read-base-file.js';
import { prepareWorkspace } from './workspace.js';
import { workspaceGitProblem } from './workspace-guard.js';

let fx: GitFixture;
let url: string;
let dir: string;
/** A file of another repository (a learnings file) the attacks aim at. */
let victim: string;
const VICTIM_TEXT = '{"version":1,"learnings":[]}\n';
/** Our git runs get a short limit here: a run waiting on a pipe fails the test in seconds. */
const TIMEOUT_MS = 8_000;

beforeEach(async () => {
  fx = await startGitFixture();
  url = await fx.createRepo('acme/widgets', { 'a.txt': 'a\n' });
  await fx.commit('acme/widgets', { 'b.txt': 'b\n' }, { branch: 'feature' });
  ({ dir } = await prepareWorkspace(prepareOptions(fx, url, { branch: 'feature', timeoutMs: TIMEOUT_MS })));
  victim = path.join(fx.root, 'learnings', 'acme-other.json');
  await mkdir(path.dirname(victim), { recursive: true });
  await writeFile(victim, VICTIM_TEXT);
});
afterEach(async () => {
  await fx.close();
});

const push = (message = 'the requester wrote this') =>
  commitAndPush(dir, {
    message,
    authorName: 'rb-worker',
    authorEmail: 'rb-worker@example.com',
    cloneUrl: url,
    branch: 'feature',
    credentials: { username: 'x-access-token', password: fx.token },
    timeoutMs: TIMEOUT_MS,
  });
const prepareAgain = () =>
  prepareWorkspace(prepareOptions(fx, url, { branch: 'feature', timeoutMs: TIMEOUT_MS }));
const remoteHead = () => fx.git(fx.barePath('acme/widgets'), 'rev-parse', 'refs/heads/feature');
const baseSha = () => fx.git(fx.barePath('acme/widgets'), 'rev-parse', 'refs/heads/main');

/** Resolves within `ms` or fails the test (a run of ours waiting on a pipe never resolves). */
const quickly = <T>(promise: Promise<T>, ms = 6_000) =>
  Promise.race([
    promise,
    new Promise<never>((_resolve, reject) =>
      setTimeout(() => reject(new Error(`still waiting after ${ms} ms`)), ms),
    ),
  ]);

/** `sub/` made a repository whose clean filter writes `marker` (as a Bash command would). */
async function plantFilterRepository(marker: string): Promise<void> {
  const sub = path.join(dir, 'sub');
  await mkdir(sub);
  await fx.git(sub, 'init', '--quiet');
  await fx.git(sub, 'config', 'filter.pwn.clean', 'sh .git/pwn.sh');
  await writeFile(path.join(sub, '.git', 'pwn.sh'), `echo ran >> ${marker}; cat\n`);
  await writeFile(path.join(sub, '.gitattributes'), 'f filter=pwn\n');
  await writeFile(path.join(sub, 'f'), 'a\n');
  await fx.git(sub, 'add', 'f', '.gitattributes');
  await fx.git(sub, 'commit', '--quiet', '-m', 's');
  await rm(marker, { force: true });
  // A newer stat makes git hash `f` again, through the filter.
  const later = new Date(Date.now() + 5_000);
  execFileSync('touch', ['-d', later.toISOString(), path.join(sub, 'f')]);
  await writeFile(path.join(dir, 'c.txt'), 'the change asked for\n');
}

describe('a repository nested in the work tree', () => {
  it('is never entered: the commit is refused with the reason and its filter never runs', async () => {
    const marker = path.join(fx.root, 'filter-ran');
    await plantFilterRepository(marker);
    const before = await remoteHead();
    await expect(listWorkspaceChanges(dir, before, { timeoutMs: TIMEOUT_MS })).rejects.toThrow(
      /refusing to look at the changes: the work tree holds a git repository at sub\/\.git/,
    );
    const error = await push().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GitError);
    expect((error as Error).message).toMatch(/refusing to commit the changes: .* at sub\/\.git/);
    expect(await pathExists(marker)).toBe(false);
    expect(await remoteHead()).toBe(before);
  });

  it.each([
    ['a gitfile', async (sub: string) => writeFile(path.join(sub, '.git'), 'gitdir: /elsewhere\n')],
    ['a link', async (sub: string) => symlink('/tmp', path.join(sub, '.git'))],
    ['an upper-case directory', async (sub: string) => mkdir(path.join(sub, '.GIT'))],
  ])('is found when its .git is %s, deep in the tree', async (_kind, plant) => {
    const sub = path.join(dir, 'deep', 'er');
    await mkdir(sub, { recursive: true });
    await plant(sub);
    expect(await workspaceGitProblem(dir)).toMatch(/git repository at deep\/er\/\.git/i);
  });

  it('makes the next preparation start afresh, without the nested repository', async () => {
    const marker = path.join(fx.root, 'filter-ran');
    await plantFilterRepository(marker);
    await prepareAgain();
    expect(await pathExists(path.join(dir, 'sub'))).toBe(false);
    expect(await workspaceGitProblem(dir)).toBeUndefined();
    expect(await pathExists(marker)).toBe(false);
  });
});

describe('links planted in .git', () => {
  it('COMMIT_EDITMSG linked to another file: the commit is refused, the file keeps its content', async () => {
    await symlink(victim, path.join(dir, '.git', 'COMMIT_EDITMSG'));
    await writeFile(path.join(dir, 'c.txt'), 'c\n');
    await expect(push()).rejects.toThrow(
      /refusing to commit the changes: \.git\/COMMIT_EDITMSG is a symbolic link/,
    );
    expect(await readFile(victim, 'utf8')).toBe(VICTIM_TEXT);
  });

  it('COMMIT_EDITMSG hard-linked to another file: refused too', async () => {
    execFileSync('ln', [victim, path.join(dir, '.git', 'COMMIT_EDITMSG')]);
    await writeFile(path.join(dir, 'c.txt'), 'c\n');
    await expect(push()).rejects.toThrow(/COMMIT_EDITMSG is a hard link/);
    expect(await readFile(victim, 'utf8')).toBe(VICTIM_TEXT);
  });

  it('FETCH_HEAD linked to another file: the base fetch writes nothing through it', async () => {
    await symlink(victim, path.join(dir, '.git', 'FETCH_HEAD'));
    // The review reads its base file in the workspace as it was left…
    const options = {
      dir,
      sha: await baseSha(),
      cloneUrl: url,
      credentials: { username: 'x-access-token', password: fx.token },
    };
    expect(await readBaseFile({ ...options, path: 'a.txt' })).toBeUndefined();
    expect(await readFile(victim, 'utf8')).toBe(VICTIM_TEXT);
    // …and after the next preparation, which makes such a workspace afresh.
    await prepareAgain();
    expect(await pathExists(path.join(dir, '.git', 'FETCH_HEAD'))).toBe(false);
    expect(await readBaseFile({ ...options, path: 'a.txt' })).toBe('a\n');
    expect(await pathExists(path.join(dir, '.git', 'FETCH_HEAD'))).toBe(false);
    expect(await readFile(victim, 'utf8')).toBe(VICTIM_TEXT);
  });

  it('refs/remotes/origin linked to a directory elsewhere: the update creates nothing there', async () => {
    const outside = path.join(fx.root, 'outside-refs');
    await mkdir(outside);
    await rm(path.join(dir, '.git', 'refs', 'remotes', 'origin'), { recursive: true });
    await symlink(outside, path.join(dir, '.git', 'refs', 'remotes', 'origin'));
    await fx.commit('acme/widgets', { 'd.txt': 'd\n' }, { branch: 'feature' });
    const { headSha } = await prepareAgain();
    expect(headSha).toBe(await remoteHead());
    expect(await readdir(outside)).toEqual([]);
  });

  it('refs/replace linked to a directory elsewhere: the clean-up deletes nothing there', async () => {
    const outside = path.join(fx.root, 'outside-replace');
    await mkdir(outside);
    const head = await remoteHead();
    // A file the shape of a ref, as the victim directory might hold.
    await writeFile(path.join(outside, head), `${head}\n`);
    await symlink(outside, path.join(dir, '.git', 'refs', 'replace'));
    await prepareAgain();
    expect(await readdir(outside)).toEqual([head]);
  });
});

describe('a named pipe where git opens a file', () => {
  it('.git/HEAD: the commit is refused at once and the next preparation makes the workspace afresh', async () => {
    await rm(path.join(dir, '.git', 'HEAD'));
    execFileSync('mkfifo', [path.join(dir, '.git', 'HEAD')]);
    await writeFile(path.join(dir, 'c.txt'), 'c\n');
    await expect(quickly(push())).rejects.toThrow(/\.git\/HEAD is a named pipe/);
    const options = {
      dir,
      sha: await baseSha(),
      cloneUrl: url,
      credentials: { username: 'x-access-token', password: fx.token },
    };
    expect(await quickly(readBaseFile({ ...options, path: 'a.txt' }))).toBeUndefined();
    const { headSha } = await quickly(prepareAgain());
    expect(headSha).toBe(await remoteHead());
    expect(await workspaceGitProblem(dir)).toBeUndefined();
  });

  it('a .git swapped in by mv, holding the pipe: made afresh too', async () => {
    await rename(path.join(dir, '.git'), path.join(dir, '.git2'));
    await mkdir(path.join(dir, '.git'));
    execFileSync('cp', ['-r', path.join(dir, '.git2', 'config'), path.join(dir, '.git', 'config')]);
    execFileSync('mkfifo', [path.join(dir, '.git', 'HEAD')]);
    expect(await workspaceGitProblem(dir)).toMatch(/\.git\/HEAD is a named pipe/);
    const { headSha } = await quickly(prepareAgain());
    expect(headSha).toBe(await remoteHead());
    expect(await pathExists(path.join(dir, '.git2'))).toBe(false);
  });
});

describe('a named pipe in the work tree', () => {
  // git opens every `.gitignore` it walks past (and `.gitattributes` for a path it adds): a pipe
  // there made `git status` and `git add --all` wait for a writer until their time limit.
  it.each(['.gitignore', 'deep/er/.gitignore', 'deep/.gitattributes'])(
    '%s: the changes are not looked at, the commit is refused at once, the next preparation starts afresh',
    async (name) => {
      await mkdir(path.join(dir, 'deep', 'er'), { recursive: true });
      execFileSync('mkfifo', [path.join(dir, name)]);
      await writeFile(path.join(dir, 'deep', 'c.txt'), 'the change asked for\n');
      const before = await remoteHead();
      const reason = new RegExp(`the work tree holds a named pipe at ${name.replaceAll('.', '\\.')}`);
      await expect(quickly(listWorkspaceChanges(dir, before, { timeoutMs: TIMEOUT_MS }))).rejects.toThrow(
        reason,
      );
      await expect(quickly(push())).rejects.toThrow(reason);
      expect(await remoteHead()).toBe(before);
      const { headSha } = await quickly(prepareAgain());
      expect(headSha).toBe(before);
      expect(await pathExists(path.join(dir, name))).toBe(false);
      expect(await workspaceGitProblem(dir)).toBeUndefined();
    },
  );
});

describe('a tree made hard to remove', () => {
  it('deeper than the system path limit, a repository at its bottom: the next preparation makes it afresh', async () => {
    // Relative steps: the tree's absolute paths end up longer than PATH_MAX (4096), which
    // `fs.rm` cannot unlink.
    execFileSync(
      'sh',
      [
        '-c',
        'i=0; while [ $i -lt 400 ]; do mkdir aaaaaaaaaa && cd aaaaaaaaaa || break; i=$((i+1)); done; mkdir .git',
      ],
      { cwd: dir, stdio: 'ignore' },
    );
    expect(await workspaceGitProblem(dir)).toMatch(/git repository at (aaaaaaaaaa\/)+\.git/);
    const { headSha } = await prepareAgain();
    expect(headSha).toBe(await remoteHead());
    expect(await pathExists(path.join(dir, 'aaaaaaaaaa'))).toBe(false);
    expect(await workspaceGitProblem(dir)).toBeUndefined();
  });

  // Root reads any directory: what `chmod 000` does to a server running as another user.
  it.skipIf(process.getuid?.() === 0)(
    'directories made unreadable (the root too): the next preparation makes it afresh',
    async () => {
      await mkdir(path.join(dir, 'locked', 'in'), { recursive: true });
      await writeFile(path.join(dir, 'locked', 'in', 'f'), 'f\n');
      execFileSync('chmod', ['000', path.join(dir, 'locked', 'in'), path.join(dir, 'locked')]);
      expect(await workspaceGitProblem(dir)).toMatch(/could not be searched/);
      expect((await prepareAgain()).headSha).toBe(await remoteHead());
      expect(await pathExists(path.join(dir, 'locked'))).toBe(false);
      execFileSync('chmod', ['000', dir]);
      expect((await prepareAgain()).headSha).toBe(await remoteHead());
      expect(await workspaceGitProblem(dir)).toBeUndefined();
    },
  );
});

describe('a workspace nothing was planted in', () => {
  it('passes, commits and pushes as before', async () => {
    expect(await workspaceGitProblem(dir)).toBeUndefined();
    await writeFile(path.join(dir, 'c.txt'), 'c\n');
    const before = await remoteHead();
    expect(await listWorkspaceChanges(dir, before, { timeoutMs: TIMEOUT_MS })).toEqual(['c.txt']);
    const pushed = await push();
    expect(pushed).toEqual({ sha: await remoteHead() });
    expect(await workspaceGitProblem(dir)).toBeUndefined();
  });
});
