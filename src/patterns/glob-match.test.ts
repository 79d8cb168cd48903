/** `escapeGlob` against picomatch itself: an escaped path matches exactly that path. */
import picomatch from 'picomatch';
import { describe, expect, it } from 'vitest';
import { escapeGlob, filterByGlob, matchGlobSpecs } from './glob-match.js';

describe('escapeGlob', () => {
  it.each([
    ['pages/[id].tsx', 'pages/i.tsx'],
    ['src/*a*a*ab.ts', 'src/xaab.ts'],
    ['x/@(a|b).js', 'x/a.js'],
    ['weird/{a,b}/!x+.ts', 'weird/a/!x+.ts'],
    ['a\\b?.md', 'a\\bc.md'],
  ])('%s matches itself and not %s', (literal, other) => {
    const isMatch = picomatch(escapeGlob(literal), { dot: true });
    expect(isMatch(literal)).toBe(true);
    expect(isMatch(other)).toBe(false);
  });

  it('leaves an ordinary path as it is', () => {
    expect(escapeGlob('src/lib/calc.test.ts')).toBe('src/lib/calc.test.ts');
  });

  it('is matched by filterByGlob like any glob', async () => {
    const paths = ['pages/[id].tsx', 'pages/i.tsx'];
    expect(await filterByGlob(escapeGlob('pages/[id].tsx'), paths, { timeoutMs: 5_000 })).toEqual([
      'pages/[id].tsx',
    ]);
  });
});

describe('matchGlobSpecs time limits', () => {
  const hostile = `${'@(a|aa)'.repeat(40)}b`;
  const victim = 'a'.repeat(52);

  it('stops a match that outlasts its budget, counted from the start of matching', async () => {
    const started = performance.now();
    const outcome = await matchGlobSpecs([{ pattern: 'a*' }, { pattern: hostile }], ['ab', victim], 300);
    expect(performance.now() - started).toBeLessThan(3_000);
    expect(outcome.timedOut).toBe(true);
    expect(outcome.matches[0]).toEqual([0, 1]);
    expect(outcome.failures.get(1)).toBe('timed out after 300 ms');
  });

  it('stops the worker at the hard deadline even when the budget is larger', async () => {
    const started = performance.now();
    const outcome = await matchGlobSpecs([{ pattern: hostile }], [victim], 60_000, undefined, {
      deadlineMs: 700,
    });
    expect(performance.now() - started).toBeLessThan(3_000);
    expect(outcome.failures.get(0)).toBe('timed out after 700 ms');
  });
});
