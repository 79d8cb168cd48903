/**
 * Replacing a finding's lines in a file's text (CONTRACT §24), byte for byte: each line keeps its
 * own ending (CRLF stays CRLF), a file without a final newline keeps none, and the range is found
 * by the finding's fingerprint (§13), so lines that changed since the finding was posted are never
 * overwritten.
 */
import { fingerprintLines } from '../../review/memory/fingerprint.js';

/** One line of a file: its text and its ending (`\r\n`, `\n`, or '' for a last line without one). */
export interface FileLine {
  text: string;
  eol: string;
}

/** A 1-based inclusive line range of a file. */
export interface LineRange {
  start: number;
  end: number;
}

/** `content` split into lines with their endings; '' has no lines. */
export function splitLines(content: string): FileLine[] {
  const out: FileLine[] = [];
  for (const match of content.matchAll(/([^\n]*?)(\r?\n|$)/g)) {
    const [whole, text = '', eol = ''] = match;
    if (whole === '' && match.index === content.length) break;
    out.push({ text, eol });
  }
  return out;
}

/** What a finding's marker says about its code: fingerprint and non-blank line count. */
export interface FindingCode {
  path: string;
  fp: string;
  n: number;
}

/** Start of the shortest range ending at `end` that holds `n` non-blank lines, or undefined. */
function startFor(lines: FileLine[], end: number, n: number): number | undefined {
  let count = 0;
  for (let i = end; i >= 1; i--) {
    if ((lines[i - 1]?.text.trim() ?? '') !== '') count++;
    if (count === n) return i;
  }
  return undefined;
}

function matches(lines: FileLine[], code: FindingCode, range: LineRange): boolean {
  const slice = lines.slice(range.start - 1, range.end).map((l) => l.text);
  return fingerprintLines(code.path, slice) === code.fp;
}

/**
 * Where finding `code` sits in `lines`: the range ending at `line` (the thread's line) when its
 * text still has the finding's fingerprint, else the one place in the file that has it. `lineCount`
 * (when the rendered suggestion says how many lines it replaces) fixes the range's length;
 * otherwise the range is the shortest one holding the marker's `n` non-blank lines. Undefined when
 * the code is gone or changed (stale), or found in more than one place without `line` matching.
 */
export function locateFinding(
  lines: FileLine[],
  code: FindingCode,
  line: number | undefined,
  lineCount?: number,
): LineRange | undefined {
  const rangeEnding = (end: number): LineRange | undefined => {
    if (end < 1 || end > lines.length) return undefined;
    const start = lineCount !== undefined ? end - lineCount + 1 : startFor(lines, end, code.n);
    if (start === undefined || start < 1) return undefined;
    const range = { start, end };
    return matches(lines, code, range) ? range : undefined;
  };
  const atLine = line !== undefined ? rangeEnding(line) : undefined;
  if (atLine) return atLine;
  const found: LineRange[] = [];
  for (let end = 1; end <= lines.length && found.length < 2; end++) {
    const range = rangeEnding(end);
    if (range) found.push(range);
  }
  return found.length === 1 ? found[0] : undefined;
}

/** The dominant line ending of `lines` (`\r\n` when most endings are CRLF), `\n` for none. */
function dominantEol(lines: FileLine[]): string {
  let crlf = 0;
  let lf = 0;
  for (const l of lines) {
    if (l.eol === '\r\n') crlf++;
    else if (l.eol === '\n') lf++;
  }
  return crlf > lf ? '\r\n' : '\n';
}

/**
 * `lines` with `range` replaced by `replacement` (lines joined with `\n`; '' deletes the range),
 * joined back into text. The new lines end like the replaced range's first line (the file's
 * dominant ending when that one had none); the last new line ends like the range's last line, so a
 * file without a final newline keeps none. Deleting a file's last lines leaves the line above
 * without an ending when the file had no final newline.
 */
export function replaceRange(lines: FileLine[], range: LineRange, replacement: string): string {
  const before = lines.slice(0, range.start - 1);
  const after = lines.slice(range.end);
  const first = lines[range.start - 1];
  const last = lines[range.end - 1];
  const eol = first?.eol || dominantEol(lines);
  const added: FileLine[] =
    replacement === '' ? [] : replacement.split('\n').map((text) => ({ text: text.replace(/\r$/, ''), eol }));
  const tail = added[added.length - 1];
  if (tail) tail.eol = last?.eol ?? eol;
  const result = [...before, ...added, ...after];
  if (added.length === 0 && after.length === 0 && last?.eol === '' && result.length > 0) {
    result[result.length - 1] = { ...result[result.length - 1]!, eol: '' };
  }
  return result.map((l) => l.text + l.eol).join('');
}

/** True when two ranges share a line. */
export function overlaps(a: LineRange, b: LineRange): boolean {
  return a.start <= b.end && b.start <= a.end;
}
