/**
 * Ready-made pull-request repositories for tests (re-exported by `test/support/git-fixtures.ts`).
 * The line numbers in each description were worked out by hand from the file contents below, not
 * computed by any diff code under test, so tests can use them as independent expectations.
 */
import { join } from 'node:path';
import { cloneWorkingCopy, createBareRepo } from '../git-fixtures.js';

/** The paths `createDiffScenario` changes, by role. */
export const SCENARIO_PATHS = {
  /** ~60-line file with two hunks (near the start and near the end). */
  modified: 'src/service.ts',
  added: 'docs/guide.md',
  removed: 'old/legacy.txt',
  /** Renamed from `renamedFrom` with a one-line edit. */
  renamed: 'lib/util.ts',
  renamedFrom: 'lib/util-old.ts',
  /** Changed bytes; no patch. */
  binary: 'assets/logo.bin',
  /** Ends without a newline before and after the change. */
  noNewline: 'config/settings.ini',
  /** Changed on `main` after `feature` branched: must not be in the merge-base diff. */
  baseOnly: 'README.md',
} as const;

/** What a test may rely on for one file of a scenario's diff. */
export interface ScenarioFile {
  path: string;
  status: 'added' | 'removed' | 'modified' | 'renamed';
  previousPath?: string;
  binary: boolean;
  /** Line numbers (new file) of added lines: valid RIGHT lines. */
  added: number[];
  /** Line numbers (old file) of removed lines: valid LEFT lines. */
  removed: number[];
  /** Context lines as old (`left`) and new (`right`) numbers: valid on both sides. */
  context: Array<{ left: number; right: number }>;
  /** Hunk ranges as in the `@@ -oldStart,oldLines +newStart,newLines @@` headers. */
  hunks: Array<{ oldStart: number; oldLines: number; newStart: number; newLines: number }>;
  /** A line number that is on neither side of the diff. */
  invalidLine: number;
}

/** A repository with base branch `main` and head branch `feature`, see `createDiffScenario`. */
export interface DiffScenario {
  fullName: string;
  bareRepoPath: string;
  base: 'main';
  head: 'feature';
  /** Tip of `main` (after the base-only commit). */
  baseSha: string;
  /** Tip of `feature`. */
  headSha: string;
  /** Where `feature` branched off `main`. */
  mergeBaseSha: string;
  /** Expected diff files keyed by (new) path; `SCENARIO_PATHS.baseOnly` is not among them. */
  files: Record<string, ScenarioFile>;
}

function range(from: number, to: number): number[] {
  const out: number[] = [];
  for (let i = from; i <= to; i += 1) out.push(i);
  return out;
}

function lines(values: string[]): string {
  return values.map((v) => `${v}\n`).join('');
}

function serviceLines(): string[] {
  return range(1, 60).map((i) => `export const v${i} = ${i};`);
}

function utilLines(): string[] {
  return range(1, 20).map((i) => `export function f${i}(): number { return ${i}; }`);
}

function binaryBytes(seed: number): Buffer {
  const bytes = Buffer.alloc(512);
  for (let i = 0; i < bytes.length; i += 1) bytes[i] = (i * seed) % 256;
  return bytes;
}

function expectedFiles(): Record<string, ScenarioFile> {
  const p = SCENARIO_PATHS;
  const files: ScenarioFile[] = [
    {
      path: p.modified,
      status: 'modified',
      binary: false,
      added: [3, 58, 59],
      removed: [3, 56],
      context: [
        ...[1, 2, 4, 5, 6, 53, 54, 55].map((n) => ({ left: n, right: n })),
        { left: 57, right: 56 },
        { left: 58, right: 57 },
        { left: 59, right: 60 },
        { left: 60, right: 61 },
      ],
      hunks: [
        { oldStart: 1, oldLines: 6, newStart: 1, newLines: 6 },
        { oldStart: 53, oldLines: 8, newStart: 53, newLines: 9 },
      ],
      invalidLine: 30,
    },
    {
      path: p.added,
      status: 'added',
      binary: false,
      added: range(1, 5),
      removed: [],
      context: [],
      hunks: [{ oldStart: 0, oldLines: 0, newStart: 1, newLines: 5 }],
      invalidLine: 9,
    },
    {
      path: p.removed,
      status: 'removed',
      binary: false,
      added: [],
      removed: range(1, 4),
      context: [],
      hunks: [{ oldStart: 1, oldLines: 4, newStart: 0, newLines: 0 }],
      invalidLine: 9,
    },
    {
      path: p.renamed,
      previousPath: p.renamedFrom,
      status: 'renamed',
      binary: false,
      added: [10],
      removed: [10],
      context: [7, 8, 9, 11, 12, 13].map((n) => ({ left: n, right: n })),
      hunks: [{ oldStart: 7, oldLines: 7, newStart: 7, newLines: 7 }],
      invalidLine: 2,
    },
    {
      path: p.binary,
      status: 'modified',
      binary: true,
      added: [],
      removed: [],
      context: [],
      hunks: [],
      invalidLine: 1,
    },
    {
      path: p.noNewline,
      status: 'modified',
      binary: false,
      added: [3, 4],
      removed: [3],
      context: [
        { left: 1, right: 1 },
        { left: 2, right: 2 },
      ],
      hunks: [{ oldStart: 1, oldLines: 3, newStart: 1, newLines: 4 }],
      invalidLine: 7,
    },
  ];
  return Object.fromEntries(files.map((f) => [f.path, f]));
}

/**
 * Builds `<root>/<owner>/<repo>.git` with `main` and `feature` so that `git diff main...feature`
 * holds one file of each kind (see `SCENARIO_PATHS`): a modified file with two hunks (line 3
 * changed; old line 56 removed and two lines inserted after old line 58), an added file (5 lines),
 * a deleted file (4 lines), a rename with line 10 edited, a binary file with changed bytes and a
 * file without newline at end (`alpha beta gamma` → `alpha beta gamma delta`). After `feature`
 * branched, `main` gets one more commit changing `README.md`. Throws when git fails.
 */
export function createDiffScenario(root: string, fullName: string): DiffScenario {
  const p = SCENARIO_PATHS;
  const bareRepoPath = createBareRepo(root, fullName);
  const copy = cloneWorkingCopy(bareRepoPath, join(root, '.work', fullName));
  copy.checkout('main');
  const mergeBaseSha = copy.commit('base', {
    write: {
      [p.baseOnly]: '# widgets\n',
      [p.modified]: lines(serviceLines()),
      [p.removed]: lines(range(1, 4).map((i) => `legacy ${i}`)),
      [p.renamedFrom]: lines(utilLines()),
      [p.binary]: binaryBytes(7),
      [p.noNewline]: 'alpha\nbeta\ngamma',
    },
  });
  copy.push('main');

  copy.checkout('feature', 'main');
  const service = serviceLines();
  service[2] = 'export const v3 = 300;';
  service.splice(58, 0, "export const extraA = 'a';", "export const extraB = 'b';");
  service.splice(55, 1);
  const util = utilLines();
  util[9] = 'export function f10(): number { return 1000; }';
  const headSha = copy.commit('feature work', {
    rename: [[p.renamedFrom, p.renamed]],
    delete: [p.removed],
    write: {
      [p.modified]: lines(service),
      [p.added]: lines(range(1, 5).map((i) => `Guide line ${i}.`)),
      [p.renamed]: lines(util),
      [p.binary]: binaryBytes(13),
      [p.noNewline]: 'alpha\nbeta\ngamma\ndelta',
    },
  });
  copy.push('feature');

  copy.checkout('main');
  const baseSha = copy.commit('base moves on', { write: { [p.baseOnly]: '# widgets\n\nMore words.\n' } });
  copy.push('main');
  return {
    fullName,
    bareRepoPath,
    base: 'main',
    head: 'feature',
    baseSha,
    headSha,
    mergeBaseSha,
    files: expectedFiles(),
  };
}

/** A repository whose `feature` branch adds `paths.length` one-line files. */
export interface ManyFilesScenario {
  fullName: string;
  bareRepoPath: string;
  base: 'main';
  head: 'feature';
  baseSha: string;
  headSha: string;
  /** Added paths in git's (byte-wise sorted) order. */
  paths: string[];
}

/** Builds a repository whose `main...feature` diff adds `count` files `many/file-NNNN.txt`. */
export function createManyFilesScenario(root: string, fullName: string, count: number): ManyFilesScenario {
  const bareRepoPath = createBareRepo(root, fullName);
  const copy = cloneWorkingCopy(bareRepoPath, join(root, '.work', fullName));
  copy.checkout('main');
  const baseSha = copy.commit('base', { write: { 'README.md': '# many\n' } });
  copy.push('main');
  copy.checkout('feature', 'main');
  const paths = range(1, count).map((i) => `many/file-${String(i).padStart(4, '0')}.txt`);
  const write: Record<string, string> = {};
  for (const path of paths) write[path] = `content of ${path}\n`;
  const headSha = copy.commit('many files', { write });
  copy.push('feature');
  return { fullName, bareRepoPath, base: 'main', head: 'feature', baseSha, headSha, paths };
}
