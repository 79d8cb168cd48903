/** Small Markdown helpers for review bodies: code spans and fences that survive any content. */

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

/** An inline code span holding `text` verbatim (CommonMark: longer delimiters around backticks). */
export function codeSpan(text: string): string {
  const ticks = '`'.repeat(longestRun(text, '`') + 1);
  const pad = text.startsWith('`') || text.endsWith('`') ? ' ' : '';
  return `${ticks}${pad}${text}${pad}${ticks}`;
}
