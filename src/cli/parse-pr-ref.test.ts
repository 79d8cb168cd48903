import { describe, expect, it } from 'vitest';
import { UsageError } from '../errors.js';
import { parsePrRef } from './parse-pr-ref.js';

describe('parsePrRef', () => {
  it.each([
    ['acme/widgets#12', undefined, { repoFullName: 'acme/widgets', prNumber: 12 }],
    ['  my-org/my.repo_1#1 ', undefined, { repoFullName: 'my-org/my.repo_1', prNumber: 1 }],
    [
      'https://github.com/acme/widgets/pull/7',
      undefined,
      { repoFullName: 'acme/widgets', prNumber: 7, platform: 'github', host: 'github.com' },
    ],
    [
      'https://github.com/acme/widgets/pull/7/files',
      'github',
      { repoFullName: 'acme/widgets', prNumber: 7, platform: 'github', host: 'github.com' },
    ],
    ['group/sub/project#3', 'gitlab', { repoFullName: 'group/sub/project', prNumber: 3 }],
    [
      'https://gitlab.example.com/g/sub/p/-/merge_requests/42',
      undefined,
      { repoFullName: 'g/sub/p', prNumber: 42, platform: 'gitlab', host: 'gitlab.example.com' },
    ],
    ['my_org.x/repo.v2#5', 'gitea', { repoFullName: 'my_org.x/repo.v2', prNumber: 5 }],
    [
      'https://gitea.example.com/acme/widgets/pulls/9',
      undefined,
      { repoFullName: 'acme/widgets', prNumber: 9, platform: 'gitea', host: 'gitea.example.com' },
    ],
    [
      'https://codeberg.org/acme/widgets/pulls/9/files',
      'gitea',
      { repoFullName: 'acme/widgets', prNumber: 9, platform: 'gitea', host: 'codeberg.org' },
    ],
    ['my-ws/repo.name_2#4', 'bitbucket', { repoFullName: 'my-ws/repo.name_2', prNumber: 4 }],
    [
      'https://bitbucket.org/acme/widgets/pull-requests/12/diff',
      undefined,
      { repoFullName: 'acme/widgets', prNumber: 12, platform: 'bitbucket', host: 'bitbucket.org' },
    ],
    ['ACME/widgets#3', 'bitbucket-server', { repoFullName: 'ACME/widgets', prNumber: 3 }],
    [
      'https://git.example.com/bitbucket/projects/ACME/repos/widgets/pull-requests/5/overview',
      undefined,
      { repoFullName: 'ACME/widgets', prNumber: 5, platform: 'bitbucket-server', host: 'git.example.com' },
    ],
    ['Fabrikam Fiber/widgets#3', 'azure-devops', { repoFullName: 'Fabrikam Fiber/widgets', prNumber: 3 }],
    [
      'https://dev.azure.com/acme/Fabrikam/_git/widgets/pullrequest/12',
      undefined,
      { repoFullName: 'Fabrikam/widgets', prNumber: 12, platform: 'azure-devops', host: 'dev.azure.com' },
    ],
    [
      'https://tfs.example.com/tfs/DefaultCollection/Fabrikam%20Fiber/_git/widgets/pullrequest/4?_a=files',
      'azure-devops',
      {
        repoFullName: 'Fabrikam Fiber/widgets',
        prNumber: 4,
        platform: 'azure-devops',
        host: 'tfs.example.com',
      },
    ],
  ] as const)('parses %s', (ref, platform, expected) => {
    expect(parsePrRef(ref, platform)).toEqual(expected);
  });

  it.each([
    ['acme/widgets'],
    ['acme/widgets#0'],
    ['acme/widgets#-1'],
    ['acme/widgets#01'],
    ['acme/widgets#1.5'],
    ['acme#3'],
    ['/widgets#3'],
    ['acme/../x#3'],
    ['acme/widgets#'],
    ['a/b/c#3'],
    ['https://github.com/acme/widgets/issues/7'],
    ['https://github.com/acme/widgets/pull/x'],
    ['ftp://github.com/acme/widgets/pull/7'],
    ['https://gitea.example.com/acme/widgets/pulls/0'],
    ['https://gitea.example.com/acme/widgets.git/pulls/3'],
    ['https://gitea.example.com/acme/pulls/3'],
    [''],
  ])('rejects %j with a usage error naming the form', (ref) => {
    expect(() => parsePrRef(ref)).toThrow(UsageError);
    expect(() => parsePrRef(ref)).toThrow(/owner\/repo#N/);
  });

  it.each([
    ['acme/..#7', undefined],
    ['acme/.#7', undefined],
    ['../../etc#7', undefined],
    ['a/.git#7', undefined],
    ['acme/widgets.git#7', undefined],
    ['a/b;rm -rf /#7', undefined],
    [`${'x'.repeat(5000)}/r#7`, undefined],
    ['acme/wid gets#7', undefined],
    ['acme//widgets#7', 'gitlab'],
    ['g/..#7', 'gitlab'],
    ['g/p.atom#7', 'gitlab'],
    ['g./p#7', 'gitlab'],
    ['-acme/widgets#7', 'github'],
    ['acme_/widgets#7', 'github'],
    [`acme/${'r'.repeat(101)}#7`, 'github'],
    ['acme/widgets#2147483648', undefined],
    ['acme/widgets#9999999999', undefined],
    ['https://github.com/acme/../pull/7', undefined],
    ['https://github.com/acme/%2e%2e/pull/7', undefined],
    ['https://github.com/acme/a.git/pull/7', undefined],
    ['https://github.com/acme/widgets/pull/2147483648', undefined],
    ['https://gitlab.example.com/g/p.git/-/merge_requests/3', undefined],
    ['https://gitlab.example.com/g/%2e%2e/p/-/merge_requests/3', undefined],
    ['acme/widgets.wiki#7', 'gitea'],
    ['acme__x/widgets#7', 'gitea'],
    ['acme-/widgets#7', 'gitea'],
    ['https://gitea.example.com/acme/%2e%2e/pulls/3', undefined],
    ['https://gitea.example.com/acme/widgets/pulls/2147483648', undefined],
  ] as const)('refuses the hostile name %j (platform %s) with a usage error', (ref, platform) => {
    expect(() => parsePrRef(ref, platform)).toThrow(UsageError);
  });

  it.each([
    ['acme/widgets#2147483647', undefined, 'acme/widgets'],
    ['octo_acme/.github#1', 'github', 'octo_acme/.github'],
    ['acme/my.repo-1_x#1', 'github', 'acme/my.repo-1_x'],
    ['g.dots_/sub-x/p.#1', 'gitlab', 'g.dots_/sub-x/p.'],
    ['_g/p#1', undefined, '_g/p'],
  ] as const)('still accepts the valid name %j', (ref, platform, repo) => {
    expect(parsePrRef(ref, platform).repoFullName).toBe(repo);
  });

  it('rejects a nested path for GitHub and a URL of the other platform', () => {
    expect(() => parsePrRef('a/b/c#3', 'github')).toThrow(/GitHub repositories are owner\/repo/);
    expect(() => parsePrRef('https://github.com/a/b/pull/3', 'gitlab')).toThrow(UsageError);
    expect(() => parsePrRef('a/b/c#3', 'gitea')).toThrow(/Gitea repositories are owner\/repo/);
    expect(() => parsePrRef('https://gitea.example.com/a/b/pulls/3', 'github')).toThrow(
      /a gitea URL but --platform github/,
    );
  });
});
