/**
 * The workspace layout of CONTRACT §11 on real git repositories served over smart HTTP: equal
 * repository names on two platforms get separate workspaces, a project path that would nest inside
 * another workspace is refused, and workspaces of the older layout are removed once.
 */
import { mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { UsageError } from '../errors.js';
import { runGit } from './git.js';
import { pathExists, prepareOptions, startGitFixture, type GitFixture } from './git-fixture.test-helper.js';
import { prepareWorkspace, withWorkspaceLock, type PrepareWorkspaceOptions } from './workspace.js';

let fx: GitFixture;
beforeEach(async () => {
  fx = await startGitFixture();
});
afterEach(async () => {
  await fx.close();
});

const options = (cloneUrl: string, overrides: Partial<PrepareWorkspaceOptions> = {}) =>
  prepareOptions(fx, cloneUrl, overrides);

describe('workspaces of two platforms', () => {
  it('GitHub acme/app#7 and GitLab acme/app!7 get separate workspaces, usable at once with their own heads', async () => {
    // Two different repositories that carry the same name on their platforms (e.g. mirrors).
    const githubUrl = await fx.createRepo('gh/acme/app', { 'README.md': 'github v1\n' });
    const gitlabUrl = await fx.createRepo('gl/acme/app', { 'README.md': 'gitlab v1\n' });
    const github = options(githubUrl, { platform: 'github', repoFullName: 'acme/app', prNumber: 7 });
    const gitlab = options(gitlabUrl, { platform: 'gitlab', repoFullName: 'acme/app', prNumber: 7 });

    const gh = await prepareWorkspace(github);
    const gl = await prepareWorkspace(gitlab);
    expect(gh.dir).toBe(path.join(fx.baseDir, 'github', 'acme', 'app', 'pr-7'));
    expect(gl.dir).toBe(path.join(fx.baseDir, 'gitlab', 'acme', 'app', 'pr-7'));
    expect([gh.action, gl.action]).toEqual(['cloned', 'cloned']);
    expect(await readFile(path.join(gh.dir, 'README.md'), 'utf8')).toBe('github v1\n');

    // New commits on both; both jobs run at once, each under its own workspace lock.
    const ghHead = await fx.commit('gh/acme/app', { 'README.md': 'github v2\n' });
    const glHead = await fx.commit('gl/acme/app', { 'README.md': 'gitlab v2\n' });
    const [gh2, gl2] = await Promise.all([
      withWorkspaceLock(gh.dir, () => prepareWorkspace(github)),
      withWorkspaceLock(gl.dir, () => prepareWorkspace(gitlab)),
    ]);
    expect([gh2.action, gl2.action]).toEqual(['updated', 'updated']);
    expect(gh2.headSha).toBe(ghHead);
    expect(gl2.headSha).toBe(glHead);
    expect(await fx.git(gh.dir, 'rev-parse', 'HEAD')).toBe(ghHead);
    expect(await fx.git(gl.dir, 'rev-parse', 'HEAD')).toBe(glHead);
    expect(await readFile(path.join(gh.dir, 'README.md'), 'utf8')).toBe('github v2\n');
    expect(await readFile(path.join(gl.dir, 'README.md'), 'utf8')).toBe('gitlab v2\n');
  });

  it('refuses GitLab project acme/app/pr-7, which would nest inside a pull request workspace', async () => {
    const githubUrl = await fx.createRepo('gh/acme/app', { 'README.md': 'github\n' });
    const nestedUrl = await fx.createRepo('gl/acme/app/pr-7', { 'README.md': 'nested\n' });
    const gh = await prepareWorkspace(
      options(githubUrl, { platform: 'github', repoFullName: 'acme/app', prNumber: 7 }),
    );
    const nested = prepareWorkspace(
      options(nestedUrl, { platform: 'gitlab', repoFullName: 'acme/app/pr-7', prNumber: 3 }),
    );
    await expect(nested).rejects.toThrow(UsageError);
    await expect(nested).rejects.toThrow(/"pr-7" could be taken for a workspace directory/);
    expect((await readdir(gh.dir)).sort()).toEqual(['.git', 'README.md']);
    expect(await fx.git(gh.dir, 'status', '--porcelain')).toBe('');
    expect(await pathExists(path.join(fx.baseDir, 'gitlab'))).toBe(false);
  });
});

/** A real clone of `url` at `<base>/<rel>`, as the older layout's code left it. */
async function oldClone(url: string, rel: string): Promise<string> {
  const dir = path.join(fx.baseDir, rel);
  await mkdir(path.dirname(dir), { recursive: true });
  await runGit(['clone', '--quiet', '--depth', '1', '--', url, dir], {
    cwd: fx.root,
    credentials: { username: 'x-access-token', password: fx.token },
  });
  return dir;
}

describe('workspaces of the older layout', () => {
  it('are removed once, before the first workspace of the current layout; new ones and dot-directories stay', async () => {
    const url = await fx.createRepo('acme/widgets', { 'README.md': 'v1\n' });
    const old = [
      await oldClone(url, 'acme/widgets/pr-1'), // GitHub acme/widgets#1
      await oldClone(url, 'github/tools/pr-2'), // GitHub owner literally named `github`
      await oldClone(url, 'group/sub/project/pr-3'), // GitLab group/sub/project!3
    ];
    await mkdir(path.join(fx.baseDir, 'acme/widgets/.deps/lib'), { recursive: true });
    await mkdir(path.join(fx.baseDir, '.learnings'), { recursive: true });
    await writeFile(path.join(fx.baseDir, '.learnings/github--acme--widgets.json'), '{}\n');
    await mkdir(path.join(fx.baseDir, '.reviewbot-agent/sessions'), { recursive: true });

    const fresh = await prepareWorkspace(options(url, { platform: 'github', repoFullName: 'acme/widgets' }));
    expect(fresh.dir).toBe(path.join(fx.baseDir, 'github', 'acme', 'widgets', 'pr-7'));
    for (const dir of old) expect(await pathExists(dir), dir).toBe(false);
    expect(await pathExists(path.join(fx.baseDir, 'acme'))).toBe(false); // emptied owner directory
    expect(await pathExists(path.join(fx.baseDir, 'group'))).toBe(false);
    expect(await readFile(path.join(fx.baseDir, '.learnings/github--acme--widgets.json'), 'utf8')).toBe(
      '{}\n',
    );
    expect(await pathExists(path.join(fx.baseDir, '.reviewbot-agent/sessions'))).toBe(true);
    expect(await readFile(path.join(fx.baseDir, '.reviewbot-layout'), 'utf8')).toBe('2\n');

    // Once: a later job removes nothing, even what looks like the older layout.
    const lookalike = await oldClone(url, 'gitlab/acme/widgets/pr-7'); // also GitLab acme/widgets!7 today
    const again = await prepareWorkspace(options(url, { platform: 'github', repoFullName: 'acme/widgets' }));
    expect(again).toMatchObject({ dir: fresh.dir, action: 'updated' });
    expect(await pathExists(path.join(lookalike, '.git'))).toBe(true);
  });
});
