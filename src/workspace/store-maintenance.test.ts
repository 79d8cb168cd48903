/**
 * Store upkeep (CONTRACT §19): refs of removed workspaces are dropped and gc never prunes what a
 * remaining workspace needs; the store goes only when no workspace of the repository remains and
 * no job uses the repository directory.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { access, mkdir, rm, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { prepareOptions, startGitFixture, type GitFixture } from './git-fixture.test-helper.js';
import { withWorkspaceLock } from './lock.js';
import { STALE_SPARE_MS, spareBuildsSettled, spareTreeDir } from './spare-tree.js';
import { findStores, maintainStore } from './store-maintenance.js';
import { prepareWorkspace } from './workspace.js';
import { storePaths } from './workspace-path.js';

const execFileAsync = promisify(execFile);
let fx: GitFixture;
beforeEach(async () => {
  fx = await startGitFixture();
});
afterEach(async () => {
  await fx.close();
});

async function fsck(dir: string): Promise<string[]> {
  const { stderr } = await execFileAsync('git', ['fsck', '--no-dangling', '--no-progress'], {
    cwd: dir,
    env: { PATH: process.env.PATH, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' },
  });
  return stderr.split('\n').filter((line) => line.trim() !== '' && !line.startsWith('notice:'));
}

describe('maintainStore', () => {
  it('drops the refs of removed workspaces, keeps what others need, removes the store last', async () => {
    const files = Object.fromEntries(
      Array.from({ length: 50 }, (_, i) => [`f${i}.txt`, `${randomBytes(512).toString('hex')}\n`]),
    );
    const url = await fx.createRepo('acme/widgets', files);
    await fx.commit('acme/widgets', { 'seven.txt': '7\n' }, { branch: 'b7' });
    await fx.git(fx.workPath('acme/widgets'), 'checkout', '--quiet', 'main');
    await fx.commit('acme/widgets', { 'eight.txt': '8\n' }, { branch: 'b8' });
    const seven = await prepareWorkspace(
      prepareOptions(fx, url, { prNumber: 7, branch: 'b7', spareTree: true }),
    );
    const eight = await prepareWorkspace(
      prepareOptions(fx, url, { prNumber: 8, branch: 'b8', spareTree: true }),
    );
    const repoDir = path.dirname(seven.dir);
    expect(await findStores(fx.baseDir, ['github', 'gitlab'])).toEqual([repoDir]);
    await spareBuildsSettled();
    await access(spareTreeDir(repoDir));
    // What a killed spare build leaves: removed once it is older than an hour.
    const stale = path.join(storePaths(repoDir).root, 'spare-tmp-1-dead');
    const fresh = path.join(storePaths(repoDir).root, 'spare-tmp-2-busy');
    await mkdir(path.join(stale, '.git'), { recursive: true });
    await mkdir(fresh);
    const old = new Date(Date.now() - STALE_SPARE_MS - 60_000);
    await utimes(stale, old, old);

    await rm(seven.dir, { recursive: true, force: true });
    const upkeep = await maintainStore(repoDir);
    expect(upkeep).toEqual({ action: 'kept', droppedRefs: ['refs/reviewbot/pr-7'], gc: true });
    expect(await fsck(eight.dir)).toEqual([]);
    expect(await fsck(storePaths(repoDir).gitDir)).toEqual([]);
    expect(await fx.git(eight.dir, 'status', '--porcelain')).toBe('');
    expect(await fx.git(eight.dir, 'log', '--format=%s', '-1')).toBe('next');
    await expect(access(stale)).rejects.toThrow();
    await access(fresh);
    // The spare survives the gc and still makes a clean workspace.
    const nine = await prepareWorkspace(
      prepareOptions(fx, url, { prNumber: 9, branch: 'b8', spareTree: true }),
    );
    expect(nine.fromSpare).toBe(true);
    expect(await fsck(nine.dir)).toEqual([]);
    expect(await fx.git(nine.dir, 'status', '--porcelain')).toBe('');
    await spareBuildsSettled();
    await rm(nine.dir, { recursive: true, force: true });

    // A job of this process using the repository directory keeps the store.
    await rm(eight.dir, { recursive: true, force: true });
    const busy = await withWorkspaceLock(path.join(repoDir, 'pr-9'), () => maintainStore(repoDir));
    expect(busy).toEqual({ action: 'busy' });
    expect(await maintainStore(repoDir)).toEqual({ action: 'removed' });
    await expect(access(path.join(repoDir, '.store'))).rejects.toThrow();
  });

  it("keeps the store and a pull request's ref while a job of another pod holds pr-<N>.lock", async () => {
    const url = await fx.createRepo('acme/widgets', { 'a.txt': 'a\n' });
    const seven = await prepareWorkspace(prepareOptions(fx, url, { prNumber: 7 }));
    await prepareWorkspace(prepareOptions(fx, url, { prNumber: 8 }));
    const repoDir = path.dirname(seven.dir);
    // A pod of another node fetched pr-8's head and holds its lock; its tree is not made yet.
    await rm(path.join(repoDir, 'pr-8'), { recursive: true, force: true });
    const lock = path.join(repoDir, 'pr-8.lock');
    await mkdir(lock);
    await writeFile(
      path.join(lock, 'owner'),
      JSON.stringify({ host: 'pod-b', pid: 1, token: 't', since: '' }),
    );
    expect(await maintainStore(repoDir)).toEqual({ action: 'kept', droppedRefs: [], gc: false });
    await rm(seven.dir, { recursive: true, force: true });
    expect(await maintainStore(repoDir)).toEqual({ action: 'busy' });
    await access(storePaths(repoDir).gitDir);
    // The pod was killed: its lock goes stale, is taken over, and the store goes.
    const old = new Date(Date.now() - 120_000);
    await utimes(lock, old, old);
    expect(await maintainStore(repoDir)).toEqual({ action: 'removed' });
    await expect(access(lock)).rejects.toThrow();
  });
});
