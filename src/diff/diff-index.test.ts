import { describe, expect, it } from 'vitest';
import type { DiffSide, PullRequestFile } from './types.js';
import { toFileDiffs } from './diff.js';
import { DiffIndex } from './diff-index.js';

// Two hunks. RIGHT: 10-14 and 51-52; LEFT: 10-13 and 50-52.
const MODIFIED = [
  '@@ -10,4 +10,5 @@ function a()',
  ' ctx old10 new10',
  '-del old11',
  '+add new11',
  '+add new12',
  ' ctx old12 new13',
  ' ctx old13 new14',
  '@@ -50,3 +51,2 @@',
  ' ctx old50 new51',
  '-del old51',
  ' ctx old52 new52',
].join('\n');

const files: PullRequestFile[] = [
  { path: 'src/app.ts', status: 'modified', additions: 2, deletions: 2, patch: MODIFIED },
  { path: 'src/new.ts', status: 'added', additions: 3, deletions: 0, patch: '@@ -0,0 +1,3 @@\n+a\n+b\n+c' },
  { path: 'src/gone.ts', status: 'removed', additions: 0, deletions: 2, patch: '@@ -1,2 +0,0 @@\n-a\n-b' },
  { path: 'logo.png', status: 'added', additions: 0, deletions: 0 },
  { path: 'src/moved.ts', previousPath: 'src/was.ts', status: 'renamed', additions: 0, deletions: 0 },
];
const index = DiffIndex.fromFiles(toFileDiffs(files));

describe('DiffIndex.isRangeOnDiff', () => {
  it.each<[string, string, DiffSide, number, number, boolean]>([
    ['context line, RIGHT', 'src/app.ts', 'RIGHT', 10, 10, true],
    ['added lines, RIGHT', 'src/app.ts', 'RIGHT', 11, 12, true],
    ['whole first hunk, RIGHT', 'src/app.ts', 'RIGHT', 10, 14, true],
    ['last line of second hunk, RIGHT', 'src/app.ts', 'RIGHT', 52, 52, true],
    ['line before the first hunk', 'src/app.ts', 'RIGHT', 9, 9, false],
    ['line between hunks', 'src/app.ts', 'RIGHT', 30, 30, false],
    ['line after the last hunk', 'src/app.ts', 'RIGHT', 53, 53, false],
    ['range partly off the diff', 'src/app.ts', 'RIGHT', 13, 15, false],
    ['range crossing hunks (both ends on the diff)', 'src/app.ts', 'RIGHT', 14, 51, false],
    ['removed line, LEFT', 'src/app.ts', 'LEFT', 11, 11, true],
    ['whole first hunk, LEFT', 'src/app.ts', 'LEFT', 10, 13, true],
    ['RIGHT-only number on LEFT (new14 has no old14)', 'src/app.ts', 'LEFT', 14, 14, false],
    ['second hunk, LEFT', 'src/app.ts', 'LEFT', 50, 52, true],
    ['range crossing hunks, LEFT', 'src/app.ts', 'LEFT', 13, 50, false],
    ['new file, RIGHT', 'src/new.ts', 'RIGHT', 1, 3, true],
    ['new file, LEFT has no lines', 'src/new.ts', 'LEFT', 1, 1, false],
    ['deleted file, LEFT', 'src/gone.ts', 'LEFT', 1, 2, true],
    ['deleted file, RIGHT has no lines', 'src/gone.ts', 'RIGHT', 1, 1, false],
    ['binary file', 'logo.png', 'RIGHT', 1, 1, false],
    ['renamed file without content change', 'src/moved.ts', 'RIGHT', 1, 1, false],
    ['old path of a renamed file', 'src/was.ts', 'LEFT', 1, 1, false],
    ['unknown path', 'src/other.ts', 'RIGHT', 10, 10, false],
    ['start after end', 'src/app.ts', 'RIGHT', 12, 11, false],
    ['line 0', 'src/app.ts', 'RIGHT', 0, 10, false],
    ['fractional line', 'src/app.ts', 'RIGHT', 10.5, 10.5, false],
    ['NaN', 'src/app.ts', 'RIGHT', Number.NaN, Number.NaN, false],
  ])('%s: %s %s %i-%i → %s', (_name, path, side, start, end, expected) => {
    expect(index.isRangeOnDiff(path, side, start, end)).toBe(expected);
  });

  it('knows every file of the diff by its head path, binary and renamed ones included', () => {
    expect(
      ['src/app.ts', 'src/new.ts', 'src/gone.ts', 'logo.png', 'src/moved.ts'].map((p) => index.hasFile(p)),
    ).toEqual([true, true, true, true, true]);
    expect(index.hasFile('src/was.ts')).toBe(false);
    expect(index.paths()).toEqual(['src/app.ts', 'src/new.ts', 'src/gone.ts', 'logo.png', 'src/moved.ts']);
  });

  it('agrees with a line-by-line scan of the hunks on a file with many hunks', () => {
    const hunks: string[] = [];
    const right = new Set<number>();
    const left = new Set<number>();
    for (let h = 0; h < 500; h++) {
      const oldStart = 1 + h * 20;
      const newStart = 1 + h * 21;
      hunks.push(`@@ -${oldStart},3 +${newStart},4 @@`, ' c', '-d', '+a', '+a', ' c');
      for (const n of [0, 1, 2]) left.add(oldStart + n);
      for (const n of [0, 1, 2, 3]) right.add(newStart + n);
    }
    const big = DiffIndex.fromFiles(
      toFileDiffs([
        { path: 'big.ts', status: 'modified', additions: 1000, deletions: 500, patch: hunks.join('\n') },
      ]),
    );
    for (let line = 1; line <= 500 * 21 + 5; line++) {
      expect(big.isRangeOnDiff('big.ts', 'RIGHT', line, line)).toBe(right.has(line));
      expect(big.isRangeOnDiff('big.ts', 'LEFT', line, line)).toBe(left.has(line));
    }
    expect(big.hunkOf('big.ts', 'RIGHT', 21 * 7 + 2)).toBe(7);
  });
});
