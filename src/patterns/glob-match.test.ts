/** `escapeGlob` against picomatch itself: an escaped path matches exactly that path. */
import picomatch from 'picomatch';
import { describe, expect, it } from 'vitest';
import { escapeGlob, filterByGlob } from './glob-match.js';

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
