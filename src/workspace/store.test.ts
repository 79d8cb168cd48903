/**
 * The repository object store (CONTRACT §19) with real git over real smart HTTP: a new pull request
 * of a known repository receives only what the store lacks, workspaces stay separate working trees
 * of their own heads, concurrent preparations share one store, and a killed fetch or a damaged
 * store never makes the next preparation fail.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { lstat, mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  prepareOptions,
  startGitFixture,
  type FileChanges,
  type GitFixture,
} from './git-fixture.test-helper.js';
import { readBaseFile } from './read-base-file.js';
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

/** 200 files of 2 KiB of random hex each (incompressible enough that sizes mean something). */
function bigTree(): FileChanges {
  const files: FileChanges = {};
  for (let i = 0; i < 200; i += 1) files[`src/f${i}.txt`] = `${randomBytes(1024).toString('hex')}\n`;
  return files;
}

/** Bytes the server sent for every request after index `from`. */
const sentSince = (from: number) => fx.handler.requests.slice(from).reduce((n, r) => n + r.bytesSent, 0);

/** Size of a pack holding exactly the objects of `tip` that `exclude` lacks (in the bare remote). */
async function newObjectBytes(tip: string, exclude: string[]): Promise<number> {
  const bare = fx.barePath('acme/widgets');
  const list = await fx.git(bare, 'rev-list', '--objects', tip, '--not', ...exclude);
  const ids = list
    .split('\n')
    .map((line) => line.split(' ')[0])
    .join('\n');
  const child = execFile('git', ['pack-objects', '--stdout'], { cwd: bare, encoding: 'buffer' });
  child.stdin?.end(`${ids}\n`);
  let bytes = 0;
  child.stdout?.on('data', (chunk: Buffer) => (bytes += chunk.length));
  await new Promise((resolve) => child.on('close', resolve));
  return bytes;
}

async function fsckClean(gitDirOrWorktree: string): Promise<void> {
  const { stderr } = await execFileAsync('git', ['fsck', '--no-dangling', '--no-progress'], {
    cwd: gitDirOrWorktree,
    env: { PATH: process.env.PATH, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' },
  });
  // A bare store's HEAD names no branch: fsck's "notice: HEAD points to an unborn branch" is no error.
  const problems = stderr.split('\n').filter((line) => line.trim() !== '' && !line.startsWith('notice:'));
  expect(problems).toEqual([]);
}

describe('repository object store', () => {
  it('fetches only what a new pull request lacks; each pr-<N> shows its own head', async () => {
    const url = await fx.createRepo('acme/widgets', bigTree());
    const main = await fx.git(fx.barePath('acme/widgets'), 'rev-parse', 'main');
    const head7 = await fx.commit('acme/widgets', { 'src/f1.txt': 'seven\n' }, { branch: 'pr-seven' });
    await fx.git(fx.workPath('acme/widgets'), 'checkout', '--quiet', 'main');
    const head8 = await fx.commit('acme/widgets', { 'src/f2.txt': 'eight\n' }, { branch: 'pr-eight' });

    const first = await prepareWorkspace(prepareOptions(fx, url, { prNumber: 7, branch: 'pr-seven' }));
    const firstBytes = sentSince(0);
    const mark = fx.handler.requests.length;
    const second = await prepareWorkspace(prepareOptions(fx, url, { prNumber: 8, branch: 'pr-eight' }));
    const secondBytes = sentSince(mark);

    expect(first.headSha).toBe(head7);
    expect(second.headSha).toBe(head8);
    expect(await readFile(path.join(first.dir, 'src/f1.txt'), 'utf8')).toBe('seven\n');
    expect(await readFile(path.join(first.dir, 'src/f2.txt'), 'utf8')).not.toBe('eight\n');
    expect(await readFile(path.join(second.dir, 'src/f2.txt'), 'utf8')).toBe('eight\n');
    expect(await fx.git(second.dir, 'status', '--porcelain')).toBe('');
    expect(await fx.git(second.dir, 'rev-parse', 'HEAD')).toBe(head8);
    // The second pull request received its new objects (plus protocol overhead), not the tree again.
    const lacking = await newObjectBytes(head8, [head7, main]);
    expect(firstBytes).toBeGreaterThan(200 * 1024);
    expect(secondBytes).toBeLessThan(lacking + 4096);
    expect(secondBytes * 20).toBeLessThan(firstBytes);

    // Each workspace's `.git` is its own directory borrowing from the one store.
    const store = storePaths(path.dirname(first.dir)).gitDir;
    for (const ws of [first.dir, second.dir]) {
      expect((await lstat(path.join(ws, '.git'))).isDirectory()).toBe(true);
      expect(await readFile(path.join(ws, '.git/objects/info/alternates'), 'utf8')).toBe(
        `${path.join(store, 'objects')}\n`,
      );
      await fsckClean(ws);
    }
    await fsckClean(store);
  });

  it('prepares pull requests of one repository concurrently on one store', async () => {
    const url = await fx.createRepo('acme/widgets', bigTree());
    const heads: string[] = [];
    for (let n = 1; n <= 4; n += 1) {
      await fx.git(fx.workPath('acme/widgets'), 'checkout', '--quiet', 'main');
      heads.push(await fx.commit('acme/widgets', { [`pr${n}.txt`]: `${n}\n` }, { branch: `b${n}` }));
    }
    const results = await Promise.all(
      heads.map((_, i) =>
        prepareWorkspace(prepareOptions(fx, url, { prNumber: i + 1, branch: `b${i + 1}` })),
      ),
    );
    expect(results.map((r) => r.headSha)).toEqual(heads);
    for (const [i, result] of results.entries()) {
      expect((await readdir(result.dir)).filter((f) => f.startsWith('pr')).sort()).toEqual([
        `pr${i + 1}.txt`,
      ]);
      await fsckClean(result.dir);
    }
    await fsckClean(storePaths(path.dirname(results[0]!.dir)).gitDir);
  });

  it('recovers from a fetch killed midway and from what a killed process leaves', async () => {
    const url = await fx.createRepo('acme/widgets', bigTree());
    const opts = prepareOptions(fx, url, { prNumber: 7 });
    const controller = new AbortController();
    const watch = setInterval(() => {
      if (fx.handler.requests.some((r) => r.method === 'POST' && r.bytesSent > 0)) controller.abort();
    }, 1);
    await prepareWorkspace({ ...opts, signal: controller.signal }).catch(() => undefined);
    clearInterval(watch);

    // What else a killed fetch leaves: git's lock and temporary files, and our lock of a dead process.
    const { gitDir, lockDir } = storePaths(path.join(fx.baseDir, 'github/acme/widgets'));
    await mkdir(path.join(gitDir, 'objects/pack'), { recursive: true });
    await writeFile(path.join(gitDir, 'shallow.lock'), '');
    await writeFile(path.join(gitDir, 'objects/pack/tmp_pack_dead'), 'partial');
    await mkdir(path.join(gitDir, 'refs/reviewbot'), { recursive: true });
    await writeFile(path.join(gitDir, 'refs/reviewbot/pr-7.lock'), '');
    const dead = execFile('true');
    await new Promise((resolve) => dead.on('close', resolve));
    await rm(lockDir, { recursive: true, force: true });
    await mkdir(lockDir, { recursive: true });
    await writeFile(
      path.join(lockDir, 'owner'),
      JSON.stringify({ host: hostname(), pid: dead.pid, token: 'x', since: '' }),
    );

    const started = Date.now();
    const result = await prepareWorkspace(opts);
    expect(Date.now() - started).toBeLessThan(20_000); // did not wait for the stale lock to age
    expect(await fx.git(result.dir, 'rev-parse', 'HEAD')).toBe(
      await fx.git(fx.barePath('acme/widgets'), 'rev-parse', 'main'),
    );
    await fsckClean(result.dir);
    await fsckClean(gitDir);
  });

  it('rebuilds a store that lost its objects', async () => {
    const url = await fx.createRepo('acme/widgets', bigTree());
    await prepareWorkspace(prepareOptions(fx, url, { prNumber: 7 }));
    const { gitDir } = storePaths(path.join(fx.baseDir, 'github/acme/widgets'));
    const packDir = path.join(gitDir, 'objects/pack');
    for (const file of await readdir(packDir)) await rm(path.join(packDir, file));
    await fx.commit('acme/widgets', { 'x.txt': 'x\n' }, { branch: 'other' });

    const result = await prepareWorkspace(prepareOptions(fx, url, { prNumber: 8, branch: 'other' }));
    expect(await readFile(path.join(result.dir, 'x.txt'), 'utf8')).toBe('x\n');
    expect(await fx.git(result.dir, 'status', '--porcelain')).toBe('');
    await fsckClean(result.dir);
  });

  it('makes a workspace afresh when it borrows objects from anywhere but its own store', async () => {
    const url = await fx.createRepo('acme/widgets', { 'a.txt': 'a\n' });
    const other = await fx.createRepo('acme/other', { 'o.txt': 'o\n' });
    await prepareWorkspace(prepareOptions(fx, other, { repoFullName: 'acme/other', prNumber: 1 }));
    const { dir } = await prepareWorkspace(prepareOptions(fx, url, { prNumber: 7 }));
    const alternates = path.join(dir, '.git/objects/info/alternates');
    const foreign = path.join(storePaths(path.join(fx.baseDir, 'github/acme/other')).gitDir, 'objects');
    await writeFile(alternates, `${foreign}\n`);

    const result = await prepareWorkspace(prepareOptions(fx, url, { prNumber: 7 }));
    expect(result.action).toBe('cloned');
    expect(await readFile(alternates, 'utf8')).not.toContain('acme/other');
  });
  it('keeps a base commit fetched into the workspace valid across updates (fsck clean)', async () => {
    const url = await fx.createRepo('acme/widgets', { 'a.txt': 'first\n' });
    const base = await fx.commit('acme/widgets', { 'a.txt': 'base\n' }); // a base with a parent
    await fx.commit('acme/widgets', { 'a.txt': 'head\n' }, { branch: 'feature' });
    const opts = prepareOptions(fx, url, { branch: 'feature' });
    const { dir } = await prepareWorkspace(opts);
    const credentials = opts.credentials;
    expect(await readBaseFile({ dir, sha: base, path: 'a.txt', cloneUrl: url, credentials })).toBe('base\n');
    await fx.commit('acme/widgets', { 'b.txt': 'b\n' }, { branch: 'feature' });
    expect((await prepareWorkspace(opts)).action).toBe('updated');
    await fsckClean(dir);
    expect(await readBaseFile({ dir, sha: base, path: 'a.txt', cloneUrl: url, credentials })).toBe('base\n');
  });
  it('serializes store updates of two processes (built modules) on one base directory', async () => {
    const url = await fx.createRepo('acme/widgets', bigTree());
    const heads: string[] = [];
    for (const n of [1, 2]) {
      await fx.git(fx.workPath('acme/widgets'), 'checkout', '--quiet', 'main');
      heads.push(await fx.commit('acme/widgets', { [`p${n}.txt`]: `${n}\n` }, { branch: `b${n}` }));
    }
    const module = fileURLToPath(new URL('../../dist/src/workspace/workspace.js', import.meta.url));
    const script = `const { prepareWorkspace } = await import(process.argv[1]);
      const o = JSON.parse(process.argv[2]);
      o.credentials.password = process.env.TEST_TOKEN;
      const r = await prepareWorkspace(o);
      process.stdout.write(r.headSha);`;
    const run = (n: number) => {
      const options = { ...prepareOptions(fx, url, { prNumber: n, branch: `b${n}` }) };
      const args = JSON.stringify({ ...options, credentials: { username: 'x-access-token', password: '' } });
      return execFileAsync(process.execPath, ['--input-type=module', '-e', script, module, args], {
        env: { PATH: process.env.PATH, TEST_TOKEN: fx.token },
      });
    };
    const [one, two] = await Promise.all([run(1), run(2)]);
    expect([one.stdout, two.stdout]).toEqual(heads);
    const store = storePaths(path.join(fx.baseDir, 'github/acme/widgets')).gitDir;
    await fsckClean(store);
    expect(await fx.git(store, 'for-each-ref', '--format=%(refname)', 'refs/reviewbot/')).toBe(
      'refs/reviewbot/pr-1\nrefs/reviewbot/pr-2',
    );
  });
});
