/** Small Markdown helpers for posted text: code spans and fences that survive any content. */

/** Length of the longest run of `char` in `text`. */
function longestRun(text: string, char: string): number {
  let longest = 0;
  let current = 0;
  for (const c of text) {
    current = c === char ? current + 1 : 0;
    if (current > longest) longest = current;
  }
  return longest;
}

/**
 * A fenced code block holding `content` verbatim: the fence is one backtick longer than the longest
 * backtick run inside (at least three), so content with its own fences cannot close it early.
 *
 * @param info the info string after the opening fence, e.g. `ts` or `suggestion` (may be empty).
 * @returns the block, lines joined with `\n`, no trailing newline.
 */
export function fencedBlock(content: string, info = ''): string {
  const fence = '`'.repeat(Math.max(3, longestRun(content, '`') + 1));
  const body = content.replace(/\r\n/g, '\n').replace(/\n$/, '');
  return `${fence}${info}\n${body}\n${fence}`;
}

/** Untrusted names as inline code spans nothing can escape (see `inline-code.ts`). */
export { codeSpan } from './inline-code.js';

/**
 * reviewbot's hidden memory markers (`<!-- reviewbot:… -->`, CONTRACT §13; format in
 * `review/memory/markers.ts`) must never come from text the bot did not write. These helpers live here,
 * below the platforms, because every platform's review rendering needs them.
 */

/** The opening of anything shaped like one of the bot's markers (any letter case and spacing). */
const MARKER_OPENING = /<!--(?=\s*reviewbot:)/gi;
/** Put between the two dashes of `<!--`: invisible when rendered, and it breaks the opening. */
const WORD_JOINER = '\u2060';

/**
 * `text` with every marker-shaped opening escaped: each `<!--` followed by `reviewbot:` (any letter
 * case, any spacing) becomes `<!-⁠-` with an invisible U+2060 WORD JOINER between the dashes, so it
 * is neither an HTML comment nor a marker any more (inside a code span it looks the same as before).
 * One pass is a fixed point: the joiner is not whitespace and `<!--` cannot overlap itself, so the
 * result holds no `<!--` followed by `reviewbot:` — nesting such as
 * `<!<!-- reviewbot: -->-- reviewbot:review …` cannot reassemble one either. Applied to every text
 * the bot posts that it did not write itself — model output, file paths, commit messages, error
 * texts — so none of it can plant a marker (e.g. a fake "already reviewed this head" that would
 * silence the next trigger). Linear time; text without such an opening is returned unchanged.
 */
export function neutraliseMarkers(text: string): string {
  return text.replace(MARKER_OPENING, `<!-${WORD_JOINER}-`);
}

/**
 * A marker as the bot writes it at the end of a body, on its own line. (No `\n+` before it: on a
 * long run of newlines that backtracks quadratically, seconds for one comment; the blank lines
 * before the marker are trimmed by a loop.)
 */
const TRAILING_MARKER = /(?:^|\n)<!-- reviewbot:[^\n]*-->\s*$/;

/**
 * `body` without the marker the bot wrote at its end (if any), nor the blank lines before it: a
 * posted body compared with what the bot would post now (CONTRACT §7's "identical to one already
 * posted"). Linear in `body`'s length.
 */
export function withoutOwnMarker(body: string): string {
  const match = TRAILING_MARKER.exec(body);
  if (!match) return body;
  let end = match.index;
  while (end > 0 && body.charCodeAt(end - 1) === 0x0a) end--;
  return body.slice(0, end);
}
