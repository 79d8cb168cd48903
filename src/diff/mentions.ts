/**
 * Mentions in text the bot posts but did not write (model output, texts quoting it) made inert on
 * every platform: GitHub and Gitea `@user` / `@org/team`, GitLab `@user` / `@group` / `@all`,
 * Bitbucket Cloud `@{account id}`, Data Center `@user` / `@"Display Name"`, Azure DevOps
 * `@<GUID>`. A U+2060 WORD JOINER after the `@` looks the same but is no username character, so the
 * platform neither links nor notifies anyone.
 */
import { certainCodeRanges, type TextRange } from './code-regions.js';

/** U+2060 WORD JOINER: invisible, and no username character on any platform. */
export const WORD_JOINER = '\u2060';

/** An `@`, or an HTML character reference that renders as one (`&#64;`, `&#x40;`, `&commat;`). */
const AT = /@|&(?:#0*64|#[xX]0*40|commat);/g;

/** A URL's start up to its path: scheme (or `www.`), a domain with a dot, then `/`, `?` or `#`. */
const URL_HEAD = /^(?:https?:\/\/|www\.)[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)+[/?#]/i;
/** Longest URL head read, characters (a domain is at most 253). */
const MAX_URL_HEAD = 300;
/** Characters that end a URL (an autolink, or a link destination). */
const URL_END = /[\s<>"'`(){}[\]\\]/;

/**
 * Answers, for `@`s in increasing order, whether the `@` lies in a link's URL: an autolink or a
 * link destination (`[text](https://…`, a bare `https://host.tld/…` or `www.host.tld/…` where GFM
 * links it: at a line's start or after a space, `*`, `_`, `~` or `(`; `<https://…>` is left out, as
 * without its `>` it is no autolink). The `@` of such a URL is no mention
 * (`https://www.npmjs.com/package/@scope/name`), and a joiner would break the link. Reads each
 * character once, so a text full of `@`s stays linear.
 */
function urlTracker(text: string): (at: number) => boolean {
  const starts = [...text.matchAll(/https?:\/\/|www\./gi)];
  const heads = new Map<number, number>();
  let next = 0;
  let lastHttp = -1;
  let lastWww = -1;
  let read = 0;
  let lastEnd = -1;
  /** Length of the URL head at `start` (0: none), computed once per start. */
  const headLength = (start: number): number => {
    let length = heads.get(start);
    if (length === undefined) {
      length = URL_HEAD.exec(text.slice(start, start + MAX_URL_HEAD))?.[0].length ?? 0;
      heads.set(start, length);
    }
    return length;
  };
  const linked = (start: number, at: number): boolean => {
    if (start < 0 || start <= lastEnd) return false;
    const head = headLength(start);
    if (head === 0 || start + head > at) return false;
    return start === 0 || /[\s*_~(]/.test(text[start - 1] as string);
  };
  return (at) => {
    for (; read < at; read++) if (URL_END.test(text[read] as string)) lastEnd = read;
    for (; next < starts.length; next++) {
      const m = starts[next] as RegExpExecArray;
      if (m.index + m[0].length > at) break;
      if (m[0].toLowerCase() === 'www.') lastWww = m.index;
      else lastHttp = m.index;
    }
    return linked(lastHttp, at) || linked(lastWww, at);
  };
}

function isInside(ranges: TextRange[], at: number, from: number): { inside: boolean; next: number } {
  let i = from;
  while (i < ranges.length && (ranges[i] as TextRange).end <= at) i++;
  const range = ranges[i];
  return { inside: range !== undefined && range.start <= at, next: i };
}

/**
 * `text` with every mention outside code neutralised: an `@` (or a character reference for one)
 * that starts a word — the character before it is not an ASCII letter or digit, so `a@b.com` stays
 * an e-mail address — and is followed by a character that is not whitespace gets a U+2060 WORD
 * JOINER after it (a reference becomes `@` + joiner).
 *
 * Left byte-exact:
 * - code: fenced code blocks and inline code spans that are code on every renderer
 *   (`certainCodeRanges`); no platform links a mention inside code, and a suggestion must stay
 *   exactly what the model proposed. Where the Markdown is ambiguous the text is treated as prose;
 * - the `@` of a URL that is a link on the platforms (`https://host.tld/path/@name`);
 * - an `@` already followed by the joiner: the function is idempotent.
 *
 * Not for text the bot writes itself: an intentional mention (the requester's `@user`) must be
 * appended after this. Linear in the text's length.
 */
export function neutraliseMentions(text: string): string {
  if (!text.includes('@') && !text.includes('&')) return text;
  const code = certainCodeRanges(text);
  const inUrl = urlTracker(text);
  let out = '';
  let last = 0;
  let scan = 0;
  for (const m of text.matchAll(AT)) {
    const at = m.index;
    const where = isInside(code, at, scan);
    scan = where.next;
    if (where.inside) continue;
    const after = text[at + m[0].length];
    if (after === undefined || /\s/.test(after) || after === WORD_JOINER) continue;
    if (at > 0 && /[A-Za-z0-9]/.test(text[at - 1] as string)) continue;
    if (m[0] === '@' && /[A-Za-z0-9_.-]/.test(after) && inUrl(at)) continue;
    out += `${text.slice(last, at)}@${WORD_JOINER}`;
    last = at + m[0].length;
  }
  return last === 0 ? text : out + text.slice(last);
}
