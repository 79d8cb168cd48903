/**
 * Where posted Markdown is certainly code: the fenced code blocks and inline code spans that every
 * platform's CommonMark-based renderer (GitHub, GitLab, Gitea/Forgejo, Bitbucket Cloud and Data
 * Center, Azure DevOps) renders as code, whatever the text around them. Used to leave code
 * byte-exact while text outside it is rewritten (`neutraliseMentions`).
 *
 * The scan errs one way only: what it calls code is code on every renderer; when a construct could
 * be read two ways (a fence inside a list or quote, raw HTML around a fence, a code span that a
 * table cell or an HTML tag could cut, a backtick run left open on an earlier line of the
 * paragraph), it is not code, and once a fence could be misread (so later fences could pair
 * differently) nothing after it is. Linear in the text's length.
 */

/** A half-open range `[start, end)` of UTF-16 offsets. */
export interface TextRange {
  start: number;
  end: number;
}

/** One line of the text: its offsets without the line ending (CommonMark: LF, CR or CRLF). */
interface Line {
  start: number;
  end: number;
  text: string;
}

function linesOf(text: string): Line[] {
  const lines: Line[] = [];
  const ending = /\r\n|\r|\n/g;
  let start = 0;
  for (let m = ending.exec(text); m !== null; m = ending.exec(text)) {
    lines.push({ start, end: m.index, text: text.slice(start, m.index) });
    start = m.index + m[0].length;
  }
  lines.push({ start, end: text.length, text: text.slice(start) });
  return lines;
}

/** Width of the line's leading whitespace, tabs to the next multiple of 4 (CommonMark). */
function indentOf(line: string): number {
  let width = 0;
  for (const c of line) {
    if (c === ' ') width += 1;
    else if (c === '\t') width += 4 - (width % 4);
    else break;
  }
  return width;
}

const BLANK = /^[ \t]*$/;
/** A fence line as every renderer reads it at the top level: up to 3 spaces, then 3+ ` or ~. */
const PLAIN_FENCE = /^( {0,3})(`{3,}|~{3,})(.*)$/;
/** Block-quote markers, list markers and indentation that may put a line inside a container. */
const CONTAINER_PREFIX = /^[ \t]*(?:(?:>|[-+*]|\d{1,9}[.)])[ \t]*)*/;
const FENCE_RUN = /^(?:`{3,}|~{3,})/;
const HTML_START = /^<[A-Za-z/!?]/;
/** HTML blocks of CommonMark types 1–5: the text that ends each (they may span blank lines). */
const HTML_ENDS: Array<[RegExp, RegExp]> = [
  [/^<(?:pre|script|style|textarea)(?:[\s>]|$)/i, /<\/(?:pre|script|style|textarea)>/i],
  [/^<!--/, /-->/],
  [/^<\?/, /\?>/],
  [/^<!\[CDATA\[/, /\]\]>/],
  [/^<![A-Za-z]/, />/],
];

/** The line without container markers; '' when it has none. */
function afterContainers(line: string): string {
  return line.slice(CONTAINER_PREFIX.exec(line)?.[0].length ?? 0);
}

/** True when some renderer could read the line as a fence (inside a container or indented). */
function fenceLike(line: string): boolean {
  const rest = afterContainers(line);
  return FENCE_RUN.test(rest) && !/^`+(?!`).*`/.test(rest);
}

/** The fence the line opens at the top level, or undefined. */
function plainFence(line: string): { char: string; length: number; indent: number } | undefined {
  const m = PLAIN_FENCE.exec(line);
  if (!m) return undefined;
  const run = m[2] as string;
  if (run.startsWith('`') && (m[3] ?? '').includes('`')) return undefined;
  return { char: run[0] as string, length: run.length, indent: (m[1] as string).length };
}

/**
 * The inline code spans of one line, paired as CommonMark pairs backtick runs (an opener takes the
 * next run of the same length; a backslash escapes an opener's first backtick, never a closer), and
 * whether a run was left open (it could close on a later line of the paragraph).
 */
function lineSpans(line: string): { spans: TextRange[]; open: boolean } {
  if (!line.includes('`')) return { spans: [], open: false };
  const runs: TextRange[] = [];
  for (const m of line.matchAll(/`+/g)) runs.push({ start: m.index, end: m.index + m[0].length });
  // One run opens nothing on this line (it may close or open across lines: `open`).
  if (runs.length === 1) return { spans: [], open: true };
  // next[i]: the first later run as long as run i; nextShorter[i]: one backtick shorter (the rest
  // of an escaped opener). One backwards pass keeps the scan linear.
  const next = new Int32Array(runs.length).fill(-1);
  const nextShorter = new Int32Array(runs.length).fill(-1);
  const latest = new Map<number, number>();
  for (let i = runs.length - 1; i >= 0; i--) {
    const length = (runs[i] as TextRange).end - (runs[i] as TextRange).start;
    next[i] = latest.get(length) ?? -1;
    nextShorter[i] = latest.get(length - 1) ?? -1;
    latest.set(length, i);
  }
  const spans: TextRange[] = [];
  let open = false;
  let i = 0;
  while (i < runs.length) {
    const run = runs[i] as TextRange;
    let slashes = 0;
    while (run.start - slashes - 1 >= 0 && line[run.start - slashes - 1] === '\\') slashes++;
    const escaped = slashes % 2 === 1;
    const start = escaped ? run.start + 1 : run.start;
    const j = (escaped ? nextShorter[i] : next[i]) as number;
    if (start < run.end && j >= 0) {
      spans.push({ start, end: (runs[j] as TextRange).end });
      i = j + 1;
    } else {
      if (start < run.end) open = true;
      i += 1;
    }
  }
  return { spans, open };
}

/** Text in `[from, to)` of `line` that may open an HTML tag or autolink. */
function opensTag(line: string, from: number, to: number): boolean {
  return /<[A-Za-z/!?]/.test(line.slice(from, to));
}

type Mode =
  | { kind: 'text' }
  | { kind: 'fence'; char: string; length: number; indent: number; start: number }
  | { kind: 'html'; end: RegExp | undefined };

/**
 * The ranges of `text` that are code on every renderer (see the module comment), in order and
 * disjoint: each closed top-level fenced block (fence lines included) and each trusted code span
 * (delimiters included).
 */
export function certainCodeRanges(text: string): TextRange[] {
  const ranges: TextRange[] = [];
  // A lone CR ends a line in CommonMark; a renderer that disagrees would pair everything differently.
  if (/\r(?!\n)/.test(text)) return ranges;
  let mode: Mode = { kind: 'text' };
  // Inline state of the current paragraph-like group (lines since the last blank line or block).
  let clean = true;
  for (const line of linesOf(text)) {
    const blank = BLANK.test(line.text);
    if (mode.kind === 'fence') {
      const closer = /^([ \t]*)(`+|~+)[ \t]*$/.exec(line.text);
      const run = closer?.[2];
      if (closer && run && run[0] === mode.char && run.length >= mode.length) {
        const indent = indentOf(line.text);
        if (indent <= 3 && !(closer[1] as string).includes('\t')) {
          ranges.push({ start: mode.start, end: line.end });
          mode = { kind: 'text' };
          clean = true;
          continue;
        }
        if (indent <= mode.indent + 3) return ranges;
      }
      // A line left of the fence's indentation may end the container, and the fence with it.
      if (!blank && indentOf(line.text) < mode.indent) return ranges;
      continue;
    }
    if (mode.kind === 'html') {
      // Raw HTML is no code; a fence inside it is ambiguous (the block may end before it).
      if (fenceLike(line.text)) return ranges;
      if (mode.end ? mode.end.test(line.text) : blank) {
        mode = { kind: 'text' };
        clean = blank;
      }
      continue;
    }
    if (blank) {
      clean = true;
      continue;
    }
    const fence = plainFence(line.text);
    if (fence) {
      mode = { kind: 'fence', ...fence, start: line.start };
      continue;
    }
    if (fenceLike(line.text)) return ranges;
    const rest = afterContainers(line.text);
    if (HTML_START.test(rest)) {
      const end = HTML_ENDS.find(([start]) => start.test(rest))?.[1];
      // Types 1–5 may end on their first line (after the opening).
      if (!(end && end.test(rest.slice(2)))) mode = { kind: 'html', end };
      clean = false;
      continue;
    }
    const { spans, open } = lineSpans(line.text);
    // A table cell boundary (`|`) may cut a span; a run open on an earlier line may pair with one here.
    let trusted = clean && !line.text.includes('|');
    let from = 0;
    for (const span of spans) {
      if (opensTag(line.text, from, span.start)) trusted = false;
      if (trusted) ranges.push({ start: line.start + span.start, end: line.start + span.end });
      from = span.end;
    }
    if (open || opensTag(line.text, from, line.text.length) || !trusted) clean = false;
  }
  return ranges;
}
