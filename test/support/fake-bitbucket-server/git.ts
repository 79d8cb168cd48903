/**
 * The fake's git side, as Bitbucket Data Center computes it: a pull request's effective diff is
 * `git diff toRef...fromRef`; `compare/*?from=A&to=B` are the changes in `A` not in `B`
 * (`git diff B...A`, commits `B..A`). JSON diffs (`RestDiff`) are built from git's hunks.
 */
import { computeDiffFiles, gitOutput, type DiffFile } from '../fake-github/diff.js';

export { fileAt, mergeBase, revParse } from '../fake-bitbucket-cloud/git.js';

/** Changed files of `head` against `base` (three-dot). */
export function changedFiles(repoPath: string, base: string, head: string): Promise<DiffFile[]> {
  return computeDiffFiles(repoPath, base, head);
}

/** Commits of `head` not in `base`, newest first. */
export async function commitsBetween(repoPath: string, base: string, head: string): Promise<string[]> {
  const out = (await gitOutput(repoPath, ['rev-list', `${base}..${head}`])).trim();
  return out === '' ? [] : out.split('\n');
}

/** `RestPath` of `path`. */
export function restPath(path: string) {
  const components = path.split('/');
  const name = components.at(-1) ?? '';
  const dot = name.lastIndexOf('.');
  return {
    components,
    parent: components.slice(0, -1).join('/'),
    name,
    ...(dot > 0 ? { extension: name.slice(dot + 1) } : {}),
    toString: path,
  };
}

const HUNK = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;
const TYPES: Record<string, string> = { '+': 'ADDED', '-': 'REMOVED', ' ': 'CONTEXT' };

/** One line of a diff with its type and numbers, as Data Center anchors them. */
export interface NumberedLine {
  type: 'ADDED' | 'REMOVED' | 'CONTEXT';
  /** Old-file line (REMOVED, CONTEXT). */
  source?: number;
  /** New-file line (ADDED, CONTEXT). */
  destination?: number;
  text: string;
}

/** The hunks of a unified `patch` with numbered lines. */
export function hunksOf(patch: string | undefined) {
  const hunks: Array<{
    sourceLine: number;
    sourceSpan: number;
    destinationLine: number;
    destinationSpan: number;
    lines: NumberedLine[];
  }> = [];
  let oldPos = 0;
  let newPos = 0;
  for (const text of (patch ?? '').split('\n')) {
    const head = HUNK.exec(text);
    if (head) {
      oldPos = Number(head[1]);
      newPos = Number(head[3]);
      hunks.push({
        sourceLine: oldPos,
        sourceSpan: Number(head[2] ?? '1'),
        destinationLine: newPos,
        destinationSpan: Number(head[4] ?? '1'),
        lines: [],
      });
      continue;
    }
    const hunk = hunks.at(-1);
    const type = TYPES[text[0] ?? ''] as NumberedLine['type'] | undefined;
    if (!hunk || !type) continue;
    const line: NumberedLine = { type, text: text.slice(1) };
    if (type !== 'ADDED') line.source = oldPos++;
    if (type !== 'REMOVED') line.destination = newPos++;
    hunk.lines.push(line);
  }
  return hunks;
}

/** `RestDiff` of `files`: hunks of segments (runs of one line type). */
export function restDiff(files: DiffFile[]) {
  return {
    diffs: files.map((f) => ({
      ...(f.status === 'added' ? {} : { source: restPath(f.previousFilename ?? f.filename) }),
      ...(f.status === 'removed' ? {} : { destination: restPath(f.filename) }),
      hunks: hunksOf(f.patch).map((h) => {
        const segments: Array<{
          type: string;
          lines: Array<{ source: number; destination: number; line: string }>;
        }> = [];
        for (const l of h.lines) {
          let seg = segments.at(-1);
          if (seg?.type !== l.type) {
            seg = { type: l.type, lines: [] };
            segments.push(seg);
          }
          seg.lines.push({ source: l.source ?? 0, destination: l.destination ?? 0, line: l.text });
        }
        return {
          sourceLine: h.sourceLine,
          sourceSpan: h.sourceSpan,
          destinationLine: h.destinationLine,
          destinationSpan: h.destinationSpan,
          segments,
          truncated: false,
        };
      }),
      truncated: false,
    })),
    truncated: false,
  };
}
