/**
 * Set-up shared by the `@<worker> apply` end-to-end tests on GitLab, Gitea, Bitbucket Cloud,
 * Bitbucket Data Center and Azure DevOps: a real repository whose head branch holds a CRLF file
 * without a final newline, the bot's finding on two of its lines (body, the platform's rendering of
 * the suggestion, the marker over the code), and readers of what the push left on the branch.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { fingerprintLines, normalizeLines } from '../../src/review/memory/fingerprint.js';
import { renderFindingMarker } from '../../src/review/memory/markers.js';
import { commitToBranch, createBareRepo, gitEnv } from '../support/git-fixtures.js';

const run = promisify(execFile);

/** The worker's username in these tests. */
export const APPLY_WORKER = 'work-bot';

/** The file the finding is on, its code, the suggestion and the file after applying it. */
export const APPLY_CASE = {
  path: 'src/win.ts',
  text: 'export const a = 1;\r\nexport function f(x: number) {\r\n  return x+1;\r\n}',
  /** The finding covers lines 3-4 (the thread's line is 4). */
  startLine: 3,
  line: 4,
  code: ['  return x+1;', '}'],
  findingText: 'Add spaces around the operator.\nSecond line of the finding.',
  suggestion: '  return x + 1;\n}',
  applied: 'export const a = 1;\r\nexport function f(x: number) {\r\n  return x + 1;\r\n}',
};

/**
 * The finding's body as the bot posts it: text, the platform's suggestion rendering (`render`, the
 * same function the platform uses), then the marker in HTML-comment form (wire platforms convert it
 * with `toWire`).
 */
export function applyFindingBody(render: (suggestion: string, lineCount: number) => string): string {
  const marker = renderFindingMarker({
    fp: fingerprintLines(APPLY_CASE.path, APPLY_CASE.code)!,
    side: 'RIGHT',
    n: normalizeLines(APPLY_CASE.code).length,
    severity: 'P2',
  });
  return [APPLY_CASE.findingText, render(APPLY_CASE.suggestion, APPLY_CASE.code.length), marker].join('\n\n');
}

/** A bare repository `fullName` under `root` with `main` and the `feature` branch holding the file. */
export interface ApplyRepo {
  bare: string;
  /** SHA of `feature`. */
  head(): Promise<string>;
  /** Bytes of `file` on `feature`. */
  show(file: string): Promise<Buffer>;
  /** `git log -1 --format=<format> <sha>`. */
  log(format: string, sha: string): Promise<string>;
  /** Files changed between two commits, one per line. */
  changed(from: string, to: string): Promise<string>;
}

/** Creates the repository of the apply tests (bare, `main` and `feature`). */
export function createApplyRepo(root: string, fullName: string): ApplyRepo {
  const bare = createBareRepo(path.join(root, 'repos'), fullName);
  commitToBranch(bare, { branch: 'main', message: 'base', changes: { write: { 'README.md': '# w\n' } } });
  commitToBranch(bare, {
    branch: 'feature',
    from: 'main',
    message: 'feature',
    changes: { write: { [APPLY_CASE.path]: APPLY_CASE.text } },
  });
  const git = async (args: string[]): Promise<string> =>
    (await run('git', [`--git-dir=${bare}`, ...args], { env: gitEnv() })).stdout;
  return {
    bare,
    head: async () => (await git(['rev-parse', 'refs/heads/feature'])).trim(),
    show: async (file) =>
      (
        await run('git', [`--git-dir=${bare}`, 'show', `feature:${file}`], {
          env: gitEnv(),
          encoding: 'buffer',
        })
      ).stdout as unknown as Buffer,
    log: (format, sha) => git(['log', '-1', `--format=${format}`, sha]),
    changed: (from, to) => git(['diff', '--name-only', from, to]),
  };
}

/** The reply the bot posts in the thread after pushing `sha` on `feature`. */
export function appliedText(sha: string): string {
  return `Applied this suggestion in commit ${sha} on \`feature\`, and resolved this thread.`;
}
