import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../errors.js';
import {
  LAYOUT_MARKER,
  PR_LOCK_NAME,
  decodePathSegment,
  depsPath,
  encodePathSegment,
  repoFullNameOf,
  repositoryDir,
  storeObjectsDirOf,
  workspaceLockDir,
  workspacePath,
} from './workspace-path.js';

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
    ['bitbucket-server', 'PROJ/my-repo', 6, '/var/reviewbot/bitbucket-server/PROJ/my-repo/pr-6'],
    ['azure-devops', 'Fabrikam/widgets', 7, '/var/reviewbot/azure-devops/Fabrikam/widgets/pr-7'],
    // Azure DevOps names may hold spaces and other characters: escaped, one directory per segment.
    [
      'azure-devops',
      'Fabrikam Fiber/widgets',
      7,
      '/var/reviewbot/azure-devops/Fabrikam%20Fiber/widgets/pr-7',
    ],
    [
      'azure-devops',
      'Fabrikam Fiber/Fabrikam Fiber',
      1,
      '/var/reviewbot/azure-devops/Fabrikam%20Fiber/Fabrikam%20Fiber/pr-1',
    ],
    [
      'azure-devops',
      "R&D (2026)/O'Brien!",
      2,
      '/var/reviewbot/azure-devops/R%26D%20%282026%29/O%27Brien%21/pr-2',
    ],
    ['azure-devops', 'Café/Zürich', 3, '/var/reviewbot/azure-devops/Caf%C3%A9/Z%C3%BCrich/pr-3'],
    // Names that only look like layout directories are repositories like any other.
    ['gitlab', 'acme/.storefront', 1, '/var/reviewbot/gitlab/acme/.storefront/pr-1'],
    ['gitlab', 'acme/.deps-old', 1, '/var/reviewbot/gitlab/acme/.deps-old/pr-1'],
    ['gitlab', 'acme/app-pr-7', 1, '/var/reviewbot/gitlab/acme/app-pr-7/pr-1'],
    ['gitlab', 'acme/pr-7x', 1, '/var/reviewbot/gitlab/acme/pr-7x/pr-1'],
    // A directory name may be as long as the file system takes: 255 bytes.
    ['github', `acme/${'a'.repeat(255)}`, 1, `/var/reviewbot/github/acme/${'a'.repeat(255)}/pr-1`],
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
    ['acme/wid\0gets'],
    ['acme/wid\ngets'],
    ['acme/wid\x7fgets'],
    ['Fabrikam Fiber/..'],
    ['../Fabrikam Fiber'],
    ['acme/\ud800'], // not well-formed UTF-16: no UTF-8 to escape
    [`acme/${'é'.repeat(43)}`], // 258 bytes escaped: longer than a directory name may be
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
    ['Fabrikam Fiber/pr-7'],
    ['Fabrikam Fiber/.deps'],
  ])('refuses %j: a segment could be taken for a layout directory', (repo) => {
    expect(() => workspacePath(base, 'gitlab', repo, 1)).toThrow(/could be taken for a workspace directory/);
  });

  it.each([[''], ['.learnings'], ['GitHub'], ['a/b'], ['..']])('rejects the platform name %j', (platform) => {
    expect(() => workspacePath(base, platform as 'github', 'acme/widgets', 1)).toThrow(UsageError);
  });

  it.each([[0], [-1], [1.5], [Number.NaN], [Number.MAX_SAFE_INTEGER + 1]])('rejects the number %d', (pr) => {
    expect(() => workspacePath(base, 'github', 'acme/widgets', pr)).toThrow(UsageError);
  });

  it.each([
    [
      'an empty base directory',
      () => workspacePath('', 'github', 'acme/widgets', 1),
      'the workspace base directory is empty',
    ],
    [
      'a name of one segment',
      () => workspacePath(base, 'github', 'widgets', 1),
      'invalid repository name "widgets" (expected owner/repo or group/.../project)',
    ],
    [
      'a `..` segment',
      () => workspacePath(base, 'gitlab', 'acme/..', 1),
      'invalid repository name "acme/..": segment ".." is not allowed in a workspace path',
    ],
    [
      'a control character',
      () => workspacePath(base, 'gitlab', 'acme/a\nb', 1),
      'invalid repository name "acme/a\\nb": segment "a\\nb" is not allowed in a workspace path',
    ],
    [
      'a directory name of 256 bytes',
      () => workspacePath(base, 'github', `acme/${'a'.repeat(256)}`, 1),
      `repository "acme/${'a'.repeat(256)}" is not supported: its path segment "${'a'.repeat(256)}" makes a directory name longer than 255 bytes`,
    ],
    [
      'a layout name',
      () => workspacePath(base, 'gitlab', 'acme/app/pr-7', 1),
      'repository "acme/app/pr-7" is not supported: its path segment "pr-7" could be taken for a workspace directory',
    ],
    [
      'a platform name with a slash',
      () => workspacePath(base, 'a/b' as 'github', 'acme/widgets', 1),
      'invalid platform name "a/b" in a workspace path',
    ],
    [
      'pull request number 0',
      () => workspacePath(base, 'github', 'acme/widgets', 0),
      'invalid pull request number 0 (expected an integer >= 1)',
    ],
  ])('says what is wrong with %s', (_name, call, message) => {
    expect(call).toThrow(UsageError);
    expect(call).toThrow(message);
  });
});

describe('encodePathSegment and decodePathSegment', () => {
  it('leave every name of letters, digits, `_`, `.` and `-` as it is (existing workspaces keep their paths)', () => {
    for (const name of ['acme', 'widgets', '.github', 'my_repo.js', 'Acme-Corp', 'PROJ', 'a.b-c_d', '0']) {
      expect(encodePathSegment(name)).toBe(name);
      expect(decodePathSegment(name)).toBe(name);
    }
  });

  it('give distinct names distinct directories, and decode each back', () => {
    const names = [
      'a b',
      'a%20b',
      'a%2520b',
      'a+b',
      'a_b',
      'a%b',
      'a\\b',
      'A B',
      'é',
      '%C3%A9',
      'e\u0301',
      'a\tb',
    ];
    const dirs = names.map(encodePathSegment);
    expect(new Set(dirs).size).toBe(names.length);
    for (const [i, dir] of dirs.entries()) {
      expect(dir).toMatch(/^[A-Za-z0-9_.%-]+$/);
      expect(decodePathSegment(dir)).toBe(names[i]);
    }
  });

  it.each([['a b'], ['a%2'], ['a%zz'], ['a%c3%a9'], ['%41'], ['%C3'], ['a%2fb']])(
    'decodes %j to nothing: encodePathSegment never writes it',
    (dir) => {
      expect(decodePathSegment(dir)).toBeUndefined();
    },
  );

  it('repoFullNameOf reads a repository name back from its directories', () => {
    expect(repoFullNameOf(['Fabrikam%20Fiber', 'widgets'])).toBe('Fabrikam Fiber/widgets');
    expect(repoFullNameOf(['group', 'sub', 'project'])).toBe('group/sub/project');
    expect(repoFullNameOf(['Fabrikam Fiber', 'widgets'])).toBeUndefined();
  });

  it('locks and the object store of an escaped workspace stay beside it, inside its repository directory', () => {
    const dir = workspacePath(base, 'azure-devops', 'Fabrikam Fiber/widgets', 7);
    expect(workspaceLockDir(dir)).toBe('/var/reviewbot/azure-devops/Fabrikam%20Fiber/widgets/pr-7.lock');
    expect(storeObjectsDirOf(dir)).toBe(
      '/var/reviewbot/azure-devops/Fabrikam%20Fiber/widgets/.store/git/objects',
    );
    expect(depsPath(base, 'azure-devops', 'Fabrikam Fiber/widgets')).toBe(
      '/var/reviewbot/azure-devops/Fabrikam%20Fiber/widgets/.deps',
    );
  });
});

describe('workspace directory names', () => {
  it('finds the store of a pr-<N> workspace only', () => {
    expect(storeObjectsDirOf('/var/reviewbot/github/acme/widgets/pr-12')).toBe(
      '/var/reviewbot/github/acme/widgets/.store/git/objects',
    );
    for (const name of ['pr-7.lock', 'xpr-7', 'pr-07', 'pr-0', 'pr-', '.deps', 'widgets']) {
      expect(storeObjectsDirOf(`/var/reviewbot/github/acme/widgets/${name}`), name).toBeUndefined();
    }
  });

  it('names a workspace’s lock directory and its helpers as locks, and nothing else', () => {
    const lock = path.basename(workspaceLockDir(workspacePath(base, 'github', 'acme/widgets', 12)));
    expect(lock).toBe('pr-12.lock');
    for (const name of [lock, 'pr-12.lock.takeover', 'pr-7.lock.stale-1', 'PR-7.LOCK']) {
      expect(PR_LOCK_NAME.test(name), name).toBe(true);
    }
    for (const name of ['pr-12', 'pr-.lock', 'xpr-7.lock', 'app-pr-7.lock', 'pr-x.lock']) {
      expect(PR_LOCK_NAME.test(name), name).toBe(false);
    }
  });

  it('records the layout in a dot-name, which is never a platform directory', () => {
    expect(LAYOUT_MARKER.startsWith('.') && LAYOUT_MARKER.length > 1).toBe(true);
    expect(() => workspacePath(base, LAYOUT_MARKER as 'github', 'acme/widgets', 1)).toThrow(UsageError);
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
