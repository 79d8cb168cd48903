/**
 * Untrusted names (file paths, branch names, model names, `.reviewbot.yaml` keys) as inline code
 * spans that nothing inside them can escape, on every platform's Markdown: GitHub, GitLab,
 * Gitea/Forgejo, Bitbucket Cloud and Data Center, Azure DevOps (all CommonMark-based).
 *
 * Git allows any byte but NUL and `/` in a path component: newlines (a blank line ends the
 * paragraph, and with it the span, so what follows is free Markdown: `</details>`, images, links,
 * `@team`), backticks (a run as long as the span's delimiters closes it), control characters.
 */

/** Longest text a span shows, in code points after escaping; longer text keeps its start and end. */
export const MAX_CODE_SPAN_CHARS = 240;

const ELLIPSIS = '…';
/** U+2060 WORD JOINER: invisible, not a username character on any platform. */
const WORD_JOINER = '\u2060';
/** U+2424 SYMBOL FOR NEWLINE (␤), shown for a line feed. */
const NEWLINE_SYMBOL = '\u2424';

/**
 * Characters shown escaped: C0 controls and DEL (as Unicode Control Pictures, U+2400–U+2421), C1
 * controls, the line and paragraph separators, and the bidirectional controls that make text read
 * in another order than it is stored ("Trojan Source"), shown as `\u{…}`.
 */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const UNSAFE_CHAR = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/gu;

/** A UTF-16 surrogate without its other half (not text; JSON encoders and APIs mangle it). */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

function visible(char: string): string {
  const code = char.codePointAt(0) as number;
  if (code === 0x0a) return NEWLINE_SYMBOL;
  if (code < 0x20) return String.fromCodePoint(0x2400 + code);
  if (code === 0x7f) return '\u2421';
  return `\\u{${code.toString(16).toUpperCase()}}`;
}

/** Length of the longest run of backticks in `text`. */
function longestBacktickRun(text: string): number {
  let longest = 0;
  let current = 0;
  for (const c of text) {
    current = c === '`' ? current + 1 : 0;
    if (current > longest) longest = current;
  }
  return longest;
}

/** `text` cut to `max` code points, keeping its start and its end (a path's file name) around `…`. */
function capped(text: string, max: number): string {
  const points = Array.from(text);
  if (points.length <= max) return text;
  const tail = Math.floor((max - 1) / 2);
  const head = max - 1 - tail;
  return `${points.slice(0, head).join('')}${ELLIPSIS}${points.slice(points.length - tail).join('')}`;
}

/**
 * `text` as a one-line inline code span that cannot be escaped:
 * - line breaks, other control characters and bidirectional controls are shown as visible escapes
 *   (a line feed as `␤`, other C0 controls as their Control Pictures, the rest as `\u{…}`), so the
 *   span stays on one line and inside its paragraph; lone surrogates become U+FFFD;
 * - longer than `MAX_CODE_SPAN_CHARS` code points: the start and the end around `…`;
 * - the delimiters are one backtick longer than the longest backtick run inside, with a space of
 *   padding on each side when the text starts or ends with a backtick or a space (CommonMark strips
 *   one space on each side; an all-space text is not stripped);
 * - `@{…}`, `@<…>` and `@"…"` (Bitbucket Cloud, Azure DevOps and Data Center mention forms) get an
 *   invisible U+2060 WORD JOINER after the `@`; a plain `@name` stays exact (`packages/@scope/…`
 *   paths are common, and no platform links a mention inside code).
 * `<`, `>`, `</details>`, `![img](…)` and `@team` are literal text inside a code span.
 * Text that needs none of this is rendered verbatim, as before.
 *
 * @param text any untrusted string (empty gives a span holding one space).
 * @returns the span, one line, at most `MAX_CODE_SPAN_CHARS` + 2 × (delimiters + 1) code points.
 */
export function codeSpan(text: string): string {
  const shown = capped(
    text
      .replace(LONE_SURROGATE, '\uFFFD')
      .replace(/\r\n/g, '\n')
      .replace(UNSAFE_CHAR, visible)
      .replace(/@(?=[{<"])/g, `@${WORD_JOINER}`),
    MAX_CODE_SPAN_CHARS,
  );
  if (shown === '') return '` `';
  const ticks = '`'.repeat(longestBacktickRun(shown) + 1);
  const pad = /^[` ]|[` ]$/.test(shown) && shown.trim() !== '' ? ' ' : '';
  return `${ticks}${pad}${shown}${pad}${ticks}`;
}
