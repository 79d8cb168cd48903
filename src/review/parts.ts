/**
 * Coverage under a budget (CONTRACT §15): the files triage kept are packed into parts, each small
 * enough for one agent run (`review.max_diff_tokens` estimated tokens of annotated diff), at most
 * `review.max_parts` of them. A file's hunks stay together and related files (same directory, a
 * test beside the source it tests) share a part whenever they fit; when something must be left
 * out, source files go first and tests, docs and config last. Every hunk placed is in exactly one
 * part; what does not fit is listed as not reviewed.
 */
import { annotatedSizes, ANNOTATION_LEGEND } from './annotate.js';
import type { DiffHunk, FileDiff } from '../diff/diff.js';

/**
 * Characters per token assumed when estimating (conservative for code, whose tokens are shorter
 * than prose's ~4 characters).
 */
export const CHARS_PER_TOKEN = 3.5;

/** Estimated tokens of `chars` characters of annotated diff. */
export function estimateTokens(chars: number): number {
  return Math.ceil(chars / CHARS_PER_TOKEN);
}

/** One agent run's share of the diff. */
export interface DiffPart {
  /** Files (with the hunks of this part only), in the pull request's diff order. */
  files: FileDiff[];
  /** Estimated tokens of this part's annotated diff, legend included. */
  tokens: number;
}

/** How the kept files were split. */
export interface PartPlan {
  parts: DiffPart[];
  /** Paths of files with at least one hunk in no part, in diff order. */
  notReviewed: string[];
  /** Why each of `notReviewed` is (see `NOT_REVIEWED`). */
  notReviewedReasons: Record<string, string>;
  /** Number of kept files shown in full. */
  reviewedFiles: number;
}

/** Why a file is listed as not reviewed (the receipt's `notReviewedReasons`). */
export const NOT_REVIEWED = {
  /** No room left in `review.max_parts` parts of `review.max_diff_tokens`. */
  budget: 'over the budget (review.max_parts × review.max_diff_tokens)',
  /** A single diff line (with its annotation) larger than a whole part: never sent. */
  lineTooLong: 'a diff line larger than review.max_diff_tokens',
  /** The platform gave no patch for it (`FileDiff.tooLarge`, e.g. GitHub above its size limit). */
  noDiff: 'no diff from the platform',
} as const;

/** Limits of `planParts`. */
export interface PartLimits {
  /** `review.max_diff_tokens`: estimated tokens of annotated diff per part. */
  maxDiffTokens: number;
  /** `review.max_parts`. */
  maxParts: number;
}

/** Priority of a file when something must be left out: lower goes first. */
export type FileKind = 0 | 1 | 2 | 3;
const SOURCE: FileKind = 0;
const TEST: FileKind = 1;
const DOCS: FileKind = 2;
const CONFIG: FileKind = 3;

const TEST_PATH = /(?:^|\/)(?:__tests__|tests?|specs?)\/|[._-](?:test|spec)s?\.[^/]+$|(?:^|\/)test_[^/]+$/i;
const DOCS_PATH = /(?:^|\/)docs?\/|\.(?:md|mdx|rst|adoc|txt)$/i;
const CONFIG_PATH =
  /\.(?:json|ya?ml|toml|ini|cfg|conf|xml|properties|env|lock)$|(?:^|\/)(?:\.[^/]+|Dockerfile|Makefile)$/i;

/** Source (0), test (1), docs (2) or config (3), by path. */
export function kindOf(path: string): FileKind {
  if (TEST_PATH.test(path)) return TEST;
  if (DOCS_PATH.test(path)) return DOCS;
  if (CONFIG_PATH.test(path)) return CONFIG;
  return SOURCE;
}

function dirOf(path: string): string {
  const slash = path.lastIndexOf('/');
  return slash === -1 ? '' : path.slice(0, slash);
}

/** The base name without test markers and extensions: `foo.test.ts` → `foo`, `test_foo.py` → `foo`. */
function stemOf(path: string): string {
  const base = path.slice(path.lastIndexOf('/') + 1);
  return base
    .replace(/^test_/i, '')
    .replace(/\..*$/, '')
    .replace(/[._-](?:test|spec)s?$/i, '')
    .toLowerCase();
}

interface Unit {
  fileIndex: number;
  hunks: DiffHunk[];
  chars: number;
}

interface FileEntry {
  index: number;
  file: FileDiff;
  kind: FileKind;
  headerChars: number;
  hunkChars: number[];
  width: number;
  chars: number;
}

/** Splits a hunk whose lines do not fit `maxChars` into consecutive pieces with their own headers. */
function splitHunk(
  hunk: DiffHunk,
  lineChars: number[],
  maxChars: number,
): Array<{ hunk: DiffHunk; chars: number }> {
  const pieces: Array<{ hunk: DiffHunk; chars: number }> = [];
  let lines: DiffHunk['lines'] = [];
  let chars = 0;
  const flush = (): void => {
    if (lines.length === 0) return;
    const olds = lines.filter((l) => l.oldLine !== undefined).map((l) => l.oldLine!);
    const news = lines.filter((l) => l.newLine !== undefined).map((l) => l.newLine!);
    const oldStart = olds[0] ?? hunk.oldStart;
    const newStart = news[0] ?? hunk.newStart;
    const header = `@@ -${oldStart},${olds.length} +${newStart},${news.length} @@ (continued hunk)`;
    pieces.push({
      hunk: { oldStart, oldLines: olds.length, newStart, newLines: news.length, header, lines },
      chars: chars + header.length + 1,
    });
    lines = [];
    chars = 0;
  };
  const room = Math.max(1, maxChars - 120);
  for (const [i, line] of hunk.lines.entries()) {
    const cost = lineChars[i] ?? line.text.length;
    if (chars + cost > room) flush();
    lines.push(line);
    chars += cost;
  }
  flush();
  return pieces;
}

interface Packing {
  parts: Unit[][];
  used: number[];
  placedLines: Map<number, number>;
  tooLong: Set<number>;
}

/** Places `groups` in order: each whole into the first part with room, else file by file, else hunk by hunk. */
function pack(groups: FileEntry[][], budgetChars: number, maxParts: number): Packing {
  const parts: Unit[][] = [];
  const used: number[] = [];
  const placedLines = new Map<number, number>();
  const tooLong = new Set<number>();
  const fitting = (chars: number): number => {
    if (chars > budgetChars) return -1; // never a part over the budget
    const i = used.findIndex((u) => u + chars <= budgetChars);
    if (i !== -1) return i;
    if (parts.length >= maxParts) return -1;
    parts.push([]);
    used.push(0);
    return parts.length - 1;
  };
  const put = (part: number, unit: Unit): void => {
    parts[part]!.push(unit);
    used[part]! += unit.chars;
    const lines = unit.hunks.reduce((sum, h) => sum + h.lines.length, 0);
    placedLines.set(unit.fileIndex, (placedLines.get(unit.fileIndex) ?? 0) + lines);
  };
  const wholeUnit = (e: FileEntry): Unit => ({ fileIndex: e.index, hunks: e.file.hunks, chars: e.chars });

  for (const group of groups) {
    const members = [...group].sort((a, b) => a.kind - b.kind || a.index - b.index);
    const groupChars = members.reduce((sum, m) => sum + m.chars, 0);
    const whole = groupChars <= budgetChars ? fitting(groupChars) : -1;
    if (whole !== -1) {
      for (const m of members) put(whole, wholeUnit(m));
      continue;
    }
    for (const m of members) {
      const part = m.chars <= budgetChars ? fitting(m.chars) : -1;
      if (part !== -1) {
        put(part, wholeUnit(m));
        continue;
      }
      if (m.chars <= budgetChars) continue; // no room left anywhere: not reviewed
      // Larger than a part: hunk by hunk, the first piece carrying the file header.
      let header = m.headerChars;
      for (const [h, hunk] of m.file.hunks.entries()) {
        const chars = m.hunkChars[h]!;
        const pieces =
          chars + header <= budgetChars
            ? [{ hunk, chars }]
            : splitHunk(hunk, lineSizes(hunk, m.width), budgetChars - header);
        for (const piece of pieces) {
          const part = fitting(piece.chars + header);
          if (part === -1) {
            if (piece.chars + header > budgetChars) tooLong.add(m.index);
            continue;
          }
          put(part, { fileIndex: m.index, hunks: [piece.hunk], chars: piece.chars + header });
          header = 0;
        }
      }
    }
  }
  return { parts, used, placedLines, tooLong };
}

/**
 * Packs `files` (triage's kept files, diff order) into parts. Groups related files (a directory's
 * files plus tests elsewhere whose stem names one of them), orders groups source first, then
 * places each group whole into the first part with room, opening parts up to `maxParts`. When that
 * leaves something out, it packs again with the sources of every group first and the tests, docs
 * and config after them (in that order), so what is left out is never a source while a test is
 * shown. A group
 * that fits nowhere is placed file by file, and a file larger than a part hunk by hunk (a single
 * hunk larger than a part is cut into consecutive pieces, still each line once). No part is ever
 * over the budget: a piece that cannot fit one (a single line longer than a part) is not sent, and
 * its file is listed as not reviewed with that reason.
 */
export function planParts(files: FileDiff[], limits: PartLimits): PartPlan {
  const budgetChars = Math.max(
    1000,
    Math.floor(limits.maxDiffTokens * CHARS_PER_TOKEN) - ANNOTATION_LEGEND.length,
  );
  const entries: FileEntry[] = files.map((file, index) => {
    const sizes = annotatedSizes(file);
    const chars = sizes.header + sizes.hunks.reduce((a, b) => a + b, 0);
    return {
      index,
      file,
      kind: kindOf(file.path),
      headerChars: sizes.header,
      hunkChars: sizes.hunks,
      width: sizes.width,
      chars,
    };
  });

  // Related files: one group per directory; a test joins the directory of the source it names.
  const sourceDirByStem = new Map<string, string>();
  for (const e of entries)
    if (e.kind === SOURCE) sourceDirByStem.set(stemOf(e.file.path), dirOf(e.file.path));
  const groups = new Map<string, FileEntry[]>();
  for (const e of entries) {
    if (e.file.tooLarge) continue; // nothing to show: listed as not reviewed below
    const key =
      (e.kind === TEST ? sourceDirByStem.get(stemOf(e.file.path)) : undefined) ?? dirOf(e.file.path);
    const group = groups.get(key) ?? [];
    group.push(e);
    groups.set(key, group);
  }
  const ordered = [...groups.entries()]
    .map(([key, members]) => ({ key, members, kind: Math.min(...members.map((m) => m.kind)) }))
    .sort((a, b) => a.kind - b.kind || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));

  const fullyPlaced = (p: Packing): boolean =>
    entries.every(
      (e) =>
        e.file.tooLarge ||
        (p.placedLines.get(e.index) ?? -1) >= e.file.hunks.reduce((n, h) => n + h.lines.length, 0),
    );
  let packing = pack(
    ordered.map((g) => g.members),
    budgetChars,
    limits.maxParts,
  );
  if (!fullyPlaced(packing)) {
    // Something must be left out: the sources of every directory first, then tests, docs, config.
    const sources = ordered
      .map((g) => g.members.filter((m) => m.kind === SOURCE))
      .filter((g) => g.length > 0);
    const others = ordered
      .map((g) => g.members.filter((m) => m.kind !== SOURCE))
      .filter((g) => g.length > 0)
      .sort((x, y) => Math.min(...x.map((m) => m.kind)) - Math.min(...y.map((m) => m.kind)));
    packing = pack([...sources, ...others], budgetChars, limits.maxParts);
  }
  const { parts, used, placedLines, tooLong } = packing;

  const notReviewed: string[] = [];
  const notReviewedReasons: Record<string, string> = {};
  let reviewedFiles = 0;
  for (const e of entries) {
    const placed = placedLines.get(e.index);
    const total = e.file.hunks.reduce((sum, h) => sum + h.lines.length, 0);
    if (!e.file.tooLarge && placed !== undefined && placed >= total) reviewedFiles++;
    else {
      notReviewed.push(e.file.path);
      notReviewedReasons[e.file.path] = e.file.tooLarge
        ? NOT_REVIEWED.noDiff
        : tooLong.has(e.index)
          ? NOT_REVIEWED.lineTooLong
          : NOT_REVIEWED.budget;
    }
  }
  return {
    parts: parts.map((units, i) => ({
      files: partFiles(units, entries),
      tokens: estimateTokens(used[i]! + ANNOTATION_LEGEND.length),
    })),
    notReviewed,
    notReviewedReasons,
    reviewedFiles,
  };
}

/** Per-line annotated sizes of a hunk: two number columns, the bar, the marker and the text. */
function lineSizes(hunk: DiffHunk, width: number): number[] {
  return hunk.lines.map((line) => 2 * width + 6 + line.text.length);
}

function partFiles(units: Unit[], entries: FileEntry[]): FileDiff[] {
  const byFile = new Map<number, DiffHunk[]>();
  for (const unit of units)
    byFile.set(unit.fileIndex, [...(byFile.get(unit.fileIndex) ?? []), ...unit.hunks]);
  return [...byFile.keys()]
    .sort((a, b) => a - b)
    .map((index) => ({ ...entries[index]!.file, hunks: byFile.get(index)! }));
}
