/**
 * The diff as the model sees it: every hunk line carries its real old and new line numbers, so the
 * model can name `line`/`side` for a comment without counting lines itself.
 *
 * ```text
 * === src/app.ts (modified, +1 -1) ===
 * @@ -41,3 +43,3 @@ function main()
 *   41   43 │  context
 *   42      │- removed
 *        44 │+ added
 * ```
 */
import type { DiffHunk, FileDiff } from '../diff/diff.js';

/** Options of {@link annotateDiff}. */
export interface AnnotateOptions {
  /** Upper bound on the output's length in UTF-16 code units (≈ chars). Default {@link DEFAULT_MAX_CHARS}. */
  maxChars?: number;
}

/** Default output budget: about 100k tokens of diff, leaving room for the prompt and the agent's reads. */
export const DEFAULT_MAX_CHARS = 400_000;

/** The legend that opens every annotated diff. */
export const ANNOTATION_LEGEND =
  'Legend: each diff line is `OLD NEW │<marker> text` (marker "+" added, "-" removed, " " context). ' +
  'Comment on "+" and context lines with side RIGHT and the NEW number, on "-" lines with side LEFT ' +
  'and the OLD number; a multi-line range (start_line..line) must stay on one side within one hunk.';

/** Room kept for the "… more hunks omitted" line of a partly shown file, chars. */
const MARKER_RESERVE = 100;
/** Separator between the fixed-width number columns and the marker. */
const BAR = ' │';

interface Omitted {
  path: string;
  /** 1-based index of the first omitted hunk; 1 = the whole file. */
  fromHunk: number;
  hunkCount: number;
}

function digits(n: number): number {
  return n < 10 ? 1 : Math.floor(Math.log10(n)) + 1;
}

/** Column width for a file's line numbers: the widest number (the parser never numbers past a hunk's counts), at least 4. */
function widthOf(file: FileDiff): number {
  let max = 0;
  for (const hunk of file.hunks) {
    max = Math.max(max, hunk.oldStart + hunk.oldLines - 1, hunk.newStart + hunk.newLines - 1);
  }
  return Math.max(4, digits(max));
}

function headerOf(file: FileDiff): string {
  const details: string[] = [file.status];
  if (file.previousPath !== undefined) {
    details.push(`${file.status === 'copied' ? 'copied' : 'renamed'} from ${file.previousPath}`);
  }
  let adds = 0;
  let dels = 0;
  for (const hunk of file.hunks) {
    for (const line of hunk.lines) {
      if (line.kind === 'add') adds++;
      else if (line.kind === 'del') dels++;
    }
  }
  if (file.hunks.length > 0) details.push(`+${adds} -${dels}`);
  let note = '';
  if (file.binary) note = ' — binary file, no diff';
  else if (file.tooLarge) note = ' — diff too large to show; Read the file';
  else if (file.hunks.length === 0) note = ' — no content change';
  return `=== ${file.path} (${details.join(', ')})${note} ===`;
}

/** Exact length of a rendered hunk including newlines, without rendering it. */
function hunkLength(hunk: DiffHunk, width: number): number {
  let total = hunk.header.length + 1;
  const fixed = 2 * width + 1 + BAR.length + 2 + 1;
  for (const line of hunk.lines) total += fixed + line.text.length;
  return total;
}

function renderHunk(hunk: DiffHunk, width: number, out: string[]): void {
  out.push(hunk.header);
  const blank = ' '.repeat(width);
  for (const line of hunk.lines) {
    const oldCol = line.oldLine === undefined ? blank : String(line.oldLine).padStart(width);
    const newCol = line.newLine === undefined ? blank : String(line.newLine).padStart(width);
    const marker = line.kind === 'add' ? '+' : line.kind === 'del' ? '-' : ' ';
    out.push(`${oldCol} ${newCol}${BAR}${marker} ${line.text}`);
  }
}

/** The list of omitted files, cut to `room` chars with a "… and N more" line when needed. */
function renderFooter(omitted: Omitted[], room: number): string[] {
  if (omitted.length === 0) return [];
  const lines = ['', 'Omitted from this diff for size (the files are in the workspace; Read them):'];
  let used = lines[1]!.length + 2;
  if (used > room) return [];
  for (const [index, item] of omitted.entries()) {
    let what = `hunks ${item.fromHunk}-${item.hunkCount} of ${item.hunkCount}`;
    if (item.hunkCount === 0) what = 'no diff';
    else if (item.fromHunk === 1) what = `all ${item.hunkCount} hunk${item.hunkCount === 1 ? '' : 's'}`;
    const line = `- ${item.path} (${what})`;
    const rest = omitted.length - index;
    const moreLine = `- … and ${rest} more file${rest === 1 ? '' : 's'}`;
    const needsMore = index < omitted.length - 1;
    if (used + line.length + 1 + (needsMore ? moreLine.length + 1 : 0) > room) {
      if (used + moreLine.length + 1 <= room) lines.push(moreLine);
      break;
    }
    lines.push(line);
    used += line.length + 1;
  }
  return lines;
}

/** Rendered sizes of one file, chars: its header line, each hunk, and its number-column width. */
export interface AnnotatedSizes {
  header: number;
  hunks: number[];
  width: number;
}

/**
 * Exact lengths (newlines included) of what `annotateDiff` renders for `file` — its header line and
 * each hunk — without rendering it; used to budget parts of a large diff.
 */
export function annotatedSizes(file: FileDiff): AnnotatedSizes {
  const width = widthOf(file);
  return { header: headerOf(file).length + 1, hunks: file.hunks.map((h) => hunkLength(h, width)), width };
}

/**
 * Renders the pull request's diff for the model: a one-line legend, then per file a header
 * (`=== path (status, renamed from X, +adds -dels) ===`, or a note for binary, too-large and
 * unchanged files) and its hunks with `OLD NEW │<marker> text` lines.
 *
 * When the whole diff does not fit in `maxChars`, whole hunks are cut: files are taken in order,
 * each file's hunks while they fit (a file whose next hunk does not fit shows a "… omitted" line and
 * later files still get their chance), and a closing list names every omitted file and hunk range
 * so the model can Read them. The result is at most `maxChars` long unless the legend alone is
 * longer.
 *
 * @param files parsed diff (`toFileDiffs`).
 * @param options `maxChars`: output budget in chars, default {@link DEFAULT_MAX_CHARS}.
 * @returns the annotated diff, lines joined with `\n`, no trailing newline.
 */
export function annotateDiff(files: FileDiff[], options: AnnotateOptions = {}): string {
  const maxChars = options.maxChars ?? DEFAULT_MAX_CHARS;
  const widths = files.map(widthOf);
  const headers = files.map(headerOf);
  const hunkLengths = files.map((file, i) => file.hunks.map((hunk) => hunkLength(hunk, widths[i]!)));

  let fullLength = ANNOTATION_LEGEND.length;
  for (const [i, header] of headers.entries()) {
    fullLength += header.length + 1;
    for (const length of hunkLengths[i]!) fullLength += length;
  }
  const fits = fullLength <= maxChars;
  const footerRoom = fits ? 0 : Math.min(50_000, Math.floor(maxChars * 0.2));
  const budget = maxChars - footerRoom;

  const out: string[] = [ANNOTATION_LEGEND];
  let used = ANNOTATION_LEGEND.length;
  const omitted: Omitted[] = [];
  for (const [i, file] of files.entries()) {
    const header = headers[i]!;
    const lengths = hunkLengths[i]!;
    const headerCost = header.length + 1;
    if (lengths.length === 0) {
      if (fits || used + headerCost <= budget) {
        out.push(header);
        used += headerCost;
      } else {
        omitted.push({ path: file.path, fromHunk: 1, hunkCount: 0 });
      }
      continue;
    }
    let shown = 0;
    for (const [h, length] of lengths.entries()) {
      const cost = length + (h === 0 ? headerCost : 0);
      const reserve = h < lengths.length - 1 ? MARKER_RESERVE : 0;
      if (!fits && used + cost + reserve > budget) break;
      if (h === 0) out.push(header);
      renderHunk(file.hunks[h]!, widths[i]!, out);
      used += cost;
      shown++;
    }
    if (shown < lengths.length) {
      omitted.push({ path: file.path, fromHunk: shown + 1, hunkCount: lengths.length });
      if (shown > 0) {
        const rest = lengths.length - shown;
        const marker = `… ${rest} more hunk${rest === 1 ? '' : 's'} of this file omitted for size; Read the file`;
        out.push(marker);
        used += marker.length + 1;
      }
    }
  }
  for (const line of renderFooter(omitted, maxChars - used)) out.push(line);
  return out.join('\n');
}
