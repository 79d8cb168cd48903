/**
 * The wire form of review-memory markers on Bitbucket Cloud, Bitbucket Data Center and Azure DevOps
 * (CONTRACT §13), shared by the three. They render Markdown and escape HTML (Data Center: Atlassian,
 * "Markdown syntax guide": "CommonMark … all HTML tags are escaped"; Azure DevOps documents no HTML
 * in pull request comments), so an HTML comment would show as text; a Markdown link reference definition (`[//]: # (reviewbot:… )`, CommonMark §4.7)
 * renders as nothing. The review code writes and reads markers in the project's HTML-comment form;
 * each of these platforms converts the marker at the end of each body it posts (`toWire`) and back
 * in each body it reads (`fromWire`), so the marker form is the platform's choice and review code
 * has no special case.
 *
 * Forgery (issue 27): text the bot posts that looks like the wire form (a model quoting one) is
 * neutralised before the trailing marker is converted, so only the product's own marker is read back.
 */

/** The bot's HTML-comment marker as the last thing of a body, on its own line. */
const HTML_MARKER_AT_END = /\n*(?:^|\n)<!-- (reviewbot:[^\n]*?) -->\s*$/;
/** The wire form as the last thing of a body, on its own line. */
const WIRE_MARKER_AT_END = /(^|\n)\[\/\/\]: # \((reviewbot:[^\n()]*)\)\s*$/;
/** Anything that reads as the wire form's opening. */
const WIRE_OPENING = /\[\/\/\]:(\s*)#(\s*)\((\s*)(reviewbot:)/gi;
const WORD_JOINER = '\u2060';

/**
 * `text` with every wire-form opening broken by a word joiner (renders the same, never read); the
 * rest of the opening is kept as written, letter case included.
 */
export function neutraliseWireMarkers(text: string): string {
  return text.replace(WIRE_OPENING, `[/${WORD_JOINER}/]:$1#$2($3$4`);
}

/**
 * `body` as posted on the platform: wire-form look-alikes neutralised, and the HTML marker at its end
 * (if any) turned into a link reference definition after a blank line.
 */
export function toWire(body: string): string {
  const safe = neutraliseWireMarkers(body);
  const match = HTML_MARKER_AT_END.exec(safe);
  if (!match?.[1]) return safe;
  const before = safe.slice(0, match.index);
  return `${before}${before === '' ? '' : '\n\n'}[//]: # (${match[1]})`;
}

/** `body` as read from the platform with its trailing wire marker (if any) back in HTML-comment form. */
export function fromWire(body: string): string {
  return body.replace(
    WIRE_MARKER_AT_END,
    (_all, start: string, marker: string) => `${start}<!-- ${marker} -->`,
  );
}
