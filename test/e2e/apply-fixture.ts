/**
 * The scenario of the `@<worker> apply` end-to-end tests on GitLab, Gitea, Bitbucket Cloud,
 * Bitbucket Data Center and Azure DevOps (`apply-finding-platforms.test.ts`): a real repository
 * whose head branch holds the files the findings sit on (a CRLF file without a final newline, a
 * range that shrinks, a range starting with a blank line, code the pull request removed, code that
 * changed since its finding, overlapping findings), the bot's findings on them, and the interface
 * each platform's adapter implements over its fake (`apply-adapters-*.ts`).
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { fingerprintLines, normalizeLines } from '../../src/review/memory/fingerprint.js';
import { renderFindingMarker } from '../../src/review/memory/markers.js';
import { commitToBranch, createBareRepo, gitEnv } from '../support/git-fixtures.js';

const run = promisify(execFile);

/** The worker's username in these tests (what `@…` mentions). */
export const APPLY_WORKER = 'work-bot';
/** Pull request number of the tests. */
export const APPLY_PR = 7;

/** The base branch: a line the pull request removes (the LEFT finding's code). */
const BASE_FILES = { 'README.md': '# w\n', 'src/old.ts': 'const removed = 1;\nconst kept = 2;\n' };
/** The head branch's files. */
const HEAD_FILES = {
  'src/win.ts': 'export const a = 1;\r\nexport function f(x: number) {\r\n  return x+1;\r\n}',
  'src/calc.ts': 'export function g(n: number) {\n  let r = n;\n  r = r * 2;\n  return r;\n}\n',
  'src/old.ts': 'const kept = 2;\n',
  'src/stale.ts': 'export const now = 2;\n',
  'src/plain.ts': 'export const limit = 10;\n',
  'src/many.ts': 'one\ntwo\nthree\nfour\nfive\nsix\n',
  'src/gap.ts': 'a();\n\n  b();\nc();\n',
  'src/retry.ts': 'export const retries = 3;\n',
};

/** A finding of the bot as the tests seed it. */
export interface FindingSeed {
  path: string;
  /** The thread's (last) line, on `side`. */
  line: number;
  /** First line of a multi-line thread. */
  startLine?: number;
  side: 'LEFT' | 'RIGHT';
  text: string;
  /** The code the marker's fingerprint covers (what the bot saw when it posted). */
  code: string[];
  suggestion?: string;
}

/** The findings, by name. Severity P1 (`stats` counts them there). */
export const SEEDS = {
  /** Two lines of a CRLF file without a final newline. */
  win: {
    path: 'src/win.ts',
    startLine: 3,
    line: 4,
    side: 'RIGHT',
    text: 'Add spaces around the operator.\nSecond line of the finding.',
    code: ['  return x+1;', '}'],
    suggestion: '  return x + 1;\n}',
  },
  /** Two lines replaced by one. */
  calc: {
    path: 'src/calc.ts',
    startLine: 2,
    line: 3,
    side: 'RIGHT',
    text: 'Fold the two statements.',
    code: ['  let r = n;', '  r = r * 2;'],
    suggestion: '  const r = n * 2;',
  },
  /** A range starting with a blank line (the marker counts only non-blank lines). */
  gap: {
    path: 'src/gap.ts',
    startLine: 2,
    line: 3,
    side: 'RIGHT',
    text: 'Drop the blank line.',
    code: ['', '  b();'],
    suggestion: '  b();',
  },
  /** On the old side: code the pull request removed. */
  left: {
    path: 'src/old.ts',
    line: 1,
    side: 'LEFT',
    text: 'Why was this removed?',
    code: ['const removed = 1;'],
    suggestion: 'const removed = 1;',
  },
  /** Its code changed since it was posted. */
  stale: {
    path: 'src/stale.ts',
    line: 1,
    side: 'RIGHT',
    text: 'Name the constant.',
    code: ['export const old = 1;'],
    suggestion: 'export const NAMED = 1;',
  },
  /** No suggestion: the agent applies it. */
  plain: {
    path: 'src/plain.ts',
    line: 1,
    side: 'RIGHT',
    text: 'The limit should be configurable.',
    code: ['export const limit = 10;'],
  },
  /** `apply all`: A and C apply; B overlaps A. */
  manyA: { path: 'src/many.ts', line: 2, side: 'RIGHT', text: 'A', code: ['two'], suggestion: 'TWO' },
  manyB: {
    path: 'src/many.ts',
    startLine: 2,
    line: 3,
    side: 'RIGHT',
    text: 'B',
    code: ['two', 'three'],
    suggestion: 'X',
  },
  manyC: {
    path: 'src/many.ts',
    line: 5,
    side: 'RIGHT',
    text: 'C',
    code: ['five'],
    suggestion: 'FIVE\nFIVE-B',
  },
  /** Applied while the platform refuses to resolve its thread. */
  retry: {
    path: 'src/retry.ts',
    line: 1,
    side: 'RIGHT',
    text: 'Read the retry count from the configuration.',
    code: ['export const retries = 3;'],
    suggestion: 'export const retries = config.retries;',
  },
} satisfies Record<string, FindingSeed>;

/** The name of a seeded finding. */
export type SeedName = keyof typeof SEEDS;

/** Lines a seed's suggestion replaces: its thread's lines. */
export function seedLineCount(seed: FindingSeed): number {
  return seed.startLine !== undefined ? seed.line - seed.startLine + 1 : 1;
}

/**
 * The finding's body as the bot posts it: text, the platform's rendering of the suggestion
 * (`render`, the platform's own `renderSuggestion`), then the marker in HTML-comment form (the
 * Markdown-only platforms' adapters convert it with `toWire`).
 */
export function findingBody(
  seed: FindingSeed,
  render: (suggestion: string, lineCount: number) => string,
): string {
  const marker = renderFindingMarker({
    fp: fingerprintLines(seed.path, seed.code)!,
    side: seed.side,
    n: normalizeLines(seed.code).length,
    severity: 'P1',
  });
  const suggestion = seed.suggestion !== undefined ? [render(seed.suggestion, seedLineCount(seed))] : [];
  return [seed.text, ...suggestion, marker].join('\n\n');
}

/** The bare repository of the tests, and readers of what pushes left on `feature`. */
export interface ApplyRepo {
  bare: string;
  /** SHA of `feature`. */
  head(): Promise<string>;
  /** SHA of `main`. */
  base(): Promise<string>;
  /** Bytes of `file` on `feature`. */
  show(file: string): Promise<Buffer>;
  /** `git log -1 --format=<format> <rev>`. */
  log(format: string, rev: string): Promise<string>;
  /** Files changed between two commits, one per line. */
  changed(from: string, to: string): Promise<string>;
}

/** Creates `fullName` under `root`: `main` (base files) and `feature` (the head files). */
export function createApplyRepo(root: string, fullName: string): ApplyRepo {
  const bare = createBareRepo(path.join(root, 'repos'), fullName);
  commitToBranch(bare, { branch: 'main', message: 'base', changes: { write: BASE_FILES } });
  commitToBranch(bare, {
    branch: 'feature',
    from: 'main',
    message: 'feature',
    changes: { write: HEAD_FILES },
  });
  const git = async (args: string[]): Promise<string> =>
    (await run('git', [`--git-dir=${bare}`, ...args], { env: gitEnv() })).stdout;
  return {
    bare,
    head: async () => (await git(['rev-parse', 'refs/heads/feature'])).trim(),
    base: async () => (await git(['rev-parse', 'refs/heads/main'])).trim(),
    show: async (file) =>
      (
        await run('git', [`--git-dir=${bare}`, 'show', `feature:${file}`], {
          env: gitEnv(),
          encoding: 'buffer',
        })
      ).stdout as unknown as Buffer,
    log: (format, rev) => git(['log', '-1', `--format=${format}`, rev]),
    changed: (from, to) => git(['diff', '--name-only', from, to]),
  };
}

/** Who writes a comment: `alice` is in `access.allowed_users`, `mallory` is not. */
export type Commenter = 'alice' | 'mallory';

/** A webhook delivery's answer. */
export interface HookAnswer {
  status: number;
  json: Record<string, unknown>;
}

/**
 * One platform under test, over its fake: starts it with pull request 7 of the repository, seeds
 * the bot's findings, writes comments as a person would and delivers their webhooks, and reads
 * back what the bot posted.
 */
export interface ApplyAdapter {
  /** Display name, e.g. `Bitbucket Data Center`. */
  readonly name: string;
  /** The `<platform>` of `reviewbot stats <platform>:<repo>` and of the metrics' label. */
  readonly platform: string;
  /** The repository's full name on the platform. */
  readonly repoFullName: string;
  /** The worker's username (what `@…` mentions). */
  readonly worker: string;
  /** How the commit message names alice (`Requested by …`). */
  readonly requester: string;
  /**
   * Starts the fake with pull request 7 on `repo` and returns the environment `reviewbot serve`
   * needs for it (token, URL, webhook secret, bot names, `ALLOWED_USERS` = alice).
   */
  start(repo: ApplyRepo): Promise<Record<string, string>>;
  /** Seeds the bot's finding `seed` (body from `findingBody`); returns its handle. */
  seedFinding(seed: FindingSeed): Promise<string>;
  /** `who` replies `text` in the thread of finding `handle`; the webhook goes to `serverUrl`. */
  reply(serverUrl: string, handle: string, text: string, who: Commenter): Promise<HookAnswer>;
  /** `who` writes `text` as a top-level comment of the pull request. */
  comment(serverUrl: string, text: string, who: Commenter): Promise<HookAnswer>;
  /** Texts of the bot's replies in the thread of finding `handle`, oldest first. */
  botReplies(handle: string): string[];
  /** Texts of everything the bot wrote on the pull request, oldest first. */
  botTexts(): string[];
  /** True when the platform shows the finding's thread resolved (its own resolution). */
  resolved(handle: string): boolean;
  /**
   * Makes the platform refuse the next thread resolution, as it does for lack of permission or of
   * the API; returns what undoes it.
   */
  refuseResolution(): () => void;
  /** What the reply says about a refused resolution (the platform's reason). */
  readonly refusedReason: RegExp;
  /**
   * True when the platform, refused, marks the thread addressed another way (Gitea's marked reply),
   * so `stats` still counts it addressed.
   */
  readonly refusedCountsAddressed: boolean;
  /** Requests the fake found invalid. */
  violations(): unknown[];
  close(): Promise<void>;
}
