import { mkdir, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { pathExists, prepareOptions, startGitFixture, type GitFixture } from './git-fixture.test-helper.js';
import { prepareWorkspace, type PrepareWorkspaceOptions } from './workspace.js';

let fx: GitFixture;
beforeEach(async () => {
  fx = await startGitFixture();
});
afterEach(async () => {
  await fx.close();
});

const options = (cloneUrl: string, overrides: Partial<PrepareWorkspaceOptions> = {}) =>
  prepareOptions(fx, cloneUrl, overrides);
const exists = pathExists;

describe('prepareWorkspace: clone and update', () => {
  it('clones shallowly, then follows a new commit and a force-push', async () => {
    const url = await fx.createRepo('acme/widgets', { 'README.md': 'v1\n', 'src/a.ts': 'a\n' }, 'feature/x');
    await fx.commit('acme/widgets', { 'README.md': 'v1b\n' }, { branch: 'feature/x' });
    await fx.git(fx.barePath('acme/widgets'), 'tag', 'v1.0', 'feature/x');
    await fx.git(fx.barePath('acme/widgets'), 'branch', 'other', 'feature/x');
    const progress: string[] = [];
    const opts = options(url, { branch: 'feature/x', onProgress: (m) => progress.push(m) });

    const first = await prepareWorkspace(opts);
    expect(first.action).toBe('cloned');
    expect(first.dir).toBe(path.join(fx.baseDir, 'github', 'acme', 'widgets', 'pr-7'));
    expect(first.headSha).toBe(await fx.git(fx.barePath('acme/widgets'), 'rev-parse', 'feature/x'));
    expect(await readFile(path.join(first.dir, 'README.md'), 'utf8')).toBe('v1b\n');
    expect(await fx.git(first.dir, 'rev-list', '--count', 'HEAD')).toBe('1');
    expect(await fx.git(first.dir, 'tag', '--list')).toBe('');
    expect(await fx.git(first.dir, 'for-each-ref', '--format=%(refname)', 'refs/remotes')).not.toContain(
      'other',
    );

    const second = await fx.commit(
      'acme/widgets',
      { 'README.md': 'v2\n', 'src/a.ts': null },
      { branch: 'feature/x' },
    );
    const updated = await prepareWorkspace(opts);
    expect(updated).toEqual({ dir: first.dir, headSha: second, action: 'updated' });
    expect(await readFile(path.join(first.dir, 'README.md'), 'utf8')).toBe('v2\n');
    expect(await exists(path.join(first.dir, 'src/a.ts'))).toBe(false);

    const rewritten = await fx.commit(
      'acme/widgets',
      { 'README.md': 'v3\n' },
      { branch: 'feature/x', force: true },
    );
    const forced = await prepareWorkspace(opts);
    expect(forced).toEqual({ dir: first.dir, headSha: rewritten, action: 'updated' });
    expect(await readFile(path.join(first.dir, 'README.md'), 'utf8')).toBe('v3\n');
    expect(await fx.git(first.dir, 'rev-parse', 'HEAD')).toBe(rewritten);

    expect(progress.some((m) => m.startsWith('cloning acme/widgets#7'))).toBe(true);
    expect(progress.some((m) => m.startsWith('updating workspace of acme/widgets#7'))).toBe(true);
  });

  it('nests a GitLab project path and keeps pull requests apart', async () => {
    const url = await fx.createRepo('group/sub/project', { 'a.txt': 'a\n' });
    const gitlab = { platform: 'gitlab', repoFullName: 'group/sub/project' } as const;
    const one = await prepareWorkspace(options(url, { ...gitlab, prNumber: 1 }));
    const two = await prepareWorkspace(options(url, { ...gitlab, prNumber: 2 }));
    expect(one.dir).toBe(path.join(fx.baseDir, 'gitlab', 'group', 'sub', 'project', 'pr-1'));
    expect(two.dir).toBe(path.join(fx.baseDir, 'gitlab', 'group', 'sub', 'project', 'pr-2'));
    expect(two.action).toBe('cloned');
  });

  it('cleans untracked and ignored files and restores tracked ones, without following symlinks', async () => {
    const url = await fx.createRepo('acme/widgets', { '.gitignore': 'dist/\n', 'keep.txt': 'original\n' });
    const { dir } = await prepareWorkspace(options(url));
    const outside = path.join(fx.root, 'outside');
    await mkdir(outside);
    await writeFile(path.join(outside, 'precious.txt'), 'do not delete');
    await writeFile(path.join(dir, 'keep.txt'), 'modified\n');
    await writeFile(path.join(dir, 'untracked.txt'), 'x');
    await mkdir(path.join(dir, 'dist/deep'), { recursive: true });
    await writeFile(path.join(dir, 'dist/deep/out.js'), 'x');
    await symlink(outside, path.join(dir, 'escape'));

    const again = await prepareWorkspace(options(url));
    expect(again.action).toBe('updated');
    expect(await readFile(path.join(dir, 'keep.txt'), 'utf8')).toBe('original\n');
    expect((await readdir(dir)).sort()).toEqual(['.git', '.gitignore', 'keep.txt']);
    expect(await readFile(path.join(outside, 'precious.txt'), 'utf8')).toBe('do not delete');
  });
});

describe('prepareWorkspace: unusable directories are cloned fresh', () => {
  it('replaces a directory that is not a clone, without following its symlinks', async () => {
    const url = await fx.createRepo('acme/widgets', { 'a.txt': 'a\n' });
    const dir = path.join(fx.baseDir, 'github/acme/widgets/pr-7');
    const outside = path.join(fx.root, 'outside');
    await mkdir(path.join(outside, 'inner'), { recursive: true });
    await writeFile(path.join(outside, 'inner/precious.txt'), 'keep');
    await mkdir(path.join(dir, '.git'), { recursive: true });
    await writeFile(path.join(dir, 'stray.txt'), 'x');
    await symlink(outside, path.join(dir, 'escape'));

    const result = await prepareWorkspace(options(url));
    expect(result.action).toBe('cloned');
    expect((await readdir(dir)).sort()).toEqual(['.git', 'a.txt']);
    expect(await readFile(path.join(outside, 'inner/precious.txt'), 'utf8')).toBe('keep');
  });

  it('replaces a clone of another repository', async () => {
    const first = await fx.createRepo('acme/first', { 'first.txt': '1\n' });
    const second = await fx.createRepo('acme/second', { 'second.txt': '2\n' });
    await prepareWorkspace(options(first));
    const result = await prepareWorkspace(options(second));
    expect(result.action).toBe('cloned');
    expect((await readdir(result.dir)).sort()).toEqual(['.git', 'second.txt']);
  });

  it('clones again when the local repository is broken', async () => {
    const url = await fx.createRepo('acme/widgets', { 'a.txt': 'a\n' });
    const { dir } = await prepareWorkspace(options(url));
    await writeFile(path.join(dir, '.git/HEAD'), 'not a ref\n');
    await writeFile(path.join(dir, 'stale.txt'), 'x');
    const next = await fx.commit('acme/widgets', { 'b.txt': 'b\n' });

    const result = await prepareWorkspace(options(url));
    expect(result).toEqual({ dir, headSha: next, action: 'cloned' });
    expect((await readdir(dir)).sort()).toEqual(['.git', 'a.txt', 'b.txt']);
  });

  it('puts back the index saved at its last preparation (an agent may have written its own)', async () => {
    const url = await fx.createRepo('acme/widgets', { 'a.txt': 'a\n' });
    const { dir } = await prepareWorkspace(options(url));
    await writeFile(path.join(dir, '.git/index'), 'not an index\n');
    await writeFile(path.join(dir, 'stale.txt'), 'x');
    const next = await fx.commit('acme/widgets', { 'b.txt': 'b\n' });

    const result = await prepareWorkspace(options(url));
    expect(result).toEqual({ dir, headSha: next, action: 'updated' });
    expect((await readdir(dir)).sort()).toEqual(['.git', 'a.txt', 'b.txt']);
    expect(await fx.git(dir, 'status', '--porcelain')).toBe('');
  });

  it('makes the tree afresh when no index was saved at its last preparation', async () => {
    const url = await fx.createRepo('acme/widgets', { 'a.txt': 'a\n' });
    const { dir } = await prepareWorkspace(options(url));
    await rm(`${path.join(path.dirname(dir), '.store', 'trees', path.basename(dir))}.index`);
    const result = await prepareWorkspace(options(url));
    expect(result.action).toBe('cloned');
    expect((await readdir(dir)).sort()).toEqual(['.git', 'a.txt']);
  });

  it.each([
    ['http.proxy', 'http://127.0.0.1:9'],
    ['url.http://127.0.0.1:9/.insteadOf', 'http://'],
    ['include.path', '/tmp/elsewhere.gitconfig'],
    ['core.sshCommand', 'touch /tmp/pwned'],
    ['remote.origin.pushurl', 'http://127.0.0.1:9/x.git'],
    ['extensions.worktreeConfig', 'true'],
  ])('clones again when the workspace config was given %s', async (key, value) => {
    const url = await fx.createRepo('acme/widgets', { 'a.txt': 'a\n' });
    const { dir } = await prepareWorkspace(options(url));
    await fx.git(dir, 'config', key, value);
    const progress: string[] = [];
    const result = await prepareWorkspace(options(url, { onProgress: (m) => progress.push(m) }));
    expect(result.action).toBe('cloned');
    expect(progress.join('\n')).toContain(`git configuration modified: ${key.toLowerCase()}`);
    expect(await fx.git(dir, 'config', '--local', '--list')).not.toContain(`${key.toLowerCase()}=`);
  });

  it('keeps updating a workspace whose config only gained harmless keys', async () => {
    const url = await fx.createRepo('acme/widgets', { 'a.txt': 'a\n' });
    const { dir } = await prepareWorkspace(options(url));
    await fx.git(dir, 'config', 'user.name', 'Agent');
    await fx.git(dir, 'config', 'core.hooksPath', '.husky/_');
    expect((await prepareWorkspace(options(url))).action).toBe('updated');
  });

  it('keeps the workspace when the remote refuses the credentials on update', async () => {
    const url = await fx.createRepo('acme/widgets', { 'a.txt': 'a\n' });
    const { dir, headSha } = await prepareWorkspace(options(url));
    const wrong = { username: 'x-access-token', password: 'ghs_revokedrevokedrevoked' };
    await expect(prepareWorkspace(options(url, { credentials: wrong }))).rejects.toThrow(/git fetch failed/);
    expect(await fx.git(dir, 'rev-parse', 'HEAD')).toBe(headSha);
  });
});
