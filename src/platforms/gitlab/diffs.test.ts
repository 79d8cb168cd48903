import { describe, expect, it } from 'vitest';
import { toFileDiffs } from '../../diff/diff.js';
import type { MergeRequestDiff } from './schemas.js';
import { toPullRequestFile } from './diffs.js';

function entry(overrides: Partial<MergeRequestDiff>): MergeRequestDiff {
  return {
    old_path: 'a.txt',
    new_path: 'a.txt',
    new_file: false,
    renamed_file: false,
    deleted_file: false,
    diff: '@@ -1,2 +1,2 @@\n-x\n+y\n z\n',
    too_large: false,
    collapsed: false,
    ...overrides,
  };
}

describe('toPullRequestFile', () => {
  it.each([
    ['modified', {}, { path: 'a.txt', status: 'modified', additions: 1, deletions: 1 }],
    [
      'added',
      { new_file: true, diff: '@@ -0,0 +1,2 @@\n+a\n+b\n' },
      { status: 'added', additions: 2, deletions: 0 },
    ],
    [
      'deleted',
      { deleted_file: true, diff: '@@ -1 +0,0 @@\n-a\n' },
      { status: 'removed', additions: 0, deletions: 1 },
    ],
    [
      'renamed with an edit',
      { old_path: 'old.txt', new_path: 'new.txt', renamed_file: true },
      { path: 'new.txt', previousPath: 'old.txt', status: 'renamed' },
    ],
  ] as const)('maps a %s file', (_name, overrides, expected) => {
    expect(toPullRequestFile(entry(overrides))).toMatchObject(expected);
  });

  it('keeps the hunks as the patch without the final newline', () => {
    expect(toPullRequestFile(entry({})).patch).toBe('@@ -1,2 +1,2 @@\n-x\n+y\n z');
  });

  it('gives a pure rename no patch and no binary flag downstream', () => {
    const file = toPullRequestFile(entry({ old_path: 'o', new_path: 'n', renamed_file: true, diff: '' }));
    expect(file).toEqual({ path: 'n', previousPath: 'o', status: 'renamed', additions: 0, deletions: 0 });
    expect(toFileDiffs([file])[0]).toMatchObject({ binary: false, hunks: [] });
  });

  it('treats "Binary files ... differ" as a binary file', () => {
    const file = toPullRequestFile(entry({ diff: 'Binary files a/logo.png and b/logo.png differ\n' }));
    expect(file.patch).toBeUndefined();
    expect(toFileDiffs([file])[0]).toMatchObject({ binary: true });
  });

  it.each([['too_large'], ['collapsed']] as const)('treats a %s diff as too large to show', (flag) => {
    const file = toPullRequestFile(entry({ diff: '', [flag]: true }));
    expect(file.patch).toBeUndefined();
    expect(toFileDiffs([file])[0]).toMatchObject({ binary: false, tooLarge: true });
  });
});
