/**
 * A store-backed workspace inside the tool sandbox (CONTRACT §16, §19): git works there (the
 * store's objects are bound read-only beside the workspace), the alternates entry cannot be
 * changed, and the store cannot be written; a push refuses a workspace borrowing from elsewhere.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runToolCommand } from '../agent/sandbox/index.js';
import { probeSandbox } from '../agent/sandbox/detect.js';
import type { ToolSandbox } from '../agent/sandbox/types.js';
import { GitError } from '../errors.js';
import { commitAndPush } from './commit-and-push.js';
import { prepareOptions, startGitFixture, type GitFixture } from './git-fixture.test-helper.js';
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

    // A commit made in the sandbox lands in the workspace's own objects.
    const commit = await run(
      'echo c > c.txt && git add c.txt && git -c user.name=a -c user.email=a@b commit -qm c && git log --oneline | wc -l',
    );
    expect(commit.exitCode).toBe(0);
    expect(commit.output.trim()).toBe('2');
  });

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
