/**
 * A store-backed workspace inside the tool sandbox (CONTRACT §16, §19): git reads work there (the
 * store's objects are bound read-only beside the workspace), `.git` (the alternates entry with it)
 * cannot be changed, renamed or replaced, and the store cannot be written; a push refuses a
 * workspace borrowing from elsewhere.
 */
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runToolCommand } from '../agent/sandbox/index.js';
import { probeSandbox } from '../agent/sandbox/detect.js';
import type { ToolSandbox } from '../agent/sandbox/types.js';
import { GitError } from '../errors.js';
import { commitAndPush } from './commit-and-push.js';
import { prepareOptions, startGitFixture, type GitFixture } from './git-fixture.test-helper.js';
import { sharedIndexDir } from './shared-index.js';
import { spareBuildsSettled } from './spare-tree.js';
import { prepareWorkspace } from './workspace.js';
import { storePaths } from './workspace-path.js';

const sandbox: ToolSandbox = { status: await probeSandbox('auto'), networkHosts: [] };
const home = await mkdtemp(path.join(tmpdir(), 'reviewbot-store-sandbox-home-'));
let fx: GitFixture;

beforeEach(async () => {
  fx = await startGitFixture();
});
afterEach(async () => {
  await fx.close();
});
afterAll(async () => {
  await rm(home, { recursive: true, force: true });
});

describe('store-backed workspace in the sandbox', () => {
  it.skipIf(sandbox.status.kind !== 'bwrap')('runs git on borrowed objects, read-only', async () => {
    const url = await fx.createRepo('acme/widgets', { 'a.txt': 'a\n', 'src/b.ts': 'b\n' });
    const { dir, headSha } = await prepareWorkspace(prepareOptions(fx, url));
    const store = storePaths(path.dirname(dir)).gitDir;
    const run = (command: string) =>
      runToolCommand(command, { workspace: dir, home, timeoutMs: 20_000, sandbox });

    const log = await run('git rev-parse HEAD && git show --stat --format=%s HEAD && git status --porcelain');
    expect(log.exitCode).toBe(0);
    expect(log.output).toContain(headSha);
    expect(log.output).toContain('src/b.ts');

    const tamper = await run(
      `echo /tmp > .git/objects/info/alternates; touch ${store}/objects/evil; echo done`,
    );
    expect(tamper.output).toContain('done');
    expect(await readFile(path.join(dir, '.git/objects/info/alternates'), 'utf8')).toBe(
      `${path.join(store, 'objects')}\n`,
    );
    await expect(readFile(path.join(store, 'objects/evil'))).rejects.toThrow();

    // `.git` is read-only in the sandbox (the bot commits itself): no commit, no link, no pipe,
    // and the directory cannot be renamed away and replaced.
    const commit = await run(
      'echo c > c.txt && git add c.txt; ln -s /tmp .git/FETCH_HEAD; mkfifo .git/p; mv .git .git2; mkdir .git2; git log --oneline | wc -l',
    );
    expect(commit.output).toMatch(/index\.lock.*Read-only file system/);
    expect(commit.output).toMatch(/FETCH_HEAD.*Read-only file system/);
    expect(commit.output).toMatch(/cannot move '\.git' to '\.git2': Device or resource busy/);
    expect(commit.output.trim().split('\n').at(-1)).toBe('1');
    expect(await readdir(path.join(dir, '.git'))).not.toContain('FETCH_HEAD');
    expect(await readFile(path.join(dir, 'c.txt'), 'utf8')).toBe('c\n');
  });

  it.skipIf(sandbox.status.kind !== 'bwrap')(
    'a tree sharing the repository index: git works, the shared index cannot be written',
    async () => {
      const url = await fx.createRepo('acme/widgets', { 'a.txt': 'a\n', 'src/b.ts': 'b\n' });
      await fx.commit('acme/widgets', { 'a.txt': 'a2\n' }, { branch: 'pr-2' });
      await prepareWorkspace(prepareOptions(fx, url, { prNumber: 1, spareTree: true }));
      await spareBuildsSettled();
      const { dir, fromSpare } = await prepareWorkspace(
        prepareOptions(fx, url, { prNumber: 2, branch: 'pr-2', spareTree: true }),
      );
      expect(fromSpare).toBe(true);
      const shared = sharedIndexDir(path.dirname(dir));
      const [name] = (await readdir(shared)).filter((n) => n.startsWith('sharedindex.'));
      expect(name).toBeDefined();
      const before = await readFile(path.join(shared, name!));
      const run = (command: string) =>
        runToolCommand(command, { workspace: dir, home, timeoutMs: 20_000, sandbox });

      const status = await run('git status --porcelain && echo edited >> a.txt && git status --porcelain');
      expect(status.exitCode).toBe(0);
      expect(status.output.trim()).toBe('M a.txt');
      const tamper = await run(`echo x >> .git/${name}; echo x >> ${path.join(shared, name!)}; echo done`);
      expect(tamper.output).toContain('done');
      expect(await readFile(path.join(shared, name!))).toEqual(before);
      const commit = await run('git add -A; git status --porcelain');
      expect(commit.output).toMatch(/Read-only file system/);
      expect(commit.output.trim().split('\n').at(-1)!.trim()).toBe('M a.txt');
    },
  );

  it('refuses to push from a workspace borrowing objects from elsewhere', async () => {
    const url = await fx.createRepo('acme/widgets', { 'a.txt': 'a\n' });
    const { dir } = await prepareWorkspace(prepareOptions(fx, url));
    await writeFile(path.join(dir, '.git/objects/info/alternates'), '/tmp/other/objects\n');
    await writeFile(path.join(dir, 'b.txt'), 'b\n');
    const error = await commitAndPush(dir, {
      message: 'm',
      authorName: 'a',
      authorEmail: 'a@example.com',
      cloneUrl: url,
      branch: 'main',
      credentials: { username: 'x-access-token', password: fx.token },
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GitError);
    expect((error as GitError).message).toMatch(/borrows objects from another place/);
  });
});
