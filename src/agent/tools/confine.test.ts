import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkToolPath, isInsideRoot, resolveToolPath } from './confine.js';
import { ToolError } from './tool-error.js';

describe('checkToolPath', () => {
  it.each([
    ['src/a.ts', 'src/a.ts'],
    ['./src/a.ts', 'src/a.ts'],
    ['src//lib/../a.ts', 'src/a.ts'],
    ['', '.'],
    ['.', '.'],
    ['src/', 'src'],
    ['a/../b', 'b'],
    ['.gitignore', '.gitignore'],
    ['docs/.github/x.yml', 'docs/.github/x.yml'],
    ['my.git/file', 'my.git/file'],
    ['..foo/bar', '..foo/bar'],
  ])('accepts %j as %j', (input, relative) => {
    expect(checkToolPath(input)).toEqual({ ok: true, relative });
  });

  it.each([
    ['../x', /leaves the workspace/],
    ['..', /leaves the workspace/],
    ['src/../../x', /leaves the workspace/],
    ['..\\x', /leaves the workspace/],
    ['/etc/passwd', /absolute paths are not allowed/],
    ['C:/Windows/win.ini', /absolute paths are not allowed/],
    ['.git/config', /\.git is not allowed/],
    ['.git', /\.git is not allowed/],
    ['sub/.git/hooks/pre-commit', /\.git is not allowed/],
    ['.GIT/config', /\.git is not allowed/],
    ['x/../.git/config', /\.git is not allowed/],
    ['a\0b', /NUL byte/],
  ])('refuses %j', (input, reason) => {
    const check = checkToolPath(input);
    expect(check.ok).toBe(false);
    if (!check.ok) expect(check.reason).toMatch(reason);
  });
});

describe('isInsideRoot', () => {
  it.each([
    ['/w/repo', '/w/repo', true],
    ['/w/repo', '/w/repo/src/a.ts', true],
    ['/w/repo', '/w/repo-other/a.ts', false],
    ['/w/repo', '/w', false],
    ['/w/repo', '/etc/passwd', false],
    ['/w/repo', '/w/repo/..foo', true],
  ])('root %s, candidate %s → %s', (root, candidate, inside) => {
    expect(isInsideRoot(root, candidate)).toBe(inside);
  });
});

describe('resolveToolPath against a real workspace', () => {
  let base: string;
  let root: string;

  beforeAll(() => {
    base = realpathSync(mkdtempSync(path.join(tmpdir(), 'confine-test-')));
    root = path.join(base, 'ws');
    mkdirSync(path.join(root, 'src'), { recursive: true });
    execFileSync('git', ['init', '-q', root]);
    writeFileSync(path.join(root, 'src', 'a.ts'), 'export const a = 1;\n');
    writeFileSync(path.join(base, 'outside.txt'), 'outside\n');
    symlinkSync('/etc', path.join(root, 'etc-link'));
    symlinkSync(path.join(base, 'outside.txt'), path.join(root, 'outside-link.txt'));
    symlinkSync('src/a.ts', path.join(root, 'inside-link.ts'));
    symlinkSync('src', path.join(root, 'src-link'));
    symlinkSync('.git', path.join(root, 'git-link'));
    symlinkSync(path.join(base, 'missing-target'), path.join(root, 'dangling'));
  });

  afterAll(() => rmSync(base, { recursive: true, force: true }));

  it.each([
    ['src/a.ts', 'src/a.ts'],
    ['inside-link.ts', 'inside-link.ts'],
    ['src-link/a.ts', 'src-link/a.ts'],
    ['new/dir/file.txt', 'new/dir/file.txt'],
    ['.', '.'],
  ])('allows %j', async (input, relative) => {
    const resolved = await resolveToolPath(root, input);
    expect(resolved).toEqual({ absolute: path.join(root, relative), relative });
  });

  it.each([
    ['../outside.txt', /leaves the workspace/],
    ['/etc/passwd', /absolute paths/],
    ['.git/config', /\.git is not allowed/],
    ['etc-link/passwd', /outside the workspace through a symlink/],
    ['etc-link', /outside the workspace through a symlink/],
    ['etc-link/not-there/x', /outside the workspace through a symlink/],
    ['outside-link.txt', /outside the workspace through a symlink/],
    ['git-link/config', /\.git is not allowed/],
    ['dangling', /dangling symlink/],
  ])('refuses %j with a ToolError', async (input, reason) => {
    const failure = resolveToolPath(root, input);
    await expect(failure).rejects.toBeInstanceOf(ToolError);
    await expect(failure).rejects.toThrow(reason);
  });
});
