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
    [''],
  ])('rejects %j with a usage error naming the form', (ref) => {
    expect(() => parsePrRef(ref)).toThrow(UsageError);
    expect(() => parsePrRef(ref)).toThrow(/owner\/repo#N/);
  });

  it('rejects a nested path for GitHub and a URL of the other platform', () => {
    expect(() => parsePrRef('a/b/c#3', 'github')).toThrow(/GitHub repositories are owner\/repo/);
    expect(() => parsePrRef('https://github.com/a/b/pull/3', 'gitlab')).toThrow(UsageError);
  });
});
