import { describe, expect, it } from 'vitest';
import type { PullRequestFile } from './types.js';
import { parsePatch, toFileDiffs } from './diff.js';

describe('toFileDiffs without a usable patch', () => {
  it.each<{ name: string; file: PullRequestFile; expected: object }>([
    {
      name: 'patch omitted by the platform although lines changed: too large, not binary',
      file: { path: 'dump.json', status: 'modified', additions: 90_000, deletions: 1 },
      expected: { binary: false, tooLarge: true, hunks: [] },
    },
    {
      name: 'empty patch string: no hunks, not binary',
      file: { path: 'empty.txt', status: 'added', additions: 0, deletions: 0, patch: '' },
      expected: { binary: false, hunks: [] },
    },
  ])('$name', ({ file, expected }) => {
    expect(toFileDiffs([file])[0]).toMatchObject(expected);
  });

  it('drops a previousPath equal to the path', () => {
    const file: PullRequestFile = {
      path: 'a.ts',
      previousPath: 'a.ts',
      status: 'modified',
      additions: 1,
      deletions: 0,
    };
    file.patch = '@@ -0,0 +1 @@\n+x';
    const [diff] = toFileDiffs([file]);
    expect(diff).toEqual({
      path: 'a.ts',
      status: 'modified',
      binary: false,
      hunks: [
        {
          oldStart: 0,
          oldLines: 0,
          newStart: 1,
          newLines: 1,
          header: '@@ -0,0 +1 @@',
          lines: [{ kind: 'add', newLine: 1, text: 'x' }],
        },
      ],
    });
  });
});

describe('parsePatch tolerance', () => {
  it.each<{
    name: string;
    patch: string;
    expected: Array<[string, number | undefined, number | undefined, string]>;
  }>([
    { name: 'empty patch', patch: '', expected: [] },
    { name: 'not a patch at all', patch: 'Binary files a/x and b/x differ', expected: [] },
    {
      name: 'missing counts mean one line (@@ -1 +1 @@)',
      patch: '@@ -1 +1 @@\n-old\n+new',
      expected: [
        ['del', 1, undefined, 'old'],
        ['add', undefined, 1, 'new'],
      ],
    },
    {
      name: 'section text after @@ and CRLF line endings',
      patch: '@@ -10,2 +10,2 @@ function main() {\r\n ctx\r\n-a\r\n+b\r\n',
      expected: [
        ['context', 10, 10, 'ctx'],
        ['del', 11, undefined, 'a'],
        ['add', undefined, 11, 'b'],
      ],
    },
    {
      name: '"\\ No newline at end of file" is not a line',
      patch: '@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n\\ No newline at end of file',
      expected: [
        ['context', 1, 1, 'a'],
        ['del', 2, undefined, 'b'],
        ['add', undefined, 2, 'b'],
      ],
    },
    {
      name: 'context line whose leading space an editor stripped',
      patch: '@@ -1,3 +1,3 @@\n a\n\n-c\n+C',
      expected: [
        ['context', 1, 1, 'a'],
        ['context', 2, 2, ''],
        ['del', 3, undefined, 'c'],
        ['add', undefined, 3, 'C'],
      ],
    },
    {
      name: 'file headers before the first hunk are skipped',
      patch: 'diff --git a/x b/x\nindex 1..2 100644\n--- a/x\n+++ b/x\n@@ -3,1 +3,1 @@\n-x\n+y\n',
      expected: [
        ['del', 3, undefined, 'x'],
        ['add', undefined, 3, 'y'],
      ],
    },
    {
      name: 'lines beyond the header counts are ignored until the next hunk',
      patch: '@@ -1,1 +1,1 @@\n-a\n+b\n+stray\n@@ -9 +9,0 @@\n-z',
      expected: [
        ['del', 1, undefined, 'a'],
        ['add', undefined, 1, 'b'],
        ['del', 9, undefined, 'z'],
      ],
    },
  ])('$name', ({ patch, expected }) => {
    const got = parsePatch(patch)
      .flatMap((h) => h.lines)
      .map((l) => [l.kind, l.oldLine, l.newLine, l.text]);
    expect(got).toEqual(expected);
  });

  it('keeps the full header line and the counts of each hunk', () => {
    const [hunk] = parsePatch('@@ -7,0 +8,2 @@ class A\n+x\n+y');
    expect(hunk).toMatchObject({
      oldStart: 7,
      oldLines: 0,
      newStart: 8,
      newLines: 2,
      header: '@@ -7,0 +8,2 @@ class A',
    });
    expect(hunk!.lines.map((l) => l.newLine)).toEqual([8, 9]);
  });
});
