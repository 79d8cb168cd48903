import { mkdirSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { runGit } from '../../test/support/git-fixtures.js';
import { UsageError } from '../errors.js';
import { collectLocalChanges, DEFAULT_BASES } from './local-changes.js';

const README = readFileSync(
  path.join(path.dirname(fileURLToPath(import.meta.url)), '../../README.md'),
  'utf8',
);

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

  it('user diff config (submodule log, noprefix, blank-line suppression, context, colour, external diff) leaves the result as without it', async () => {
    const dir = repo('main', { 'a.txt': 'one\n\nthree\n' });
    const sub = path.join(dir, 'sub');
    mkdirSync(sub);
    runGit(sub, ['init', '--quiet', '-b', 'main']);
    writeFileSync(path.join(sub, 's.txt'), 's\n');
    runGit(sub, ['add', 's.txt']);
    runGit(sub, ['commit', '--quiet', '-m', 'sub 1']);
    const before = runGit(sub, ['rev-parse', 'HEAD']).trim();
    runGit(dir, ['add', 'sub']);
    runGit(dir, ['commit', '--quiet', '-m', 'add submodule']);
    runGit(dir, ['checkout', '--quiet', '-b', 'topic']);
    writeFileSync(path.join(sub, 's.txt'), 's2\n');
    runGit(sub, ['commit', '--quiet', '-am', 'sub 2']);
    const after = runGit(sub, ['rev-parse', 'HEAD']).trim();
    writeFileSync(path.join(dir, 'a.txt'), 'one\n\nTHREE\n');
    const expected = [
      {
        path: 'a.txt',
        status: 'modified',
        additions: 1,
        deletions: 1,
        patch: '@@ -1,3 +1,3 @@\n one\n \n-three\n+THREE',
      },
      {
        path: 'sub',
        status: 'modified',
        additions: 1,
        deletions: 1,
        patch: `@@ -1 +1 @@\n-Subproject commit ${before}\n+Subproject commit ${after}`,
      },
    ];
    expect((await collectLocalChanges({ cwd: dir })).files).toEqual(expected);
    for (const [key, value] of [
      ['diff.submodule', 'log'],
      ['diff.noprefix', 'true'],
      ['diff.mnemonicPrefix', 'true'],
      ['diff.suppressBlankEmpty', 'true'],
      ['diff.context', '0'],
      ['color.diff', 'always'],
      ['color.ui', 'always'],
      ['diff.external', 'false'],
    ] as const) {
      runGit(dir, ['config', key, value]);
    }
    expect((await collectLocalChanges({ cwd: dir })).files).toEqual(expected);
    runGit(dir, ['config', 'diff.submodule', 'diff']);
    expect((await collectLocalChanges({ cwd: dir })).files).toEqual(expected);
  });

  it('without origin/HEAD, main or master, falls back to origin/main', async () => {
    const dir = repo('trunk', { 'a.txt': 'a\n' });
    runGit(dir, ['update-ref', 'refs/remotes/origin/main', 'HEAD']);
    runGit(dir, ['checkout', '--quiet', '-b', 'topic']);
    writeFileSync(path.join(dir, 'a.txt'), 'b\n');
    expect(await collectLocalChanges({ cwd: dir })).toMatchObject({ baseRef: 'origin/main' });
  });

  it("the README's --base default lists exactly the bases tried, in order", () => {
    const row = README.split('\n').find((line) => line.startsWith('| `--base REF`'))!;
    const named = [...row.split('default:')[1]!.matchAll(/`([^`]+)`/g)].map((m) => m[1]);
    expect(named).toEqual(['origin/HEAD', ...DEFAULT_BASES]);
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
