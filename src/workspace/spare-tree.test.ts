/**
 * New workspaces made from the repository's spare tree (CONTRACT §19, `spare-tree.ts`), with real
 * git over real smart HTTP: the new tree shows exactly its own head (clean status, clean fsck), a
 * dirty sibling's edits never reach it, the sibling is left as it was, two workspaces made at once
 * both come out right (one from the spare, one by a full checkout), and a broken spare falls back
 * to a full checkout.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { prepareOptions, startGitFixture, type GitFixture } from './git-fixture.test-helper.js';
import { spareBuildsSettled, spareTreeDir, stopSpareBuilds } from './spare-tree.js';
import { withWorkspaceLock } from './lock.js';
import { prepareWorkspace } from './workspace.js';
import { cloneConfigText } from './workspace-tree.js';

const execFileAsync = promisify(execFile);
const env = { PATH: process.env.PATH, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', LC_ALL: 'C' };
const git = async (cwd: string, ...args: string[]) =>
  (await execFileAsync('git', args, { cwd, env })).stdout.trim();
let fx: GitFixture;

beforeEach(async () => {
  fx = await startGitFixture();
});
afterEach(async () => {
  await fx.close();
});

/** The repository: `main`, and branches pr-2/pr-3 that add, change, delete and chmod files. */
async function repository(): Promise<string> {
  const url = await fx.createRepo('acme/widgets', {
    '.gitignore': 'build/\n',
    'a.txt': 'a\n',
    'src/b.ts': 'b\n',
    'src/gone.ts': 'gone\n',
    'tool.sh': 'echo tool\n',
  });
  await fx.commit(
    'acme/widgets',
    { 'a.txt': 'a2\n', 'src/new.ts': 'new\n', 'src/gone.ts': null },
    { branch: 'pr-2' },
  );
  await fx.commit(
    'acme/widgets',
    { 'src/b.ts': 'b3\n', 'tool.sh': '#!/bin/sh\necho three\n' },
    { branch: 'pr-3' },
  );
  return url;
}

/** Asserts `dir` is a clean checkout of exactly `sha`: same files and modes, nothing else. */
async function expectExactly(dir: string, sha: string): Promise<void> {
  expect(await git(dir, 'rev-parse', 'HEAD')).toBe(sha);
  expect(await git(dir, 'status', '--porcelain', '--ignored', '--untracked-files=all')).toBe('');
  expect(await git(dir, 'ls-files', '-s')).toBe(
    await git(dir, 'ls-tree', '-r', '--format=%(objectmode) %(objectname) 0\t%(path)', sha),
  );
  expect(await git(dir, 'diff', '--stat', sha)).toBe('');
  const { stderr } = await execFileAsync('git', ['fsck', '--no-dangling', '--no-progress'], {
    cwd: dir,
    env,
  });
  expect(stderr.trim()).toBe('');
}

describe('workspaces made from the spare tree', () => {
  it('shows exactly its own head; a dirty sibling stays as it was and leaks nothing', async () => {
    const url = await repository();
    const first = await prepareWorkspace(prepareOptions(fx, url, { prNumber: 1, spareTree: true }));
    // The sibling is dirtied at once, while the spare is being built.
    await writeFile(path.join(first.dir, 'a.txt'), 'edited by a worker\n');
    await writeFile(path.join(first.dir, 'untracked.txt'), 'untracked\n');
    await mkdir(path.join(first.dir, 'build'));
    await writeFile(path.join(first.dir, 'build', 'out.js'), 'ignored\n');
    await spareBuildsSettled();
    expect((await stat(spareTreeDir(path.dirname(first.dir)))).isDirectory()).toBe(true);

    const heads = { 2: await fx.git(fx.barePath('acme/widgets'), 'rev-parse', 'pr-2') };
    const second = await prepareWorkspace(
      prepareOptions(fx, url, { prNumber: 2, branch: 'pr-2', spareTree: true }),
    );
    expect(second).toMatchObject({ action: 'cloned', fromSpare: true, headSha: heads[2] });
    await expectExactly(second.dir, heads[2]);
    expect(await readFile(path.join(second.dir, 'a.txt'), 'utf8')).toBe('a2\n');
    expect(await git(second.dir, 'symbolic-ref', 'HEAD')).toBe('refs/heads/pr-2');
    expect(await git(second.dir, 'config', 'branch.pr-2.merge')).toBe('refs/heads/pr-2');
    expect(await git(second.dir, 'config', 'remote.origin.url')).toBe(url);

    // The sibling keeps its edits and nothing else changed there.
    expect(await readFile(path.join(first.dir, 'a.txt'), 'utf8')).toBe('edited by a worker\n');
    expect(await git(first.dir, 'status', '--porcelain', '--ignored')).toBe(
      ['M a.txt', '?? untracked.txt', '!! build/'].join('\n'),
    );
    expect(await git(first.dir, 'rev-parse', 'HEAD')).toBe(first.headSha);

    // The next spare is built again, and an update of the new workspace works as usual.
    await spareBuildsSettled();
    expect((await stat(spareTreeDir(path.dirname(first.dir)))).isDirectory()).toBe(true);
    const again = await prepareWorkspace(
      prepareOptions(fx, url, { prNumber: 2, branch: 'pr-2', spareTree: true }),
    );
    expect(again.action).toBe('updated');
  });

  it('two workspaces made at once: one takes the spare, both show their own heads', async () => {
    const url = await repository();
    const first = await prepareWorkspace(prepareOptions(fx, url, { prNumber: 1, spareTree: true }));
    await spareBuildsSettled();
    const bare = fx.barePath('acme/widgets');
    // Each under its workspace lock, as jobs prepare workspaces (a background spare build may give
    // the repository's shared index to an idle tree, never to one a job holds).
    const job = (n: number) => {
      const options = prepareOptions(fx, url, { prNumber: n, branch: `pr-${n}`, spareTree: true });
      const dir = path.join(path.dirname(first.dir), `pr-${n}`);
      return withWorkspaceLock(dir, () => prepareWorkspace(options));
    };
    const [two, three] = await Promise.all([job(2), job(3)]);
    // The one made by a full checkout takes the shared index in the background once idle.
    await spareBuildsSettled();
    expect([two.fromSpare, three.fromSpare].filter(Boolean)).toHaveLength(1);
    await expectExactly(two.dir, await fx.git(bare, 'rev-parse', 'pr-2'));
    await expectExactly(three.dir, await fx.git(bare, 'rev-parse', 'pr-3'));
  });

  it('a broken spare falls back to a full checkout', async () => {
    const url = await repository();
    const first = await prepareWorkspace(prepareOptions(fx, url, { prNumber: 1, spareTree: true }));
    await spareBuildsSettled();
    await writeFile(path.join(spareTreeDir(path.dirname(first.dir)), '.git', 'index'), 'not an index');
    const second = await prepareWorkspace(
      prepareOptions(fx, url, { prNumber: 2, branch: 'pr-2', spareTree: true }),
    );
    expect(second.fromSpare).toBeUndefined();
    await expectExactly(second.dir, await fx.git(fx.barePath('acme/widgets'), 'rev-parse', 'pr-2'));
  });

  it('stopSpareBuilds stops a build and leaves no spare and no temporary directory', async () => {
    const url = await repository();
    const first = await prepareWorkspace(prepareOptions(fx, url, { prNumber: 1, spareTree: true }));
    await stopSpareBuilds();
    const store = path.dirname(spareTreeDir(path.dirname(first.dir)));
    expect((await readdir(store)).filter((name) => name.startsWith('spare'))).toEqual([]);
    // Later builds run again.
    await prepareWorkspace(prepareOptions(fx, url, { prNumber: 2, branch: 'pr-2', spareTree: true }));
    await spareBuildsSettled();
    expect((await readdir(store)).filter((name) => name.startsWith('spare'))).toEqual(['spare']);
  });

  it('makes no spare unless asked (the process default is off)', async () => {
    const url = await repository();
    const first = await prepareWorkspace(prepareOptions(fx, url, { prNumber: 1 }));
    await spareBuildsSettled();
    await expect(stat(spareTreeDir(path.dirname(first.dir)))).rejects.toThrow();
  });
});

describe('cloneConfigText', () => {
  it('reads back as written, whatever the URL and branch hold', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'reviewbot-config-'));
    try {
      const url = 'https://git.example.com/a b/c;d#e"f\\g.git';
      const branch = 'feat/"quoted"#1;x';
      await writeFile(path.join(dir, 'config'), cloneConfigText(url, branch));
      const list = await git(dir, 'config', '--file', 'config', '--list', '-z');
      expect(list.split('\0').filter(Boolean)).toEqual([
        'core.logallrefupdates\nfalse',
        `remote.origin.url\n${url}`,
        `remote.origin.fetch\n+refs/heads/${branch}:refs/remotes/origin/${branch}`,
        `branch.${branch}.remote\norigin`,
        `branch.${branch}.merge\nrefs/heads/${branch}`,
      ]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
