import { describe, expect, it } from 'vitest';
import type { PullRequestFile } from '../platforms/types.js';
import { ANNOTATION_LEGEND, annotateDiff } from './annotate.js';
import { toFileDiffs } from '../diff/diff.js';

const files: PullRequestFile[] = [
  {
    path: 'src/app.ts',
    status: 'modified',
    additions: 1,
    deletions: 1,
    patch:
      '@@ -41,3 +43,3 @@ function main()\n context\n-removed\n+added\n tail\n\\ No newline at end of file',
  },
  {
    path: 'src/new-name.ts',
    previousPath: 'src/old-name.ts',
    status: 'renamed',
    additions: 0,
    deletions: 1,
    patch: '@@ -1,2 +1,1 @@\n keep\n-drop',
  },
  { path: 'src/moved.ts', previousPath: 'src/was.ts', status: 'renamed', additions: 0, deletions: 0 },
  { path: 'logo.png', status: 'added', additions: 0, deletions: 0 },
  { path: 'data/dump.json', status: 'modified', additions: 50_000, deletions: 3 },
];

describe('annotateDiff', () => {
  it('shows real old/new line numbers, markers, headers and notes for files without a diff', () => {
    expect(annotateDiff(toFileDiffs(files))).toBe(
      [
        ANNOTATION_LEGEND,
        '=== src/app.ts (modified, +1 -1) ===',
        '@@ -41,3 +43,3 @@ function main()',
        '  41   43 │  context',
        '  42      │- removed',
        '       44 │+ added',
        '  43   45 │  tail',
        '=== src/new-name.ts (renamed, renamed from src/old-name.ts, +0 -1) ===',
        '@@ -1,2 +1,1 @@',
        '   1    1 │  keep',
        '   2      │- drop',
        '=== src/moved.ts (renamed, renamed from src/was.ts) — no content change ===',
        '=== logo.png (added) — binary file, no diff ===',
        '=== data/dump.json (modified) — diff too large to show; Read the file ===',
      ].join('\n'),
    );
  });

  it('widens the number columns for line numbers past 9999', () => {
    const out = annotateDiff(
      toFileDiffs([
        {
          path: 'big.c',
          status: 'modified',
          additions: 1,
          deletions: 0,
          patch: '@@ -99998,1 +99998,2 @@\n x\n+y',
        },
      ]),
    );
    expect(out.split('\n').slice(-2)).toEqual(['99998 99998 │  x', '      99999 │+ y']);
  });

  it('starts with the one-line legend explaining RIGHT/NEW and LEFT/OLD', () => {
    const [first] = annotateDiff([]).split('\n');
    expect(first).toContain('side RIGHT and the NEW number');
    expect(first).toContain('side LEFT and the OLD number');
  });
});

function manyFiles(count: number, hunksPerFile: number): PullRequestFile[] {
  const result: PullRequestFile[] = [];
  for (let f = 0; f < count; f++) {
    const hunks: string[] = [];
    for (let h = 0; h < hunksPerFile; h++) {
      const start = 1 + h * 100;
      hunks.push(`@@ -${start},2 +${start},2 @@`, ` context of file ${f} hunk ${h}`, '-old', '+new');
    }
    result.push({
      path: `pkg/file-${f}.ts`,
      status: 'modified',
      additions: hunksPerFile,
      deletions: hunksPerFile,
      patch: hunks.join('\n'),
    });
  }
  return result;
}

/** The hunk headers shown per file, parsed back from the output. */
function shownHunks(out: string): Map<string, number> {
  const shown = new Map<string, number>();
  let current = '';
  for (const line of out.split('\n')) {
    const header = /^=== (\S+) /.exec(line);
    if (header) {
      current = header[1]!;
      shown.set(current, 0);
    } else if (line.startsWith('@@ ')) {
      shown.set(current, shown.get(current)! + 1);
    }
  }
  return shown;
}

describe('annotateDiff within maxChars', () => {
  it.each([2_000, 5_000, 15_000])(
    'cuts whole files and hunks to fit %i chars and names what it omitted',
    (maxChars) => {
      const input = manyFiles(60, 3);
      const out = annotateDiff(toFileDiffs(input), { maxChars });
      expect(annotateDiff(toFileDiffs(input)).length).toBeGreaterThan(maxChars);
      expect(out.length).toBeLessThanOrEqual(maxChars);
      expect(out.startsWith(ANNOTATION_LEGEND)).toBe(true);

      // Every hunk that is shown is complete: header plus its three lines.
      const lines = out.split('\n');
      for (const [i, line] of lines.entries()) {
        if (line.startsWith('@@ '))
          expect(lines.slice(i + 1, i + 4).map((l) => l.slice(11, 12))).toEqual([' ', '-', '+']);
      }
      // Each file is fully shown, or named in the omitted list (wholly or its remaining hunks).
      const shown = shownHunks(out);
      const footer = out.slice(out.indexOf('Omitted from this diff for size'));
      expect(out).toContain('Omitted from this diff for size');
      for (const file of input) {
        const count = shown.get(file.path) ?? 0;
        if (count === 3) continue;
        const named =
          count === 0 ? `- ${file.path} (all 3 hunks)` : `- ${file.path} (hunks ${count + 1}-3 of 3)`;
        const cutShort = /- … and \d+ more files?$/.test(footer);
        if (!cutShort) expect(footer).toContain(named);
      }
      expect(shown.size).toBeGreaterThan(0);
    },
  );

  it('marks a partly shown file where its hunks stop', () => {
    const input = [...manyFiles(1, 1), ...manyFiles(1, 40).map((f) => ({ ...f, path: 'pkg/long.ts' }))];
    const out = annotateDiff(toFileDiffs(input), { maxChars: 1_500 });
    expect(out.length).toBeLessThanOrEqual(1_500);
    const shown = shownHunks(out).get('pkg/long.ts')!;
    expect(shown).toBeGreaterThan(0);
    expect(shown).toBeLessThan(40);
    expect(out).toContain(`… ${40 - shown} more hunks of this file omitted for size; Read the file`);
    expect(out).toContain(`- pkg/long.ts (hunks ${shown + 1}-40 of 40)`);
  });

  it('adds nothing when the diff fits exactly', () => {
    const diffs = toFileDiffs(manyFiles(3, 2));
    const full = annotateDiff(diffs, { maxChars: 1_000_000 });
    expect(annotateDiff(diffs, { maxChars: full.length })).toBe(full);
    expect(annotateDiff(diffs, { maxChars: full.length - 1 })).toContain('Omitted from this diff for size');
  });
});
