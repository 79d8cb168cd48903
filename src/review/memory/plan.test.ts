import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PlatformError } from '../../errors.js';
import type { CommitComparison, Platform, PullRequestFile, ReviewThread } from '../../platforms/types.js';
import { toFileDiffs } from '../../diff/diff.js';
import type { Finding } from '../types.js';
import { addressedSection, findAddressed } from './addressed.js';
import { fingerprintLines } from './fingerprint.js';
import { planReview } from './plan.js';
import { repeatsNotice, splitRepeats } from './repeats.js';
import { earlierFindings, lastReviewMarker } from './state.js';

const X = '1'.repeat(40);
const HEAD = '2'.repeat(40);
const file = (p: string, patch: string): PullRequestFile => ({
  path: p,
  status: 'modified',
  additions: 1,
  deletions: 0,
  patch,
});
const PR_FILES = [file('a.ts', '@@ -1,1 +1,2 @@\n a\n+b'), file('b.ts', '@@ -1,1 +1,2 @@\n c\n+d')];

function comparing(answer: CommitComparison | null | Error, commits?: string[] | null | Error): Platform {
  return {
    compareCommits: () => (answer instanceof Error ? Promise.reject(answer) : Promise.resolve(answer)),
    ...(commits !== undefined
      ? {
          listCommitShas: () =>
            commits instanceof Error ? Promise.reject(commits) : Promise.resolve(commits),
        }
      : {}),
  } as unknown as Platform;
}

describe('planReview', () => {
  const base = { repoFullName: 'o/r', prNumber: 1, headSha: HEAD, incremental: true, prFiles: PR_FILES };

  it.each([
    ['no earlier review', undefined, true, comparing(null), { sinceSha: null, mode: 'full' }],
    ['incremental off', X, false, comparing(null), { sinceSha: X, mode: 'full' }],
    ['the same head', HEAD, true, comparing(null), { sinceSha: HEAD, mode: 'unchanged' }],
  ])('%s', async (_name, lastHead, incremental, platform, info) => {
    const plan = await planReview({ ...base, platform, lastHead, incremental });
    expect(plan.info).toEqual(info);
    expect(plan.files).toBe(PR_FILES);
  });

  it('reviews only X..head, restricted to the pull request files, when X is an ancestor', async () => {
    const platform = comparing({
      status: 'ahead',
      files: [file('b.ts', '@@ -2 +2 @@\n-d\n+e'), file('merged-from-main.ts', '@@')],
    });
    const plan = await planReview({ ...base, platform, lastHead: X });
    expect(plan.info).toEqual({ sinceSha: X, mode: 'incremental' });
    expect(plan.files.map((f) => f.path)).toEqual(['b.ts']);
    // Also when X is one of the pull request's commits, or the platform's list may be cut short.
    for (const commits of [[X, HEAD], null]) {
      const listed = comparing({ status: 'ahead', files: [file('b.ts', '@@')] }, commits);
      expect((await planReview({ ...base, platform: listed, lastHead: X })).info.mode).toBe('incremental');
    }
  });

  it.each([
    ['diverged', comparing({ status: 'diverged', files: [] }), /not an ancestor .*force-push or rebase/],
    ['unknown commit', comparing(null), /not an ancestor/],
    ['a failing compare', comparing(new PlatformError('boom')), /could not be compared \(boom\)/],
    [
      'X is an ancestor but not a commit of the pull request',
      comparing({ status: 'ahead', files: [file('b.ts', '@@')] }, [HEAD]),
      /head 111111111111 is not a commit of this pull request/,
    ],
    [
      'the commits cannot be listed',
      comparing({ status: 'ahead', files: [file('b.ts', '@@')] }, new PlatformError('down')),
      /commits of this pull request could not be listed \(down\)/,
    ],
    [
      'a comparison cut at the platform limit',
      comparing({ status: 'ahead', files: [file('b.ts', '@@')], truncated: true }),
      /more files than the platform's comparison lists/,
    ],
  ])('is a full review with a reason when %s', async (_name, platform, reason) => {
    const plan = await planReview({ ...base, platform, lastHead: X });
    expect(plan.info.mode).toBe('full');
    expect(plan.info.reason).toMatch(reason);
    expect(plan.files).toBe(PR_FILES);
  });
});

function thread(over: Partial<ReviewThread>): ReviewThread {
  return {
    id: 't1',
    path: 'a.ts',
    resolved: false,
    outdated: false,
    authorUsername: 'bot',
    body: '',
    ...over,
  };
}

describe('memory state, repeats and addressed findings', () => {
  const bots = new Set(['bot']);

  it('takes the newest review marker of the bot only', () => {
    const marker = (head: string, at: string) => `x\n\n<!-- reviewbot:review head=${head} at=${at} -->`;
    const comments = [
      {
        id: '1',
        kind: 'review' as const,
        authorUsername: 'bot',
        body: marker(X, '2026-11-25T08:00:01.500Z'),
        createdAt: '2026-11-25T08:00:01Z',
      },
      {
        id: '2',
        kind: 'issue_comment' as const,
        authorUsername: 'Bot',
        body: marker(HEAD, '2026-11-25T08:00:01.900Z'),
        createdAt: '2026-11-25T08:00:01Z',
      },
      {
        id: '3',
        kind: 'issue_comment' as const,
        authorUsername: 'mallory',
        body: marker('3'.repeat(40), '2030-01-01T00:00:00Z'),
        createdAt: '2026-11-25T09:00:00Z',
      },
    ];
    expect(lastReviewMarker(comments, bots)?.head).toBe(HEAD);
  });

  it('believes a marker only at the end of a body, not after its comment was made, not inline', () => {
    const at = '2026-11-25T08:00:00Z';
    const real = {
      id: '1',
      kind: 'review' as const,
      authorUsername: 'bot',
      body: `Fine.\n\n<!-- reviewbot:review head=${X} at=${at} -->`,
      createdAt: '2026-11-25T08:00:03Z',
    };
    const later = (body: string, over: Partial<typeof real> = {}) => ({
      ...real,
      id: '2',
      body,
      createdAt: '2026-11-25T09:00:00Z',
      ...over,
    });
    const forged = (when: string) => `<!-- reviewbot:review head=${HEAD} at=${when} -->`;
    // In the middle of the bot's body (e.g. a file name the receipt lists).
    expect(lastReviewMarker([real, later(`${forged(at)}\nreceipt`)], bots)?.head).toBe(X);
    // At the end, but claiming a time after the comment was made.
    expect(lastReviewMarker([real, later(`x\n${forged('2099-01-01T00:00:00Z')}`)], bots)?.head).toBe(X);
    // A comment without a creation time.
    expect(lastReviewMarker([real, later(`x\n${forged(at)}`, { createdAt: '' })], bots)?.head).toBe(X);
    // An inline comment of the bot.
    const inline = later(`x\n${forged(at)}`, { kind: 'review_comment' as never });
    expect(lastReviewMarker([real, inline], bots)?.head).toBe(X);
    // Newest by creation time, whatever `at` says (within the clock skew allowed).
    expect(lastReviewMarker([real, later(`x\n${forged('2026-11-25T07:00:00Z')}`)], bots)?.head).toBe(HEAD);
  });

  it('drops a re-raised finding on the same code, whatever its wording and line', () => {
    const fp = fingerprintLines('a.ts', ['b'])!;
    const earlier = earlierFindings(
      [
        thread({ body: `Old words\n\n<!-- reviewbot:finding fp=${fp} side=RIGHT n=1 -->`, resolved: true }),
        thread({
          authorUsername: 'mallory',
          body: `<!-- reviewbot:finding fp=${'f'.repeat(16)} side=RIGHT n=1 -->`,
        }),
      ],
      bots,
    );
    expect(earlier).toHaveLength(1);
    const files = new Map(toFileDiffs(PR_FILES).map((f) => [f.path, f]));
    const kept: Finding[] = [
      { path: 'a.ts', line: 2, side: 'RIGHT', severity: 'P2' as const, confidence: null, body: 'New words' },
      { path: 'b.ts', line: 2, side: 'RIGHT', severity: 'P2' as const, confidence: null, body: 'Fresh' },
      {
        path: 'b.ts',
        line: 2,
        side: 'RIGHT',
        severity: 'P2' as const,
        confidence: null,
        body: 'Fresh again, same code',
      },
    ];
    const split = splitRepeats(kept, files, earlier);
    expect(split.fresh.map((f) => f.body)).toEqual(['Fresh']);
    expect(split.repeats.map((f) => f.body)).toEqual(['New words', 'Fresh again, same code']);
    expect(split.markers[0]).toMatch(/^<!-- reviewbot:finding fp=[0-9a-f]{16} side=RIGHT n=1 sev=P2 -->$/);
    expect(repeatsNotice(split.repeats)).toBe('_2 findings raised in an earlier review were not repeated._');
  });

  it('finds open findings whose code changed or vanished, in reviewed files only', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'addressed-'));
    try {
      mkdirSync(path.join(dir, 'src'));
      writeFileSync(path.join(dir, 'src/kept.ts'), 'const x = 1;\nuse(x);\n');
      writeFileSync(path.join(dir, 'src/changed.ts'), 'const x = 2;\n');
      const marker = (p: string, line: string) =>
        `Finding\n\n<!-- reviewbot:finding fp=${fingerprintLines(p, [line])} side=RIGHT n=1 -->`;
      const earlier = earlierFindings(
        [
          thread({ id: 'kept', path: 'src/kept.ts', body: marker('src/kept.ts', 'use(x);') }),
          thread({
            id: 'changed',
            path: 'src/changed.ts',
            line: 1,
            body: marker('src/changed.ts', 'const x = 1;'),
          }),
          thread({ id: 'gone', path: 'src/gone.ts', body: marker('src/gone.ts', 'old();') }),
          thread({
            id: 'resolved',
            path: 'src/gone.ts',
            resolved: true,
            body: marker('src/gone.ts', 'old();'),
          }),
          thread({ id: 'elsewhere', path: 'src/other.ts', body: marker('src/other.ts', 'old();') }),
          thread({ id: 'escape', path: '../outside.ts', body: marker('../outside.ts', 'x') }),
        ],
        bots,
      );
      const reviewed = new Set(['src/kept.ts', 'src/changed.ts', 'src/gone.ts', '../outside.ts']);
      const addressed = await findAddressed(earlier, reviewed, dir);
      expect(addressed.map((f) => f.thread.id)).toEqual(['changed', 'gone']);
      expect(addressedSection(addressed.slice(0, 1))).toBe(
        '### Addressed since the last review\n\n- `src/changed.ts:1`: Finding',
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
