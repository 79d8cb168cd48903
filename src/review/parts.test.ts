import { describe, expect, it } from 'vitest';
import { annotateDiff } from './annotate.js';
import { toFileDiffs, type FileDiff } from '../diff/diff.js';
import { estimateTokens, kindOf, planParts } from './parts.js';

function fileDiff(path: string, hunks: number, linesPerHunk: number, width = 40): FileDiff {
  const parts: string[] = [];
  for (let h = 0; h < hunks; h++) {
    const start = h * (linesPerHunk + 10) + 1;
    parts.push(`@@ -${start},0 +${start},${linesPerHunk} @@`);
    for (let i = 0; i < linesPerHunk; i++) parts.push(`+${path}#${h}:${i} ${'x'.repeat(width)}`);
  }
  const additions = hunks * linesPerHunk;
  return toFileDiffs([{ path, status: 'modified', additions, deletions: 0, patch: parts.join('\n') }])[0]!;
}

/** Every `path#hunk:line` marker shown across parts, with its count. */
function shownLines(files: FileDiff[][]): Map<string, number> {
  const seen = new Map<string, number>();
  for (const part of files) {
    for (const file of part) {
      for (const hunk of file.hunks) {
        for (const line of hunk.lines) {
          const key = line.text.split(' ')[0]!;
          seen.set(key, (seen.get(key) ?? 0) + 1);
        }
      }
    }
  }
  return seen;
}

describe('planParts', () => {
  it('keeps a small diff in one part', () => {
    const files = [fileDiff('src/a.ts', 2, 5), fileDiff('src/b.ts', 1, 5)];
    const plan = planParts(files, { maxDiffTokens: 60_000, maxParts: 8 });
    expect(plan.parts).toHaveLength(1);
    expect(plan.parts[0]!.files.map((f) => f.path)).toEqual(['src/a.ts', 'src/b.ts']);
    expect(plan.notReviewed).toEqual([]);
    expect(plan.reviewedFiles).toBe(2);
  });

  it('shows every line exactly once, each part within the budget, with tests beside their sources', () => {
    const files: FileDiff[] = [];
    for (let d = 0; d < 12; d++) {
      files.push(fileDiff(`src/m${d}/index.ts`, 3, 20));
      files.push(fileDiff(`test/m${d}/index${d}.test.ts`, 1, 10));
      files.push(fileDiff(`src/m${d}/index${d}.ts`, 1, 10));
    }
    files.push(fileDiff('src/huge.ts', 3, 900)); // larger than a part: split by hunks and pieces
    const plan = planParts(files, { maxDiffTokens: 8000, maxParts: 100 });
    expect(plan.notReviewed).toEqual([]);
    expect(plan.parts.length).toBeGreaterThan(2);
    for (const part of plan.parts) {
      const rendered = annotateDiff(part.files, { maxChars: Number.MAX_SAFE_INTEGER });
      expect(estimateTokens(rendered.length)).toBeLessThanOrEqual(8000);
      expect(part.tokens).toBeLessThanOrEqual(8000);
    }
    const seen = shownLines(plan.parts.map((p) => p.files));
    const expected = files.reduce((n, f) => n + f.hunks.reduce((m, h) => m + h.lines.length, 0), 0);
    expect(seen.size).toBe(expected);
    expect([...seen.values()].every((count) => count === 1)).toBe(true);
    for (let d = 0; d < 12; d++) {
      const partOf = (path: string) => plan.parts.findIndex((p) => p.files.some((f) => f.path === path));
      expect(partOf(`test/m${d}/index${d}.test.ts`)).toBe(partOf(`src/m${d}/index${d}.ts`));
    }
  });

  it('leaves tests, docs and config out before sources, listing them as not reviewed', () => {
    const files = [
      fileDiff('README.md', 1, 150),
      fileDiff('config/app.yaml', 1, 150),
      fileDiff('test/a.test.ts', 1, 150),
      fileDiff('src/a.ts', 1, 150),
      fileDiff('lib/b.ts', 1, 150),
    ];
    const plan = planParts(files, { maxDiffTokens: 3000, maxParts: 2 });
    const shown = plan.parts.flatMap((p) => p.files.map((f) => f.path));
    expect(shown).toEqual(expect.arrayContaining(['src/a.ts', 'lib/b.ts']));
    expect(plan.notReviewed).toEqual(expect.arrayContaining(['README.md', 'config/app.yaml']));
    expect(plan.reviewedFiles + plan.notReviewed.length).toBe(5);
  });

  it.each([
    ['src/app.ts', 0],
    ['src/app.test.ts', 1],
    ['tests/test_app.py', 1],
    ['docs/guide.md', 2],
    ['package.json', 3],
    ['.eslintrc', 3],
  ])('kindOf(%s) = %i', (path, kind) => {
    expect(kindOf(path)).toBe(kind);
  });

  it('never makes a part over the budget: a line longer than a part is not sent, its file listed with the reason', () => {
    const long = toFileDiffs([
      {
        path: 'src/data.ts',
        status: 'modified',
        additions: 3,
        deletions: 0,
        patch: `@@ -1,0 +1,3 @@\n+src/data.ts#0:0 short\n+src/data.ts#0:1 ${'y'.repeat(20_000)}\n+src/data.ts#0:2 short`,
      },
    ])[0]!;
    const files = [fileDiff('src/a.ts', 1, 5), long];
    const plan = planParts(files, { maxDiffTokens: 1000, maxParts: 8 });
    for (const part of plan.parts) expect(part.tokens).toBeLessThanOrEqual(1000);
    const shown = shownLines(plan.parts.map((p) => p.files));
    expect(shown.has('src/data.ts#0:1')).toBe(false);
    expect(shown.get('src/data.ts#0:0')).toBe(1);
    expect(plan.notReviewed).toEqual(['src/data.ts']);
    expect(plan.notReviewedReasons).toEqual({
      'src/data.ts': 'a diff line larger than review.max_diff_tokens',
    });
  });

  it('lists a file the platform gave no diff for (too large) as not reviewed, not as reviewed', () => {
    const [big] = toFileDiffs([{ path: 'src/huge.ts', status: 'modified', additions: 90_000, deletions: 0 }]);
    expect(big!.tooLarge).toBe(true);
    const plan = planParts([fileDiff('src/a.ts', 1, 5), big!], { maxDiffTokens: 60_000, maxParts: 8 });
    expect(plan.reviewedFiles).toBe(1);
    expect(plan.notReviewed).toEqual(['src/huge.ts']);
    expect(plan.notReviewedReasons).toEqual({ 'src/huge.ts': 'no diff from the platform' });
    expect(plan.parts.flatMap((p) => p.files.map((f) => f.path))).toEqual(['src/a.ts']);
  });

  it('puts the sources of every directory before any test, doc or config when something is left out', () => {
    // Directory a/ sorts first and holds a source with large tests beside it; z/ holds a source too.
    const files = [
      fileDiff('a/x.ts', 1, 20),
      fileDiff('a/x.test.ts', 1, 60),
      fileDiff('a/y.test.ts', 1, 60),
      fileDiff('z/w.ts', 1, 60),
    ];
    const plan = planParts(files, { maxDiffTokens: 3000, maxParts: 1 });
    const shown = plan.parts.flatMap((p) => p.files.map((f) => f.path));
    expect(shown).toEqual(expect.arrayContaining(['a/x.ts', 'z/w.ts']));
    expect(plan.notReviewed).not.toContain('z/w.ts');
    expect(plan.notReviewed.length).toBeGreaterThan(0);
  });
});
