import { access, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GitError } from '../errors.js';
import { commitAndPush, type CommitAndPushOptions } from './commit-and-push.js';
import { filesContaining, startGitFixture, type GitFixture } from './git-fixture.test-helper.js';
import { prepareWorkspace } from './workspace.js';

let fx: GitFixture;
let cloneUrl: string;
beforeEach(async () => {
  fx = await startGitFixture();
});
afterEach(async () => {
  await fx.close();
});

async function workspace(files: Record<string, string> = { 'a.txt': 'a\n', 'old.txt': 'old\n' }) {
  cloneUrl = await fx.createRepo('acme/widgets', files);
  return prepareWorkspace({
    baseDir: fx.baseDir,
    platform: 'github',
    repoFullName: 'acme/widgets',
    prNumber: 4,
    cloneUrl,
    branch: 'main',
    credentials: { username: 'x-access-token', password: fx.token },
  });
}

function pushOptions(overrides: Partial<CommitAndPushOptions> = {}): CommitAndPushOptions {
  return {
    message: 'Apply review fixes\n\n#42: keep this line',
    authorName: 'reviewbot',
    authorEmail: 'reviewbot@example.com',
    cloneUrl,
    branch: 'main',
    credentials: { username: 'x-access-token', password: fx.token },
    ...overrides,
  };
}

describe('commitAndPush', () => {
  it('commits every change and pushes it to the server', async () => {
    const { dir, headSha } = await workspace();
    await writeFile(path.join(dir, 'a.txt'), 'changed\n');
    await writeFile(path.join(dir, 'new.txt'), 'new\n');
    await rm(path.join(dir, 'old.txt'));

    const result = await commitAndPush(dir, pushOptions());
    expect(result).toHaveProperty('sha');
    const sha = (result as { sha: string }).sha;
    const bare = fx.barePath('acme/widgets');
    expect(await fx.git(bare, 'rev-parse', 'refs/heads/main')).toBe(sha);
    expect(await fx.git(bare, 'rev-parse', `${sha}^`)).toBe(headSha);
    expect(await fx.git(bare, 'log', '-1', '--format=%an <%ae>|%cn|%B', sha)).toBe(
      'reviewbot <reviewbot@example.com>|reviewbot|Apply review fixes\n\n#42: keep this line',
    );
    expect((await fx.git(bare, 'ls-tree', '--name-only', sha)).split('\n')).toEqual(['a.txt', 'new.txt']);
    expect(await fx.git(bare, 'show', `${sha}:a.txt`)).toBe('changed');
    expect(fx.handler.requests.some((r) => r.service === 'git-receive-pack' && r.authorized)).toBe(true);
    expect(await filesContaining(dir, fx.token)).toEqual([]);
  });

  it('pushes to another branch, creating it', async () => {
    const { dir } = await workspace();
    await writeFile(path.join(dir, 'fix.txt'), 'fix\n');
    const result = await commitAndPush(dir, pushOptions({ branch: 'reviewbot/fix-1' }));
    const bare = fx.barePath('acme/widgets');
    expect(await fx.git(bare, 'rev-parse', 'refs/heads/reviewbot/fix-1')).toBe(
      (result as { sha: string }).sha,
    );
  });

  it('reports nothing to commit and pushes nothing when the tree is unchanged', async () => {
    const { dir, headSha } = await workspace();
    const before = fx.handler.requests.length;
    expect(await commitAndPush(dir, pushOptions())).toEqual({ nothingToCommit: true });
    expect(fx.handler.requests.length).toBe(before);
    expect(await fx.git(fx.barePath('acme/widgets'), 'rev-parse', 'refs/heads/main')).toBe(headSha);
  });

  it('ignores files matched by .gitignore', async () => {
    const { dir } = await workspace({ '.gitignore': 'node_modules/\n', 'a.txt': 'a\n' });
    await writeFile(path.join(dir, 'ignored.txt'), 'x');
    await writeFile(path.join(dir, '.gitignore'), 'node_modules/\nignored.txt\n');
    const result = await commitAndPush(dir, pushOptions());
    const sha = (result as { sha: string }).sha;
    expect(await fx.git(fx.barePath('acme/widgets'), 'ls-tree', '--name-only', sha)).toBe(
      '.gitignore\na.txt',
    );
  });

  it('runs no commit or push hook, even from a hook path the repository configures', async () => {
    const marker = path.join(fx.root, 'hook-ran');
    const hook = `#!/bin/sh\necho "$0" >> '${marker}'\nexit 1\n`;
    const { dir } = await workspace({
      '.githooks/pre-commit': hook,
      '.githooks/commit-msg': hook,
      '.githooks/post-commit': hook,
      '.githooks/pre-push': hook,
      'a.txt': 'a\n',
    });
    await fx.git(dir, 'config', 'core.hooksPath', '.githooks');
    await writeFile(path.join(dir, 'a.txt'), 'changed\n');
    const result = await commitAndPush(dir, pushOptions());
    expect(result).toHaveProperty('sha');
    await expect(access(marker)).rejects.toThrow();
    // Control: plain git in the same checkout runs them (and the failing pre-commit stops it).
    await expect(fx.git(dir, 'commit', '--allow-empty', '-m', 'probe')).rejects.toThrow();
    await expect(access(marker)).resolves.toBeUndefined();
  });

  it('fails with a token-free GitError when the push is refused', async () => {
    const { dir } = await workspace();
    await writeFile(path.join(dir, 'a.txt'), 'changed\n');
    const wrong = 'ghs_revokedrevokedrevoked';
    const error = await commitAndPush(
      dir,
      pushOptions({ credentials: { username: 'x-access-token', password: wrong } }),
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GitError);
    expect((error as GitError).message).toMatch(/^git push failed/);
    expect((error as GitError).message).not.toContain(wrong);
    expect((error as GitError).message).not.toContain(fx.token);
  });

  it('pushes to the given clone URL even when the workspace points origin elsewhere', async () => {
    const { dir, headSha } = await workspace();
    const decoy = await fx.createRepo('attacker/decoy', { 'x.txt': 'x\n' });
    const decoySha = await fx.git(fx.barePath('attacker/decoy'), 'rev-parse', 'main');
    await fx.git(dir, 'remote', 'set-url', 'origin', decoy);
    await writeFile(path.join(dir, 'a.txt'), 'changed\n');
    const result = await commitAndPush(dir, pushOptions());
    const sha = (result as { sha: string }).sha;
    expect(await fx.git(fx.barePath('acme/widgets'), 'rev-parse', 'main')).toBe(sha);
    expect(await fx.git(fx.barePath('acme/widgets'), 'rev-parse', 'main^')).toBe(headSha);
    expect(await fx.git(fx.barePath('attacker/decoy'), 'rev-parse', 'main')).toBe(decoySha);
  });

  it.each([
    ['url.http://127.0.0.1:9/.insteadOf', 'http://'],
    ['http.proxy', 'http://127.0.0.1:9'],
    ['include.path', '/tmp/elsewhere.gitconfig'],
    ['credential.helper', 'store'],
  ])('refuses to push when the workspace config sets %s, and commits nothing', async (key, value) => {
    const { dir, headSha } = await workspace();
    await fx.git(dir, 'config', key, value);
    await writeFile(path.join(dir, 'a.txt'), 'changed\n');
    const before = fx.handler.requests.length;
    await expect(commitAndPush(dir, pushOptions())).rejects.toThrow(/git configuration was modified/);
    expect(fx.handler.requests.length).toBe(before);
    expect(await fx.git(dir, 'rev-parse', 'HEAD')).toBe(headSha);
  });

  it('rejects an invalid branch before touching git', async () => {
    const { dir } = await workspace();
    await expect(commitAndPush(dir, pushOptions({ branch: '--force' }))).rejects.toThrow(
      /invalid branch name/,
    );
  });
});
