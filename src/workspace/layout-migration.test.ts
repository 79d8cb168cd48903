/**
 * `migrateWorkspaceLayout` on real directories: what counts as an old-layout workspace, what is
 * never touched (dot-directories at the base, platform directories, symlinks, busy workspaces),
 * and that it runs once.
 */
import { spawn } from 'node:child_process';
import { existsSync, lstatSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LAYOUT_LOCK, migrateWorkspaceLayout } from './layout-migration.js';
import { withWorkspaceLock } from './lock.js';

let base: string;
beforeEach(async () => {
  base = await mkdtemp(path.join(tmpdir(), 'reviewbot-layout-'));
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

const at = (rel: string) => path.join(base, rel);

/** A directory that looks like a checkout: a `.git` directory and a file. */
async function checkout(rel: string): Promise<string> {
  await mkdir(at(`${rel}/.git`), { recursive: true });
  await writeFile(at(`${rel}/README.md`), 'checkout\n');
  return at(rel);
}

describe('migrateWorkspaceLayout', () => {
  it('removes old-layout workspaces and .deps, and leaves everything else', async () => {
    await checkout('acme/widgets/pr-1');
    await checkout('acme/widgets/pr-1/pr-4'); // GitLab acme/widgets/pr-1!4, nested in the old layout
    await checkout('github/widgets/pr-2'); // GitHub owner named `github`
    await checkout('gitlab/group/project/pr-3'); // GitLab group `gitlab`
    await checkout('acme/.github/pr-5');
    await mkdir(at('acme/widgets/.deps/lib'), { recursive: true });
    await mkdir(at('acme/widgets/pr-9'), { recursive: true }); // no .git: not a workspace
    await writeFile(at('acme/widgets/notes.txt'), 'notes\n');
    await checkout('.learnings/acme/widgets/pr-6'); // dot-directories at the base are never looked into
    await checkout('.reviewbot-agent/x/y/pr-1');
    await checkout('top/pr-1'); // one level down: not a workspace of either layout
    await mkdir(at('elsewhere/repo'), { recursive: true });
    await checkout('elsewhere/repo/pr-1');
    await mkdir(at('link/repo'), { recursive: true });
    await symlink(at('elsewhere/repo/pr-1'), at('link/repo/pr-1')); // not followed, not removed

    const report = await migrateWorkspaceLayout(base);
    const rel = (dirs: string[]) => dirs.map((d) => path.relative(base, d)).sort();
    expect(rel(report.removed)).toEqual([
      'acme/.github/pr-5',
      'acme/widgets/.deps',
      'acme/widgets/pr-1',
      'elsewhere/repo/pr-1',
      'github/widgets/pr-2',
      'gitlab/group/project/pr-3',
    ]);
    expect(report.kept).toEqual([]);
    for (const kept of [
      'acme/widgets/pr-9',
      'acme/widgets/notes.txt',
      '.learnings/acme/widgets/pr-6/README.md',
      '.reviewbot-agent/x/y/pr-1/README.md',
      'top/pr-1/README.md',
      'github', // platform-named first-level directories stay, even when emptied
      'gitlab',
    ]) {
      expect(existsSync(at(kept)), kept).toBe(true);
    }
    expect(lstatSync(at('link/repo/pr-1')).isSymbolicLink()).toBe(true);
    expect(existsSync(at('elsewhere'))).toBe(false); // emptied parents go
    expect(existsSync(at('github/widgets'))).toBe(false);
    expect(await readFile(at('.reviewbot-layout'), 'utf8')).toBe('2\n');
  });

  it('runs once: after the marker, nothing is removed', async () => {
    await checkout('acme/widgets/pr-1');
    expect((await migrateWorkspaceLayout(base)).removed).toHaveLength(1);
    await checkout('acme/widgets/pr-1');
    await checkout('github/acme/widgets/pr-2'); // the current layout
    const second = await migrateWorkspaceLayout(base);
    expect(second).toEqual({ alreadyCurrent: true, removed: [], kept: [] });
    expect(existsSync(at('acme/widgets/pr-1/README.md'))).toBe(true);
    expect(existsSync(at('github/acme/widgets/pr-2/README.md'))).toBe(true);
  });

  it('never removes a workspace in use, nor one holding a workspace in use', async () => {
    await checkout('acme/app/pr-7'); // GitHub acme/app#7 of the old layout…
    await checkout('acme/app/pr-7/pr-3'); // …holding GitLab acme/app/pr-7!3, in use
    await checkout('acme/other/pr-1'); // in use
    await checkout('acme/idle/pr-2');
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const jobs = [
      withWorkspaceLock(at('acme/app/pr-7/pr-3'), () => gate),
      withWorkspaceLock(at('acme/other/pr-1'), () => gate),
    ];
    const report = await migrateWorkspaceLayout(base);
    release();
    await Promise.all(jobs);
    expect(report.removed).toEqual([at('acme/idle/pr-2')]);
    expect(report.kept).toEqual([
      { dir: at('acme/app/pr-7'), reason: 'in use by a job' },
      { dir: at('acme/other/pr-1'), reason: 'in use by a job' },
    ]);
    expect(existsSync(at('acme/app/pr-7/pr-3/README.md'))).toBe(true);
    expect(existsSync(at('acme/other/pr-1/README.md'))).toBe(true);
  });

  it('leaves a missing base directory alone', async () => {
    const missing = at('missing');
    expect(await migrateWorkspaceLayout(missing)).toEqual({ alreadyCurrent: false, removed: [], kept: [] });
    expect(existsSync(missing)).toBe(false);
  });

  it('waits for another process migrating the same base, then leaves its workspaces alone', async () => {
    // Another process (a pod on the shared volume) holds the migration lock: it has just made a
    // workspace of the current layout and is about to write the marker.
    const other = spawn('sleep', ['30'], { stdio: 'ignore' });
    try {
      await mkdir(at(LAYOUT_LOCK));
      const owner = { host: hostname(), pid: other.pid, token: 'other', since: new Date().toISOString() };
      await writeFile(at(`${LAYOUT_LOCK}/owner`), JSON.stringify(owner));
      await checkout('github/acme/widgets/pr-2');
      let settled = false;
      const migration = migrateWorkspaceLayout(base).finally(() => (settled = true));
      await new Promise((resolve) => setTimeout(resolve, 400));
      expect(settled).toBe(false); // waiting for the lock
      expect(existsSync(at('github/acme/widgets/pr-2/README.md'))).toBe(true);
      await writeFile(at('.reviewbot-layout'), '2\n');
      await rm(at(LAYOUT_LOCK), { recursive: true });
      expect(await migration).toEqual({ alreadyCurrent: true, removed: [], kept: [] });
      expect(existsSync(at('github/acme/widgets/pr-2/README.md'))).toBe(true);
    } finally {
      other.kill();
    }
  });
});
