import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../errors.js';
import { depsPath, workspacePath } from './workspace-path.js';

const base = '/var/reviewbot';

describe('workspacePath', () => {
  it.each([
    ['acme/widgets', 12, '/var/reviewbot/acme/widgets/pr-12'],
    ['group/sub/project', 3, '/var/reviewbot/group/sub/project/pr-3'],
    ['a/b/c/d/e', 1, '/var/reviewbot/a/b/c/d/e/pr-1'],
    ['acme/.github', 5, '/var/reviewbot/acme/.github/pr-5'],
    ['Acme-Corp/my_repo.js', 9, '/var/reviewbot/Acme-Corp/my_repo.js/pr-9'],
  ])('%s #%i → %s', (repo, pr, expected) => {
    expect(workspacePath(base, repo, pr)).toBe(expected);
  });

  it('resolves a relative base directory to an absolute path', () => {
    expect(workspacePath('ws', 'acme/widgets', 1)).toBe(path.resolve('ws', 'acme/widgets/pr-1'));
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
    expect(() => workspacePath(base, repo, 1)).toThrow(UsageError);
  });

  it.each([[0], [-1], [1.5], [Number.NaN], [Number.MAX_SAFE_INTEGER + 1]])('rejects the number %d', (pr) => {
    expect(() => workspacePath(base, 'acme/widgets', pr)).toThrow(UsageError);
  });
});

describe('depsPath', () => {
  it.each([
    ['acme/widgets', '/var/reviewbot/acme/widgets/.deps'],
    ['group/sub/project', '/var/reviewbot/group/sub/project/.deps'],
  ])('%s → %s', (repo, expected) => {
    expect(depsPath(base, repo)).toBe(expected);
  });

  it('rejects `..`', () => {
    expect(() => depsPath(base, 'acme/..')).toThrow(UsageError);
  });
});
