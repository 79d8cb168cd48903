import { mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runGit } from '../../test/support/git-fixtures.js';
import { UsageError } from '../errors.js';
import { collectLocalChanges } from './local-changes.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A repository on `branch` with one commit of `files`. */
function repo(branch: string, files: Record<string, string>): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'reviewbot-local-unit-'));
  dirs.push(dir);
  runGit(dir, ['init', '--quiet', '-b', branch]);
  for (const [name, content] of Object.entries(files)) writeFileSync(path.join(dir, name), content);
  runGit(dir, ['add', '--all']);
  runGit(dir, ['commit', '--quiet', '-m', 'initial']);
  return dir;
}

describe('collectLocalChanges', () => {
  it('falls back to master, keeps odd names, lists binary untracked files without a patch', async () => {
    const dir = repo('master', { 'a b ü.txt': 'one\ntwo\n', 'gone.txt': 'x\n' });
    runGit(dir, ['checkout', '--quiet', '-b', 'topic']);
    writeFileSync(path.join(dir, 'a b ü.txt'), 'one\nTWO\n');
    unlinkSync(path.join(dir, 'gone.txt'));
    writeFileSync(path.join(dir, 'blob.bin'), Buffer.from([0, 1, 2, 3]));
    const changes = await collectLocalChanges({ cwd: dir });
    expect(changes).toMatchObject({ baseRef: 'master', branch: 'topic' });
    expect(changes.files).toEqual([
      {
        path: 'a b ü.txt',
        status: 'modified',
        additions: 1,
        deletions: 1,
        patch: '@@ -1,2 +1,2 @@\n one\n-two\n+TWO',
      },
      { path: 'gone.txt', status: 'removed', additions: 0, deletions: 1, patch: '@@ -1 +0,0 @@\n-x' },
      { path: 'blob.bin', status: 'added', additions: 0, deletions: 0 },
    ]);
  });

  it('finds nothing to review on a clean branch', async () => {
    const dir = repo('main', { 'a.txt': 'a\n' });
    const changes = await collectLocalChanges({ cwd: dir });
    expect(changes.files).toEqual([]);
    expect(changes.mergeBase).toBe(changes.headSha);
  });

  it.each([
    ['no base branch at all', 'trunk', undefined, /no base branch .*pass --base REF/],
    ['a base that looks like an option', 'main', '--output=/tmp/x', /invalid --base "--output=\/tmp\/x"/],
  ])('%s: UsageError', async (_name, branch, base, message) => {
    const dir = repo(branch, { 'a.txt': 'a\n' });
    const error = await collectLocalChanges({ cwd: dir, ...(base ? { base } : {}) }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toMatch(message);
  });

  it('a repository without a commit: UsageError', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'reviewbot-local-unit-'));
    dirs.push(dir);
    runGit(dir, ['init', '--quiet']);
    await expect(collectLocalChanges({ cwd: dir })).rejects.toThrow(/has none yet/);
  });
});
