/** `codeSpan`: untrusted names as one-line code spans that nothing inside them can escape. */
import { describe, expect, it } from 'vitest';
import { codeSpan, MAX_CODE_SPAN_CHARS } from './inline-code.js';

const J = '\u2060';

/** The span's delimiter run and content, CommonMark's way (one padding space stripped each side). */
function parts(span: string): { ticks: number; content: string } {
  const ticks = /^`+/.exec(span)?.[0].length ?? 0;
  expect(span.endsWith('`'.repeat(ticks))).toBe(true);
  let content = span.slice(ticks, span.length - ticks);
  if (content.startsWith(' ') && content.endsWith(' ') && content.trim() !== '') {
    content = content.slice(1, -1);
  }
  return { ticks, content };
}

/** Longest backtick run of `text`. */
function longestRun(text: string): number {
  return Math.max(0, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
}

const HOSTILE = [
  ['blank lines and a closing details tag', 'docs/a\n\n</details>\n\n<img src=x onerror=alert(1)>'],
  ['a team mention after a blank line', 'src/x\n\n@acme/security-team please look'],
  ['an image and a link', 'a/![img](http://x.invalid/p.png) [click](http://x.invalid)'],
  ['a heading and a list on new lines', 'a\n# Heading\n- item\n> quote'],
  ['CRLF and lone CR', 'a\r\n\r\nb\rc'],
  ['backtick runs', 'a`b``c```d'],
  ['backticks at both ends', '`x`'],
  ['only backticks', '````'],
  ['a table pipe and HTML', '| a | <b>bold</b> |'],
  ['control and bidi characters', 'a\u0000b\u0007c\u001bd\u007fe\u0085f\u202eg\u2066h\u2028i'],
  ['very long', `${'dir/'.repeat(2000)}file.ts`],
] as const;

describe('codeSpan', () => {
  it.each(HOSTILE)('keeps %s inside one span on one line', (_name, text) => {
    const span = codeSpan(text);
    expect(span).not.toMatch(/[\n\r\u2028\u2029]/);
    // No control or bidirectional character survives.
    // eslint-disable-next-line no-control-regex -- asserting no control character survives
    expect(span).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
    const { ticks, content } = parts(span);
    // Nothing inside is as long as the delimiters, so nothing closes the span early.
    expect(longestRun(content)).toBeLessThan(ticks);
    expect(Array.from(content).length).toBeLessThanOrEqual(MAX_CODE_SPAN_CHARS);
  });

  it('shows what it replaced, visibly', () => {
    expect(codeSpan('docs/a\n\n</details>\n\n@team ![img](http://x)')).toBe(
      '`docs/a␤␤</details>␤␤@team ![img](http://x)`',
    );
    expect(codeSpan('a\r\nb\tc\u0000d\u007f')).toBe('`a␤b␉c␀d␡`');
    expect(codeSpan('evil\u202Etxt.exe')).toBe('`evil\\u{202E}txt.exe`');
    expect(codeSpan('lone \ud800 surrogate')).toBe('`lone \ufffd surrogate`');
  });

  it('fences backtick runs with a longer run and pads a backtick at either end', () => {
    expect(codeSpan('a`b')).toBe('``a`b``');
    expect(codeSpan('a`b``c')).toBe('```a`b``c```');
    expect(codeSpan('`x`')).toBe('`` `x` ``');
    expect(codeSpan('``')).toBe('``` `` ```');
    // A space at both ends would lose one each: padded so it shows.
    expect(codeSpan(' x ')).toBe('`  x  `');
    expect(codeSpan('')).toBe('` `');
  });

  it('cuts a long name in the middle, keeping its start and its file name', () => {
    const long = `${'very-long-directory/'.repeat(50)}the-file.ts`;
    const { content } = parts(codeSpan(long));
    expect(Array.from(content)).toHaveLength(MAX_CODE_SPAN_CHARS);
    expect(content.startsWith('very-long-directory/')).toBe(true);
    expect(content.endsWith('/the-file.ts')).toBe(true);
    expect(content).toContain('…');
  });

  it('leaves ordinary names exact, plain @scope paths included', () => {
    for (const name of ['src/app.ts', 'packages/@scope/pkg/index.ts', 'a b/c-d_e.f', 'claude-sonnet-4-5']) {
      expect(codeSpan(name)).toBe(`\`${name}\``);
    }
  });

  it('breaks the mention forms that are no plain names: @{id}, @<GUID>, @"Display Name"', () => {
    expect(codeSpan('x/@{557058:abc}/@<6F2A-11>/@"Jane Doe"/@team')).toBe(
      `\`x/@${J}{557058:abc}/@${J}<6F2A-11>/@${J}"Jane Doe"/@team\``,
    );
  });
});
