/**
 * The workspace lock between processes (CONTRACT §11, §19): two real Node processes running the
 * built modules on one base directory, as a REVIEWER pod and a WORKER pod of one pull request do
 * on a shared volume. The second waits for the first's `pr-<N>.lock` instead of cleaning the tree
 * under its edits; a killed holder's lock is taken over.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { pathExists, prepareOptions, startGitFixture, type GitFixture } from './git-fixture.test-helper.js';

let fx: GitFixture;
const children: ChildProcessWithoutNullStreams[] = [];

beforeEach(async () => {
  fx = await startGitFixture();
});
afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
  await fx.close();
});

const MODULE = fileURLToPath(new URL('../../dist/src/workspace/workspace.js', import.meta.url));

/**
 * A job: takes the workspace lock, prepares the tree; a `holder` then writes `edit.txt` into it,
 * prints `ready`, waits for the file `go` and prints whether its edit is still there.
 */
const SCRIPT = `const { prepareWorkspace, withWorkspaceLock, workspacePath } = await import(process.argv[1]);
  const { existsSync, writeFileSync } = await import('node:fs');
  const o = JSON.parse(process.argv[2]);
  const [role, go] = [process.argv[3], process.argv[4]];
  o.credentials.password = process.env.TEST_TOKEN;
  const dir = workspacePath(o.baseDir, o.platform, o.repoFullName, o.prNumber);
  process.stdout.write('started\\n');
  await withWorkspaceLock(dir, async () => {
    const r = await prepareWorkspace(o);
    if (role !== 'holder') return void process.stdout.write('prepared\\n');
    writeFileSync(r.dir + '/edit.txt', 'worker edit\\n');
    process.stdout.write('ready\\n');
    while (!existsSync(go)) await new Promise((resolve) => setTimeout(resolve, 50));
    process.stdout.write(existsSync(r.dir + '/edit.txt') ? 'kept\\n' : 'lost\\n');
  });`;

interface Job {
  child: ChildProcessWithoutNullStreams;
  output: () => string;
  /** Resolves when the output holds `line` (rejects after `ms`). */
  waitFor: (line: string, ms?: number) => Promise<void>;
  exited: Promise<number | null>;
}

function startJob(url: string, role: 'holder' | 'other', go: string): Job {
  const options = prepareOptions(fx, url, { prNumber: 7 });
  const args = JSON.stringify({ ...options, credentials: { username: 'x-access-token', password: '' } });
  const child = spawn(process.execPath, ['--input-type=module', '-e', SCRIPT, MODULE, args, role, go], {
    env: { PATH: process.env.PATH, TEST_TOKEN: fx.token },
  });
  children.push(child);
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  const waitFor = async (line: string, ms = 30_000) => {
    const until = Date.now() + ms;
    while (!out.split('\n').includes(line)) {
      if (Date.now() > until || child.exitCode !== null) {
        throw new Error(`no "${line}" from the ${role} job; output: ${out} ${err}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  return { child, output: () => out, waitFor, exited };
}

describe('workspace lock between processes', () => {
  it('a second job of the same pull request waits; it never cleans the tree under the first', async () => {
    const url = await fx.createRepo('acme/widgets', { 'a.txt': 'a\n' });
    const go = path.join(fx.root, 'go');
    const holder = startJob(url, 'holder', go);
    await holder.waitFor('ready');
    const other = startJob(url, 'other', go);
    await other.waitFor('started');
    // Old code: the other job prepares (git clean -ffdx) at once and removes the holder's edit.
    const preparedEarly = await other.waitFor('prepared', 4000).then(
      () => true,
      () => false,
    );
    expect(preparedEarly).toBe(false);
    const lockDir = path.join(fx.baseDir, 'github/acme/widgets/pr-7.lock');
    expect(await pathExists(lockDir)).toBe(true); // beside the tree, not inside it
    expect(await pathExists(path.join(fx.baseDir, 'github/acme/widgets/pr-7/pr-7.lock'))).toBe(false);
    await writeFile(go, '');
    await holder.waitFor('kept');
    await other.waitFor('prepared');
    expect([await holder.exited, await other.exited]).toEqual([0, 0]);
    expect(holder.output()).not.toContain('lost');
    expect(await pathExists(lockDir)).toBe(false); // released
  });

  it('takes over the lock of a killed holder', async () => {
    const url = await fx.createRepo('acme/widgets', { 'a.txt': 'a\n' });
    const go = path.join(fx.root, 'go');
    const holder = startJob(url, 'holder', go);
    await holder.waitFor('ready');
    holder.child.kill('SIGKILL');
    await holder.exited;
    expect(await pathExists(path.join(fx.baseDir, 'github/acme/widgets/pr-7.lock'))).toBe(true);
    const started = Date.now();
    const other = startJob(url, 'other', go);
    await other.waitFor('prepared', 20_000);
    expect(Date.now() - started).toBeLessThan(20_000); // did not wait for the lock to age
    expect(await other.exited).toBe(0);
  });
});
