import { describe, expect, it } from 'vitest';
import { parsePatch } from '../../diff/diff.js';
import { FileLines, numberLines } from '../../diff/positions.js';
import { buildPosition, lineCode } from './positions.js';

const REFS = { base_sha: 'b'.repeat(40), start_sha: 's'.repeat(40), head_sha: 'h'.repeat(40) };

/** A hunk: two context lines, a replaced line, an inserted line, a context line. */
const PATCH = ['@@ -10,4 +10,5 @@ fn()', ' a', ' b', '-c', '+C', '+D', ' e'].join('\n');
const TWO_HUNKS = ['@@ -1,2 +1,2 @@', '-x', '+X', ' y', '@@ -20,1 +20,2 @@', ' z', '+Z'].join('\n');

describe('lineCode', () => {
  it('is the SHA-1 of the path, then the old and new numbers', () => {
    // SHA-1("abc") is the FIPS 180 test vector.
    expect(lineCode('abc', 5, 7)).toBe('a9993e364706816aba3e25717850c26c9cd0d89d_5_7');
  });
});

describe('numberLines (GitLab diff-parser counters)', () => {
  it('gives added lines the next old number and removed lines the next new number', () => {
    expect(numberLines(parsePatch(PATCH)).map((l) => [l.kind, l.oldPos, l.newPos])).toEqual([
      ['context', 10, 10],
      ['context', 11, 11],
      ['del', 12, 12],
      ['add', 13, 12],
      ['add', 13, 13],
      ['context', 13, 14],
    ]);
  });

  it.each([
    [
      'a new file',
      '@@ -0,0 +1,2 @@\n+a\n+b',
      [
        ['add', 0, 1],
        ['add', 0, 2],
      ],
    ],
    [
      'a deleted file',
      '@@ -1,2 +0,0 @@\n-a\n-b',
      [
        ['del', 1, 0],
        ['del', 2, 0],
      ],
    ],
    [
      'a missing final newline',
      '@@ -1 +1 @@\n-a\n\\ No newline at end of file\n+b\n\\ No newline at end of file',
      [
        ['del', 1, 1],
        ['add', 2, 1],
      ],
    ],
  ])('numbers %s', (_name, patch, expected) => {
    expect(numberLines(parsePatch(patch)).map((l) => [l.kind, l.oldPos, l.newPos])).toEqual(expected);
  });
});

describe('buildPosition', () => {
  const file = { oldPath: 'src/a.ts', newPath: 'src/a.ts', lines: FileLines.fromPatch(PATCH) };
  const base = { position_type: 'text', ...REFS, old_path: 'src/a.ts', new_path: 'src/a.ts' };

  it.each([
    ['an added line: new_line only', 'RIGHT', 13, { new_line: 13 }],
    ['a removed line: old_line only', 'LEFT', 12, { old_line: 12 }],
    ['a context line from the right: both', 'RIGHT', 14, { old_line: 13, new_line: 14 }],
    ['a context line from the left: both', 'LEFT', 11, { old_line: 11, new_line: 11 }],
  ] as const)('positions %s', (_name, side, line, expected) => {
    expect(buildPosition(REFS, file, { side, line })).toEqual({ ...base, ...expected });
  });

  it('adds line_range with GitLab line codes and types for a range', () => {
    expect(buildPosition(REFS, file, { side: 'RIGHT', line: 13, startLine: 11 })).toEqual({
      ...base,
      new_line: 13,
      line_range: {
        start: { line_code: lineCode('src/a.ts', 11, 11), type: 'old', old_line: 11, new_line: 11 },
        end: { line_code: lineCode('src/a.ts', 13, 13), type: 'new', new_line: 13 },
      },
    });
  });

  it('hashes the new path of a renamed file', () => {
    const renamed = { oldPath: 'old.ts', newPath: 'new.ts', lines: FileLines.fromPatch(PATCH) };
    const position = buildPosition(REFS, renamed, { side: 'LEFT', line: 12, startLine: 10 });
    expect(position).toMatchObject({
      old_path: 'old.ts',
      new_path: 'new.ts',
      old_line: 12,
      line_range: {
        start: { line_code: lineCode('new.ts', 10, 10) },
        end: { line_code: lineCode('new.ts', 12, 12) },
      },
    });
  });

  it.each([
    ['a line off the diff', { side: 'RIGHT', line: 30 }, /line 30 is not on the RIGHT side/],
    ['a range start off the diff', { side: 'RIGHT', line: 13, startLine: 2 }, /line 2 is not/],
  ] as const)('refuses %s', (_name, c, reason) => {
    const result = buildPosition(REFS, file, c);
    expect('error' in result && result.error).toMatch(reason);
  });

  it('refuses a number that exists only on the other side', () => {
    // Old line 6 survives as new line 5; there is no new line 6.
    const removal = {
      oldPath: 'r.ts',
      newPath: 'r.ts',
      lines: FileLines.fromPatch('@@ -5,2 +5,1 @@\n-a\n b'),
    };
    expect(buildPosition(REFS, removal, { side: 'LEFT', line: 6 })).toMatchObject({
      old_line: 6,
      new_line: 5,
    });
    expect(buildPosition(REFS, removal, { side: 'RIGHT', line: 6 })).toHaveProperty('error');
    // New line 6 was old line 5; there is no old line 6.
    const insertion = {
      oldPath: 'i.ts',
      newPath: 'i.ts',
      lines: FileLines.fromPatch('@@ -5,1 +5,2 @@\n+a\n b'),
    };
    expect(buildPosition(REFS, insertion, { side: 'RIGHT', line: 6 })).toMatchObject({
      old_line: 5,
      new_line: 6,
    });
    expect(buildPosition(REFS, insertion, { side: 'LEFT', line: 6 })).toHaveProperty('error');
  });

  it('refuses a range that spans two hunks', () => {
    const two = { oldPath: 'b.ts', newPath: 'b.ts', lines: FileLines.fromPatch(TWO_HUNKS) };
    expect(buildPosition(REFS, two, { side: 'RIGHT', line: 21, startLine: 2 })).toEqual({
      error: 'the range spans more than one hunk',
    });
  });
});
