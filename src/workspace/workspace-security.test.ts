import { readdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GitError } from '../errors.js';
import { SecretMasker } from '../secrets.js';
import {
  filesContaining,
  pathExists,
  prepareOptions,
  startGitFixture,
  type GitFixture,
} from './git-fixture.test-helper.js';
import { runGit } from './git.js';
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

describe('prepareWorkspace: credentials', () => {
  it('fails with a GitError free of any token when the token is wrong', async () => {
    const url = await fx.createRepo('acme/widgets', { 'a.txt': 'a\n' });
    const wrong = 'ghs_wrongwrongwrongwrong123';
    const error = await prepareWorkspace(
      options(url, { credentials: { username: 'x-access-token', password: wrong } }),
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GitError);
    const message = (error as GitError).message;
    expect(message).toMatch(/git fetch failed/);
    expect(message).not.toContain(wrong);
    expect(message).not.toContain(fx.token);
    expect(fx.handler.requests.some((r) => !r.authorized)).toBe(true);
    expect(await exists(path.join(fx.baseDir, 'github/acme/widgets/pr-7'))).toBe(false);
  });

  it('fails with a GitError when git gets no credentials at all', async () => {
    const url = await fx.createRepo('acme/widgets', { 'a.txt': 'a\n' });
    const error = await runGit(['clone', '--', url, 'out'], { cwd: fx.root }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GitError);
    expect((error as GitError).message).toMatch(/^git clone failed \(exit code 128\)/);
    expect(fx.handler.requests.every((r) => !r.authorized)).toBe(true);
  });

  it('writes the token into no file of the workspace, after clone and after update', async () => {
    const url = await fx.createRepo('acme/widgets', { 'a.txt': 'a\n' });
    const basic = Buffer.from(`x-access-token:${fx.token}`).toString('base64');
    const { dir } = await prepareWorkspace(options(url));
    expect(await filesContaining(dir, fx.token)).toEqual([]);
    expect(await filesContaining(dir, basic)).toEqual([]);

    await fx.commit('acme/widgets', { 'b.txt': 'b\n' });
    const updated = await prepareWorkspace(options(url));
    expect(updated.action).toBe('updated');
    expect(fx.handler.requests.filter((r) => r.authorized).length).toBeGreaterThan(0);
    expect(await filesContaining(fx.baseDir, fx.token)).toEqual([]);
    expect(await filesContaining(fx.baseDir, basic)).toEqual([]);

    const config = await readFile(path.join(dir, '.git/config'), 'utf8');
    expect(config).not.toMatch(/credential|helper|x-access-token|REVIEWBOT_GIT/i);
    expect(config).toContain(`url = ${url}\n`);
  });

  it('refuses a clone URL carrying credentials before any request, without echoing them', async () => {
    await fx.createRepo('acme/widgets', { 'a.txt': 'a\n' });
    const url = `http://x-access-token:${fx.token}@${new URL(fx.baseUrl).host}/git/acme/widgets.git`;
    const error = await prepareWorkspace(options(url)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GitError);
    expect((error as GitError).message).toMatch(/contains credentials/);
    expect((error as GitError).message).not.toContain(fx.token);
    expect(fx.handler.requests).toEqual([]);
    expect(await exists(path.join(fx.baseDir, 'acme'))).toBe(false);
  });

  it.each(['file:///tmp/repo.git', 'git://example.com/r.git', 'not a url'])(
    'refuses the clone URL %s',
    async (url) => {
      await expect(prepareWorkspace(options(url))).rejects.toThrow(GitError);
    },
  );

  it('masks secrets of the given masker in git errors', async () => {
    await fx.createRepo('acme/widgets', { 'a.txt': 'a\n' });
    const secret = 'hunter2-project-secret';
    const url = `${fx.baseUrl}/acme/${secret}.git`;
    const error = await prepareWorkspace(options(url, { masker: new SecretMasker([secret]) })).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(GitError);
    expect((error as GitError).message).toContain('***');
    expect((error as GitError).message).not.toContain(secret);
  });
});

describe('prepareWorkspace: untrusted repository content', () => {
  it('runs no hook, even from a hook path the repository configures', async () => {
    const marker = path.join(fx.root, 'hook-ran');
    const hook = `#!/bin/sh\necho "$0" >> '${marker}'\n`;
    const url = await fx.createRepo('acme/widgets', {
      '.githooks/reference-transaction': hook,
      '.githooks/post-checkout': hook,
      'a.txt': 'a\n',
    });
    const { dir } = await prepareWorkspace(options(url));
    // A tool in the repository (husky and the like) points git at the repository's hooks.
    await fx.git(dir, 'config', 'core.hooksPath', '.githooks');
    await fx.git(dir, 'update-ref', 'refs/probe', 'HEAD');
    expect(await exists(marker)).toBe(true); // plain git would run them
    await rm(marker);

    await fx.commit('acme/widgets', { 'b.txt': 'b\n' });
    expect((await prepareWorkspace(options(url))).action).toBe('updated');
    await runGit(['checkout', '--quiet', '-b', 'local'], { cwd: dir });
    expect(await exists(marker)).toBe(false);
  });

  it('does not fetch a file:// submodule and refuses to when asked', async () => {
    const libUrl = await fx.createRepo('acme/lib', { 'lib.txt': 'lib\n' });
    expect(libUrl).toContain('/acme/lib.git');
    const libSha = await fx.git(fx.barePath('acme/lib'), 'rev-parse', 'main');
    const url = await fx.createRepo('acme/widgets', {
      '.gitmodules': `[submodule "vendor/lib"]\n\tpath = vendor/lib\n\turl = file://${fx.barePath('acme/lib')}\n`,
    });
    const work = fx.workPath('acme/widgets');
    await fx.git(work, 'update-index', '--add', '--cacheinfo', `160000,${libSha},vendor/lib`);
    await fx.git(work, 'commit', '--quiet', '-m', 'add submodule');
    await fx.git(work, 'push', '--quiet', 'origin', 'HEAD:refs/heads/main');

    const { dir } = await prepareWorkspace(options(url));
    expect(await readdir(path.join(dir, 'vendor/lib'))).toEqual([]);
    await expect(runGit(['submodule', 'update', '--init'], { cwd: dir })).rejects.toThrow(
      /transport 'file' not allowed/,
    );
    expect(await readdir(path.join(dir, 'vendor/lib'))).toEqual([]);
    // Even a fetch asked for directly (which git's default would allow) is refused.
    const fileUrl = `file://${fx.barePath('acme/lib')}`;
    await expect(runGit(['fetch', '--quiet', fileUrl, 'main'], { cwd: dir })).rejects.toThrow(
      /transport 'file' not allowed/,
    );
    await fx.git(dir, 'fetch', '--quiet', fileUrl, 'main');
    // Control: the same command with file transport allowed does fetch it.
    await fx.git(dir, '-c', 'protocol.file.allow=always', 'submodule', '--quiet', 'update', '--init');
    expect(await readdir(path.join(dir, 'vendor/lib'))).toContain('lib.txt');
  });
});
