/**
 * The repository's shared index (CONTRACT §19, `shared-index.ts`), with real git over real smart
 * HTTP: workspaces made from spare trees and an idle workspace made without one all link one
 * `sharedindex.<hash>` in the store and keep only their own changes in `.git/index`; every tree
 * still shows exactly its head, sees a same-size edit, and fsck stays clean; the first workspace
 * shares it at once; an agent's forged file time, skip-worktree bit, planted link or named pipe
 * neither survives an update nor stalls us; a link to another place makes the workspace unusable;
 * the cleaner removes shared indexes no tree links to and all of them with the store.
 */
import { execFile } from 'node:child_process';
import {
  lstat,
  mkdir,
  readFile,
  readdir,
  readlink,
  rename,
  rm,
  symlink,
  utimes,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { deflateSync } from 'node:zlib';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { plainGitEnv, prepareOptions, startGitFixture, type GitFixture } from './git-fixture.test-helper.js';
import { withWorkspaceLock } from './lock.js';
import { sharedIndexDir } from './shared-index.js';
import { spareBuildsSettled } from './spare-tree.js';
import { maintainStore } from './store-maintenance.js';
import { prepareWorkspace, type PrepareWorkspaceOptions } from './workspace.js';

const execFileAsync = promisify(execFile);
const env = plainGitEnv(tmpdir());
let fx: GitFixture;
const git = (cwd: string, ...args: string[]) => fx.git(cwd, ...args);

beforeEach(async () => {
  fx = await startGitFixture();
});
afterEach(async () => {
  await fx.close();
});

const FILES = 300;

/** `main` with FILES files; branch pr-N changes file N (and pr-9 also adds and deletes one). */
async function repository(): Promise<string> {
  const files: Record<string, string> = {};
  for (let i = 0; i < FILES; i += 1) files[`src/dir-${i % 7}/file-${i}.ts`] = `export const v${i} = ${i};\n`;
  const url = await fx.createRepo('acme/big', files);
  for (const n of [2, 3, 4, 9]) {
    await fx.commit(
      'acme/big',
      {
        [`src/dir-${n % 7}/file-${n}.ts`]: `export const v${n} = ${n * 1000};\n`,
        ...(n === 9 ? { 'added.md': 'new\n', 'src/dir-0/file-0.ts': null } : {}),
      },
      { branch: `pr-${n}` },
    );
  }
  return url;
}

/** The shared index a tree links to (its basename), or undefined when its index is its own. */
async function linkedSharedIndex(dir: string): Promise<string | undefined> {
  for (const name of await readdir(path.join(dir, '.git'))) {
    if (!name.startsWith('sharedindex.')) continue;
    const file = path.join(dir, '.git', name);
    if ((await lstat(file)).isSymbolicLink()) return path.basename(await readlink(file));
  }
  return undefined;
}

async function indexBytes(dir: string): Promise<number> {
  return (await lstat(path.join(dir, '.git', 'index'))).size;
}

/** Asserts `dir` is a clean checkout of exactly `sha` and fsck finds nothing. */
async function expectExactly(dir: string, sha: string): Promise<void> {
  expect(await git(dir, 'rev-parse', 'HEAD')).toBe(sha);
  expect(await git(dir, 'status', '--porcelain', '--untracked-files=all')).toBe('');
  expect(await git(dir, 'ls-files', '-s')).toBe(
    await git(dir, 'ls-tree', '-r', '--format=%(objectmode) %(objectname) 0\t%(path)', sha),
  );
  for (const line of (await git(dir, 'ls-tree', '-r', sha)).split('\n').slice(0, 40)) {
    const [, , , oid, file] = /^(\S+) (\S+) (\S+)\t(.*)$/.exec(line)!;
    expect(await git(dir, 'hash-object', file!)).toBe(oid);
  }
  const { stderr } = await execFileAsync('git', ['fsck', '--no-dangling', '--no-progress'], {
    cwd: dir,
    env,
  });
  expect(stderr.trim()).toBe('');
}

/**
 * `prepareWorkspace` under the workspace's lock, as jobs call it (a background spare build gives the
 * shared index only to trees no job holds).
 */
function prepare(url: string, overrides: Partial<PrepareWorkspaceOptions> & { prNumber: number }) {
  const dir = path.join(fx.baseDir, 'github', 'acme', 'widgets', `pr-${overrides.prNumber}`);
  return withWorkspaceLock(dir, () => prepareWorkspace(prepareOptions(fx, url, overrides)));
}

const head = (branch: string) => fx.git(fx.barePath('acme/big'), 'rev-parse', branch);

describe('the shared index of a repository', () => {
  it('every workspace links one shared index and keeps only its changes; each shows its own head', async () => {
    const url = await repository();
    const first = await prepare(url, { prNumber: 1, spareTree: true });
    const repoDir = path.dirname(first.dir);
    await spareBuildsSettled();
    const trees = [first];
    for (const n of [2, 3, 4]) {
      trees.push(await prepare(url, { prNumber: n, branch: `pr-${n}`, spareTree: true }));
      await spareBuildsSettled();
    }
    expect(trees.slice(1).map((t) => t.fromSpare)).toEqual([true, true, true]);
    const shared = await linkedSharedIndex(trees[0]!.dir);
    expect(shared).toMatch(/^sharedindex\.[0-9a-f]{40}$/);
    const stored = path.join(sharedIndexDir(repoDir), shared!);
    const sharedBytes = (await lstat(stored)).size;
    expect(sharedBytes).toBeGreaterThan(FILES * 20);
    for (const tree of trees) {
      expect(await linkedSharedIndex(tree.dir)).toBe(shared);
      expect(await readlink(path.join(tree.dir, '.git', shared!))).toBe(stored);
      expect(await indexBytes(tree.dir)).toBeLessThan(sharedBytes / 5);
      await expectExactly(tree.dir, tree.headSha);
    }
    expect(trees[0]!.headSha).toBe(await head('main'));
    expect(await readFile(path.join(trees[2]!.dir, 'src/dir-3/file-3.ts'), 'utf8')).toBe(
      'export const v3 = 3000;\n',
    );

    // An edit that keeps the size is seen (the file gets the current time), committed as usual.
    const file = path.join(trees[1]!.dir, 'src/dir-5/file-5.ts');
    await writeFile(file, 'export const v5 = 9;\n');
    expect(await git(trees[1]!.dir, 'status', '--porcelain')).toBe('M src/dir-5/file-5.ts');
    await git(trees[1]!.dir, 'add', '-A');
    expect(await git(trees[1]!.dir, 'diff', '--cached', '--name-only')).toBe('src/dir-5/file-5.ts');

    // An update to a head that adds and deletes files keeps the shared index.
    const moved = await prepare(url, { prNumber: 3, branch: 'pr-9', spareTree: true });
    expect(moved.action).toBe('updated');
    await expectExactly(moved.dir, await head('pr-9'));
    expect(await linkedSharedIndex(moved.dir)).toBe(shared);
  });

  it('the first workspace of a repository shares the index at once; a forged or hidden edit does not survive an update', async () => {
    const url = await repository();
    const first = await prepare(url, { prNumber: 1, spareTree: true });
    const repoDir = path.dirname(first.dir);
    const shared = await linkedSharedIndex(first.dir);
    expect(shared).toMatch(/^sharedindex\./);
    await expectExactly(first.dir, first.headSha);
    await spareBuildsSettled();

    // An agent writes a same-size edit and gives the file the shared file time, hides another edit
    // behind skip-worktree, and plants a symbolic link and a named pipe where we read and write.
    const forged = path.join(first.dir, 'src/dir-5/file-5.ts');
    await writeFile(forged, 'export const v5 = 9;\n');
    await utimes(forged, 946_684_800, 946_684_800);
    await writeFile(path.join(first.dir, 'src/dir-6/file-6.ts'), 'export const v6 = 66;\n');
    await git(first.dir, 'update-index', '--skip-worktree', 'src/dir-6/file-6.ts');
    expect(await git(first.dir, 'status', '--porcelain')).toBe('');
    const victim = path.join(repoDir, 'victim.txt');
    await writeFile(victim, 'untouched\n');
    for (let n = 0; n < 64; n += 1) {
      await symlink(victim, path.join(first.dir, '.git', `shallow.reviewbot-${n}.tmp`)).catch(
        () => undefined,
      );
    }
    await rm(path.join(first.dir, '.git', 'index'));
    await execFileAsync('mkfifo', [path.join(first.dir, '.git', 'index')]);

    const again = await prepare(url, { prNumber: 1, spareTree: true });
    await expectExactly(again.dir, first.headSha);
    expect(await readFile(forged, 'utf8')).toBe('export const v5 = 5;\n');
    expect(await readFile(victim, 'utf8')).toBe('untouched\n');
    // The cleaner's look at the trees' indexes does not hang on a named pipe either.
    const other = await prepare(url, { prNumber: 2, branch: 'pr-2', spareTree: true });
    await rm(path.join(other.dir, '.git', 'index'));
    await execFileAsync('mkfifo', [path.join(other.dir, '.git', 'index')]);
    expect((await maintainStore(repoDir)).action).toBe('kept');

    // A tree without the shared index (made where spare trees are off) is checked for hidden files.
    const plain = await prepare(url, { prNumber: 4, branch: 'pr-4', spareTree: false });
    expect(await linkedSharedIndex(plain.dir)).toBeUndefined();
    await writeFile(path.join(plain.dir, 'src/dir-1/file-1.ts'), 'hidden\n');
    await git(plain.dir, 'update-index', '--skip-worktree', 'src/dir-1/file-1.ts');
    const plainAgain = await prepare(url, { prNumber: 4, branch: 'pr-4', spareTree: false });
    await expectExactly(plainAgain.dir, await head('pr-4'));
    expect(await readFile(path.join(plain.dir, 'src/dir-1/file-1.ts'), 'utf8')).toBe(
      'export const v1 = 1;\n',
    );
  });

  it('swapped directories, replace refs, a planted object, a linked object directory, attributes and a commondir do not survive an update either', async () => {
    const url = await repository();
    const first = await prepare(url, { prNumber: 1, spareTree: true });
    await spareBuildsSettled();
    const dir = first.dir;
    // Two directories of same-named, same-size files swapped: only the directories change.
    await rename(path.join(dir, 'src/dir-1'), path.join(dir, 'swap'));
    await rename(path.join(dir, 'src/dir-2'), path.join(dir, 'src/dir-1'));
    await rename(path.join(dir, 'swap'), path.join(dir, 'src/dir-2'));
    // A replace ref giving a file other content, and attributes rewriting line ends.
    const replacement = (
      await execFileAsync('sh', ['-c', 'printf "export const v3 = 666;\\n" | git hash-object -w --stdin'], {
        cwd: dir,
        env,
      })
    ).stdout.trim();
    const original = await git(dir, 'rev-parse', 'HEAD:src/dir-3/file-3.ts');
    await git(dir, 'update-ref', `refs/replace/${original}`, replacement);
    await rm(path.join(dir, 'src/dir-3/file-3.ts'));
    await mkdir(path.join(dir, '.git', 'info'), { recursive: true });
    await writeFile(path.join(dir, '.git', 'info', 'attributes'), '*.ts eol=crlf\n');
    // An object planted in the tree's own object directory under a file's real blob id.
    const planted = await git(dir, 'rev-parse', 'HEAD:src/dir-4/file-4.ts');
    const body = Buffer.from('export const v4 = 444;\n');
    await mkdir(path.join(dir, '.git', 'objects', planted.slice(0, 2)), { recursive: true });
    await writeFile(
      path.join(dir, '.git', 'objects', planted.slice(0, 2), planted.slice(2)),
      deflateSync(Buffer.concat([Buffer.from(`blob ${body.length}\0`), body])),
    );
    await rm(path.join(dir, 'src/dir-4/file-4.ts'));

    const again = await prepare(url, { prNumber: 1, spareTree: true });
    expect(again.action).toBe('updated');
    await expectExactly(dir, first.headSha);
    expect(await readFile(path.join(dir, 'src/dir-1/file-1.ts'), 'utf8')).toBe('export const v1 = 1;\n');
    expect(await readFile(path.join(dir, 'src/dir-3/file-3.ts'), 'utf8')).toBe('export const v3 = 3;\n');
    expect(await readFile(path.join(dir, 'src/dir-4/file-4.ts'), 'utf8')).toBe('export const v4 = 4;\n');

    // `.git/objects` swapped for a link to a sibling's: the tree is made afresh, the sibling keeps
    // its own objects (an update removes only the tree's own).
    const sibling = await prepare(url, { prNumber: 2, branch: 'pr-2', spareTree: true });
    const siblingObject = path.join(sibling.dir, '.git', 'objects', 'ab', 'keep');
    await mkdir(path.dirname(siblingObject), { recursive: true });
    await writeFile(siblingObject, 'x');
    await rename(path.join(dir, '.git', 'objects'), path.join(dir, '.git', 'objects-away'));
    await symlink(path.join(sibling.dir, '.git', 'objects'), path.join(dir, '.git', 'objects'));
    const relinked = await prepare(url, { prNumber: 1, spareTree: true });
    expect(relinked.action).toBe('cloned');
    expect(await readFile(siblingObject, 'utf8')).toBe('x');
    await rm(path.dirname(siblingObject), { recursive: true });

    // A commondir makes the workspace unusable: it is made afresh.
    // (pointing at a real repository, so git itself still works there)
    await writeFile(
      path.join(dir, '.git', 'commondir'),
      `${path.join(path.dirname(dir), '.store', 'git')}\n`,
    );
    const messages: string[] = [];
    const remade = await prepare(url, {
      prNumber: 1,
      spareTree: true,
      onProgress: (m: string) => messages.push(m),
    });
    expect(remade.action).toBe('cloned');
    expect(messages.join('\n')).toContain('is unusable');
    await expectExactly(dir, first.headSha);
  });

  it('a head far from the shared index makes a new one; trees on the old one keep it until they go', async () => {
    const url = await repository();
    const far: Record<string, string> = {};
    for (let i = 100; i < 200; i += 1) far[`src/dir-${i % 7}/file-${i}.ts`] = `export const v${i} = -${i};\n`;
    await fx.commit('acme/big', far, { branch: 'pr-5' });
    const first = await prepare(url, { prNumber: 1, spareTree: true });
    const repoDir = path.dirname(first.dir);
    await spareBuildsSettled();
    const second = await prepare(url, { prNumber: 2, branch: 'pr-2', spareTree: true });
    await spareBuildsSettled();
    const old = (await linkedSharedIndex(second.dir))!;
    // pr-5 (a third of the files changed) takes the spare; the next spare is built at its head,
    // too far from the shared index: its index becomes the new shared one.
    const fifth = await prepare(url, { prNumber: 5, branch: 'pr-5', spareTree: true });
    await spareBuildsSettled();
    await expectExactly(fifth.dir, await head('pr-5'));
    const current = (await readFile(path.join(sharedIndexDir(repoDir), 'current'), 'utf8')).trim();
    expect(`sharedindex.${current}`).not.toBe(old);
    const sixth = await prepare(url, { prNumber: 6, branch: 'pr-5', spareTree: true });
    expect(sixth.fromSpare).toBe(true);
    expect(await linkedSharedIndex(sixth.dir)).toBe(`sharedindex.${current}`);
    expect(await indexBytes(sixth.dir)).toBeLessThan(2000);
    await expectExactly(sixth.dir, await head('pr-5'));
    // The old one stays while trees link to it, and goes with them.
    await maintainStore(repoDir);
    expect(await readdir(sharedIndexDir(repoDir))).toContain(old);
    await expectExactly(second.dir, second.headSha);
    for (const tree of [first.dir, second.dir, fifth.dir]) await rm(tree, { recursive: true, force: true });
    await maintainStore(repoDir);
    expect(await readdir(sharedIndexDir(repoDir))).not.toContain(old);
    await expectExactly(sixth.dir, await head('pr-5'));
  });

  it('a workspace whose index link points elsewhere is made again', async () => {
    const url = await repository();
    await prepare(url, { prNumber: 1, spareTree: true });
    await spareBuildsSettled();
    const second = await prepare(url, { prNumber: 2, branch: 'pr-2', spareTree: true });
    const shared = (await linkedSharedIndex(second.dir))!;
    const elsewhere = path.join(path.dirname(second.dir), 'elsewhere');
    await writeFile(elsewhere, 'not an index');
    await rm(path.join(second.dir, '.git', shared));
    await symlink(elsewhere, path.join(second.dir, '.git', shared));
    const messages: string[] = [];
    const again = await prepare(url, {
      prNumber: 2,
      branch: 'pr-2',
      spareTree: true,
      onProgress: (m: string) => messages.push(m),
    });
    expect(again.action).toBe('cloned');
    // (A full checkout takes the shared index in the background once idle: let that finish first.)
    await spareBuildsSettled();
    expect(messages.join('\n')).toContain('shares an index from another place');
    await expectExactly(again.dir, await head('pr-2'));
  });

  it('the cleaner removes shared indexes no tree links to, and all of them with the store', async () => {
    const url = await repository();
    const first = await prepare(url, { prNumber: 1, spareTree: true });
    const repoDir = path.dirname(first.dir);
    await spareBuildsSettled();
    const second = await prepare(url, { prNumber: 2, branch: 'pr-2', spareTree: true });
    await spareBuildsSettled();
    const shared = (await linkedSharedIndex(second.dir))!;
    const dir = sharedIndexDir(repoDir);
    // A shared index of an earlier head, which no tree links to any more.
    await writeFile(path.join(dir, 'sharedindex.' + 'a'.repeat(40)), 'old');
    await writeFile(path.join(dir, 'template.' + 'a'.repeat(40)), 'old');
    await maintainStore(repoDir);
    expect((await readdir(dir)).sort()).toEqual(
      ['current', shared, shared.replace('sharedindex', 'template')].sort(),
    );
    await expectExactly(second.dir, second.headSha);

    for (const tree of [first.dir, second.dir]) await rm(tree, { recursive: true, force: true });
    expect(await maintainStore(repoDir)).toEqual({ action: 'removed' });
    expect(await readdir(repoDir).catch(() => [])).not.toContain('.store');
  });
});
