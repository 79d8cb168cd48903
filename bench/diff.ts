/**
 * Benchmark of the reviewer's diff core: parse + index + annotate + filter (+ review body) on a
 * generated 2,000-file pull request with 100,000 changed lines and 5,000 proposed findings.
 *
 * Run: `npm run bench:diff` (= `tsc -p tsconfig.build.json && node --expose-gc dist/bench/diff.js`).
 * Prints ONE JSON object on stdout:
 * `{"files","changedLines","findings","ms","baselineMs","peakRssMb","targets":{"ms","peakRssMb"},"pass",…}`
 * where `ms` is the median wall time of the pipeline over several runs, `baselineMs` the median
 * time of merely splitting every patch into lines, and `peakRssMb` the process's peak resident set
 * (`process.resourceUsage().maxRSS`, KiB → MiB). Exit code 1 when a target is missed.
 */
import { performance } from 'node:perf_hooks';
import type { ExistingComment, PullRequestFile } from '../src/platforms/types.js';
import { annotateDiff } from '../src/review/annotate.js';
import { buildReviewBody, renderInlineBody } from '../src/review/body.js';
import { toFileDiffs } from '../src/diff/diff.js';
import { DiffIndex } from '../src/diff/diff-index.js';
import { filterFindings } from '../src/review/filter.js';
import type { ProposedComment } from '../src/review/types.js';

const FILES = 2_000;
const CHANGED_LINES = 100_000;
const FINDINGS = 5_000;
const BOT_COMMENTS = 1_000;
const RUNS = 7;
const TARGETS = { ms: 1_000, peakRssMb: 300 };

/** Deterministic PRNG (mulberry32), so every run measures the same pull request. */
function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const random = prng(42);
const int = (min: number, max: number): number => min + Math.floor(random() * (max - min + 1));
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
const code = (n: number): string =>
  `    const value${n} = compute(input.field${n % 97}, options); // step ${n}`;

/** Line ranges of one generated hunk, per side, to aim findings at. */
interface HunkRange {
  oldFirst: number;
  oldLast: number;
  newFirst: number;
  newLast: number;
  dels: number[];
}

interface GeneratedFile {
  file: PullRequestFile;
  hunks: HunkRange[];
}

/** One hunk with `changed` changed lines: 3 lines of context around runs of removals and additions. */
function makeHunk(
  oldStart: number,
  newStart: number,
  changed: number,
  out: string[],
): HunkRange & { oldLines: number; newLines: number } {
  const body: string[] = [];
  let oldLine = oldStart;
  let newLine = newStart;
  const dels: number[] = [];
  const context = (): void => {
    body.push(` ${code(oldLine)}`);
    oldLine++;
    newLine++;
  };
  for (let i = 0; i < 3; i++) context();
  let left = changed;
  while (left > 0) {
    const run = Math.min(left, int(1, 6));
    const kind = random();
    for (let i = 0; i < run; i++) {
      const isDel = kind < 0.35 || (kind < 0.6 && i < run / 2);
      if (isDel) {
        dels.push(oldLine);
        body.push(`-${code(oldLine++)}`);
      } else {
        body.push(`+${code(newLine++)} // new`);
      }
    }
    left -= run;
    if (left > 0) for (let i = int(1, 2); i > 0; i--) context();
  }
  for (let i = 0; i < 3; i++) context();
  const oldLines = oldLine - oldStart;
  const newLines = newLine - newStart;
  out.push(`@@ -${oldStart},${oldLines} +${newStart},${newLines} @@ function block${oldStart}()`, ...body);
  return {
    oldFirst: oldStart,
    oldLast: oldLine - 1,
    newFirst: newStart,
    newLast: newLine - 1,
    dels,
    oldLines,
    newLines,
  };
}

function generateFiles(): GeneratedFile[] {
  const weights = Array.from({ length: FILES }, () => 0.2 + random() * random() * 4);
  const total = weights.reduce((a, b) => a + b, 0);
  const counts = weights.map((w) => Math.max(1, Math.round((w / total) * CHANGED_LINES)));
  counts[FILES - 1]! += CHANGED_LINES - counts.reduce((a, b) => a + b, 0);
  const files: GeneratedFile[] = [];
  for (const [f, count] of counts.entries()) {
    const path = `packages/pkg-${f % 40}/src/module-${f}/file-${f}.ts`;
    if (f % 125 === 7) {
      // Binary files and pure renames: no patch, no changed lines (their share moves to the next file).
      const file: PullRequestFile =
        f % 250 === 7
          ? { path: `assets/img-${f}.png`, status: 'modified', additions: 0, deletions: 0 }
          : { path, previousPath: `${path}.old`, status: 'renamed', additions: 0, deletions: 0 };
      files.push({ file, hunks: [] });
      counts[f + 1]! += count;
      continue;
    }
    const out: string[] = [];
    const hunks: HunkRange[] = [];
    const hunkCount = Math.max(1, Math.min(count, int(1, 6)));
    let oldStart = int(1, 40);
    let delta = 0;
    let left = count;
    for (let h = 0; h < hunkCount; h++) {
      const changed = h === hunkCount - 1 ? left : Math.max(1, Math.floor(left / (hunkCount - h)));
      left -= changed;
      const hunk = makeHunk(oldStart, oldStart + delta, changed, out);
      hunks.push(hunk);
      delta += hunk.newLines - hunk.oldLines;
      oldStart += hunk.oldLines + int(10, 200);
    }
    const file: PullRequestFile = {
      path,
      status: 'modified',
      additions: out.filter((l) => l.startsWith('+')).length,
      deletions: out.filter((l) => l.startsWith('-')).length,
      patch: out.join('\n'),
    };
    files.push({ file, hunks });
  }
  return files;
}

function generateFindings(files: GeneratedFile[]): ProposedComment[] {
  const withHunks = files.filter((f) => f.hunks.length > 0);
  const findings: ProposedComment[] = [];
  for (let i = 0; i < FINDINGS; i++) {
    const { file, hunks } = pick(withHunks);
    const hunk = pick(hunks);
    const body = `Finding ${i}: this value may be stale when the cache is refreshed concurrently.`;
    const roll = random();
    const base: ProposedComment = {
      path: file.path,
      line: int(hunk.newFirst, hunk.newLast),
      side: 'RIGHT',
      body,
      severity: 'P2',
      confidence: null,
    };
    if (roll < 0.4) findings.push(base);
    else if (roll < 0.55) {
      const start = int(hunk.newFirst, hunk.newLast - 1);
      findings.push({
        ...base,
        startLine: start,
        line: int(start + 1, hunk.newLast),
        suggestion: 'return cached();',
      });
    } else if (roll < 0.65 && hunk.dels.length > 0) {
      findings.push({
        ...base,
        side: 'LEFT',
        line: pick(hunk.dels),
        suggestion: random() < 0.3 ? 'x' : undefined,
      });
    } else if (roll < 0.8) findings.push({ ...base, line: hunk.newLast + int(2, 9) });
    else if (roll < 0.85 && hunks.length > 1) {
      findings.push({ ...base, startLine: hunks[0]!.newLast, line: hunks[1]!.newFirst });
    } else if (roll < 0.9) findings.push({ ...base, path: `${file.path}.orig` });
    else findings.push({ ...base, suggestion: 'const value = compute(input, options);' });
  }
  return findings;
}

function generateBotComments(findings: ProposedComment[]): ExistingComment[] {
  const comments: ExistingComment[] = [];
  for (let i = 0; i < BOT_COMMENTS; i++) {
    const source = pick(findings);
    // Half repeat a proposed finding verbatim (duplicates), half are older unrelated remarks.
    const body = i % 2 === 0 && source.suggestion === undefined ? source.body : `Earlier remark ${i}`;
    comments.push({
      id: String(i),
      kind: 'review_comment',
      authorUsername: 'reviewbot[bot]',
      body,
      path: source.path,
      line: source.line,
      side: source.side,
      createdAt: '2026-01-01T00:00:00Z',
    });
  }
  return comments;
}

const renderSuggestion = (text: string): string => `\`\`\`suggestion\n${text}\n\`\`\``;

function pipeline(files: PullRequestFile[], findings: ProposedComment[], botComments: ExistingComment[]) {
  const diffs = toFileDiffs(files);
  const index = DiffIndex.fromFiles(diffs);
  const annotated = annotateDiff(diffs);
  const result = filterFindings(findings, index, botComments, {
    renderBody: (f) => renderInlineBody(f, renderSuggestion),
  });
  const body = buildReviewBody('Summary of the review.', result.rejected);
  return { annotatedChars: annotated.length, bodyChars: body.length, ...result };
}

function baseline(files: PullRequestFile[]): number {
  let lines = 0;
  for (const file of files) if (file.patch !== undefined) lines += file.patch.split('\n').length;
  return lines;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

function time<T>(fn: () => T): { ms: number; value: T } {
  globalThis.gc?.();
  const started = performance.now();
  const value = fn();
  return { ms: performance.now() - started, value };
}

const generated = generateFiles();
const files = generated.map((g) => g.file);
const findings = generateFindings(generated);
const botComments = generateBotComments(findings);
const changedLines = files.reduce((sum, f) => sum + f.additions + f.deletions, 0);
// The generator and the parser must agree, or the numbers below measure the wrong thing.
const parsedChanged = toFileDiffs(files)
  .flatMap((d) => d.hunks)
  .reduce((sum, h) => sum + h.lines.filter((l) => l.kind !== 'context').length, 0);
if (parsedChanged !== changedLines || changedLines !== CHANGED_LINES) {
  throw new Error(
    `generated ${changedLines} changed lines, parsed ${parsedChanged}, wanted ${CHANGED_LINES}`,
  );
}

const runs: number[] = [];
const baselineRuns: number[] = [];
let last: ReturnType<typeof pipeline> | undefined;
for (let run = 0; run <= RUNS; run++) {
  const measured = time(() => pipeline(files, findings, botComments));
  const base = time(() => baseline(files));
  // Run 0 warms up the JIT and is not counted.
  if (run > 0) {
    runs.push(measured.ms);
    baselineRuns.push(base.ms);
  }
  last = measured.value;
}

const ms = Math.round(median(runs) * 10) / 10;
const baselineMs = Math.round(median(baselineRuns) * 10) / 10;
const peakRssMb = Math.round((process.resourceUsage().maxRSS / 1024) * 10) / 10;
const pass = ms <= TARGETS.ms && peakRssMb <= TARGETS.peakRssMb;
console.log(
  JSON.stringify({
    files: files.length,
    changedLines,
    findings: findings.length,
    ms,
    baselineMs,
    peakRssMb,
    targets: TARGETS,
    pass,
    runs: RUNS,
    kept: last?.kept.length,
    rejected: last?.rejected.length,
    duplicates: last?.duplicates.length,
    annotatedChars: last?.annotatedChars,
  }),
);
if (!pass) process.exitCode = 1;
