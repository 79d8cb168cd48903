import { describe, expect, it } from 'vitest';
import { diffHunkUpTo, findLine, findPosition, parsePatch } from './patch.js';

// Two hunks; GitHub counts the second `@@` header as a position too.
const PATCH = ['@@ -1,3 +1,3 @@', ' a', '-b', '+B', '@@ -10,2 +10,3 @@ fn', ' j', '+k', ' l'].join('\n');

describe('parsePatch', () => {
  it.each([
    ['RIGHT', 1, 1],
    ['LEFT', 2, 2],
    ['RIGHT', 2, 3],
    ['RIGHT', 10, 5],
    ['RIGHT', 11, 6],
    ['LEFT', 11, 7],
    ['RIGHT', 12, 7],
  ] as const)('%s line %i is at position %i', (side, line, position) => {
    expect(findLine(parsePatch(PATCH), side, line)?.position).toBe(position);
  });

  it.each([
    ['RIGHT', 4],
    ['LEFT', 12],
    ['RIGHT', 9],
  ] as const)('%s line %i is not in the diff', (side, line) => {
    expect(findLine(parsePatch(PATCH), side, line)).toBeUndefined();
  });

  it('gives the diff hunk up to a line and resolves positions', () => {
    const parsed = parsePatch(PATCH);
    const k = findLine(parsed, 'RIGHT', 11);
    expect(k && diffHunkUpTo(parsed, k)).toBe('@@ -10,2 +10,3 @@ fn\n j\n+k');
    expect(findPosition(parsed, 2)).toMatchObject({ kind: 'removed', oldLine: 2 });
    expect(findPosition(parsed, 4)).toBeUndefined();
  });
});
