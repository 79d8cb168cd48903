import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../errors.js';
import { depsPath, repositoryDir, workspacePath } from './workspace-path.js';

const base = '/var/reviewbot';

describe('workspacePath', () => {
  it.each([
    ['github', 'acme/widgets', 12, '/var/reviewbot/github/acme/widgets/pr-12'],
    ['gitlab', 'group/sub/project', 3, '/var/reviewbot/gitlab/group/sub/project/pr-3'],
    ['gitlab', 'a/b/c/d/e', 1, '/var/reviewbot/gitlab/a/b/c/d/e/pr-1'],
    ['github', 'acme/.github', 5, '/var/reviewbot/github/acme/.github/pr-5'],
    ['github', 'Acme-Corp/my_repo.js', 9, '/var/reviewbot/github/Acme-Corp/my_repo.js/pr-9'],
    ['github', 'github/gitlab', 2, '/var/reviewbot/github/github/gitlab/pr-2'],
    ['github', 'acme/pr-tools', 4, '/var/reviewbot/github/acme/pr-tools/pr-4'],
    ['gitlab', 'acme/deps', 4, '/var/reviewbot/gitlab/acme/deps/pr-4'],
  ] as const)('%s %s #%i → %s', (platform, repo, pr, expected) => {
    expect(workspacePath(base, platform, repo, pr)).toBe(expected);
  });

  it('gives equal names on two platforms different directories, neither inside the other', () => {
    const github = workspacePath(base, 'github', 'acme/app', 7);
    const gitlab = workspacePath(base, 'gitlab', 'acme/app', 7);
    expect(github).not.toBe(gitlab);
    expect(path.relative(github, gitlab).startsWith('..')).toBe(true);
    expect(path.relative(gitlab, github).startsWith('..')).toBe(true);
  });

  it('resolves a relative base directory to an absolute path', () => {
    expect(workspacePath('ws', 'github', 'acme/widgets', 1)).toBe(
      path.resolve('ws', 'github/acme/widgets/pr-1'),
    );
  });

  it.each([
    ['../widgets'],
    ['acme/..'],
    ['acme/../../etc'],
    ['acme/./widgets'],
    ['/acme/widgets'],
    ['acme//widgets'],
    ['acme/widgets/'],
    ['widgets'],
    [''],
    ['acme\\..\\widgets'],
    ['acme/wid gets'],
    ['acme/wid\0gets'],
  ])('rejects the repository name %j', (repo) => {
    expect(() => workspacePath(base, 'gitlab', repo, 1)).toThrow(UsageError);
  });

  it.each([
    ['acme/app/pr-7'],
    ['acme/app/pr-7.lock'], // a workspace's cross-process lock directory
    ['acme/app/pr-7.lock.takeover'],
    ['acme/pr-7/app'],
    ['pr-1/app'],
    ['acme/PR-7'],
    ['acme/pr-07'],
    ['acme/pr-0'],
    ['acme/.deps'],
    ['acme/.DEPS/app'],
    ['acme/app/.store'],
    ['acme/.Store/app'],
  ])('refuses %j: a segment could be taken for a layout directory', (repo) => {
    expect(() => workspacePath(base, 'gitlab', repo, 1)).toThrow(/could be taken for a workspace directory/);
  });

  it.each([[''], ['.learnings'], ['GitHub'], ['a/b'], ['..']])('rejects the platform name %j', (platform) => {
    expect(() => workspacePath(base, platform as 'github', 'acme/widgets', 1)).toThrow(UsageError);
  });

  it.each([[0], [-1], [1.5], [Number.NaN], [Number.MAX_SAFE_INTEGER + 1]])('rejects the number %d', (pr) => {
    expect(() => workspacePath(base, 'github', 'acme/widgets', pr)).toThrow(UsageError);
  });
});

describe('depsPath and repositoryDir', () => {
  it.each([
    ['github', 'acme/widgets', '/var/reviewbot/github/acme/widgets'],
    ['gitlab', 'group/sub/project', '/var/reviewbot/gitlab/group/sub/project'],
  ] as const)('%s %s → %s', (platform, repo, expected) => {
    expect(repositoryDir(base, platform, repo)).toBe(expected);
    expect(depsPath(base, platform, repo)).toBe(`${expected}/.deps`);
  });

  it('rejects `..` and layout names', () => {
    expect(() => depsPath(base, 'github', 'acme/..')).toThrow(UsageError);
    expect(() => repositoryDir(base, 'gitlab', 'acme/app/pr-7')).toThrow(UsageError);
  });
});
