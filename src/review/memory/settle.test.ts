import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../logger.js';
import type { Platform, PullRequestFile, PullRequestInfo, ReviewThread } from '../../platforms/types.js';
import { toFileDiffs } from '../../diff/diff.js';
import type { Finding } from '../types.js';
import { fingerprintLines } from './fingerprint.js';
import { prepareMemory, settleMemory } from './index.js';

const HEAD = 'c'.repeat(40);
const PR: PullRequestInfo = {
  repoFullName: 'o/r',
  number: 5,
  title: 't',
  body: '',
  state: 'open',
  authorUsername: 'alice',
  headBranch: 'f',
  headSha: HEAD,
  baseBranch: 'main',
  baseSha: 'b'.repeat(40),
  headCloneUrl: '',
  headRepoFullName: 'o/r',
  isFork: false,
  htmlUrl: '',
};
const FILES: PullRequestFile[] = [
  {
    path: 'src/a.ts',
    status: 'added',
    additions: 3,
    deletions: 0,
    patch: '@@ -0,0 +1,3 @@\n+one\n+two\n+three',
  },
  { path: 'gen/out.ts', status: 'added', additions: 1, deletions: 0, patch: '@@ -0,0 +1 @@\n+generated' },
];

describe('settleMemory', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'settle-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('applies ignore and max_comments from the base rules, drops repeats, resolves addressed threads', async () => {
    const resolved: string[] = [];
    const threads: ReviewThread[] = [
      {
        id: 'old',
        path: 'src/a.ts',
        resolved: false,
        outdated: false,
        authorUsername: 'bot',
        body: `Earlier\n\n<!-- reviewbot:finding fp=${fingerprintLines('src/a.ts', ['one'])} side=RIGHT n=1 -->`,
      },
    ];
    const platform = {
      getFileContent: (_r: string, p: string) =>
        Promise.resolve(
          p === '.reviewbot.yaml' ? 'review:\n  ignore: ["gen/**"]\n  max_comments: 1\n' : null,
        ),
      listReviewThreads: () => Promise.resolve(threads),
      resolveThread: (_r: string, _n: number, id: string) => {
        resolved.push(id);
        return Promise.resolve();
      },
    } as unknown as Platform;
    const memory = await prepareMemory({
      platform,
      pullRequest: PR,
      prFiles: FILES,
      comments: [],
      botNames: new Set(['bot']),
      trigger: 'lifecycle',
      logger: silentLogger(),
    });
    expect(memory.shownFiles.map((f) => f.path)).toEqual(['src/a.ts']);
    const kept: Finding[] = [
      {
        path: 'src/a.ts',
        line: 1,
        side: 'RIGHT',
        severity: 'P2' as const,
        confidence: null,
        body: 'Same code, new words',
      },
      { path: 'src/a.ts', line: 2, side: 'RIGHT', severity: 'P2' as const, confidence: null, body: 'Second' },
      { path: 'src/a.ts', line: 3, side: 'RIGHT', severity: 'P2' as const, confidence: null, body: 'Third' },
      {
        path: 'gen/out.ts',
        line: 1,
        side: 'RIGHT',
        severity: 'P2' as const,
        confidence: null,
        body: 'On an ignored file',
      },
    ];
    // src/a.ts does not exist in the checkout `dir`: the earlier finding's code is gone.
    const settled = await settleMemory({
      memory,
      pullRequest: PR,
      kept,
      rejected: [
        {
          path: 'gen/out.ts',
          line: 9,
          side: 'RIGHT',
          severity: 'P2' as const,
          confidence: null,
          body: 'ignored too',
        },
      ],
      prFileDiffs: toFileDiffs(FILES),
      workspaceDir: dir,
      now: new Date('2026-11-25T08:00:00Z'),
    });
    expect(settled.kept.map((f) => f.body)).toEqual(['Second']);
    expect(settled.rejected.map((f) => f.body)).toEqual(['Third']);
    expect(settled.repeats.map((f) => f.body)).toEqual(['Same code, new words']);
    expect(settled.addressed.map((a) => a.thread.id)).toEqual(['old']);
    expect(resolved).toEqual([]); // resolved by postReview, once the review is posted
    expect(settled.extras.markers).toEqual([
      `<!-- reviewbot:review head=${HEAD} at=2026-11-25T08:00:00.000Z -->`,
    ]);
    expect(settled.extras.after.join('\n')).toContain('### Addressed since the last review');
  });

  it('claims no new head when a part failed or the cost cap stopped one', async () => {
    const X = 'd'.repeat(40);
    const last = `<!-- reviewbot:review head=${X} at=2026-11-25T07:00:00.000Z -->`;
    const platform = {
      getFileContent: () => Promise.resolve(null),
      listReviewThreads: () => Promise.resolve([]),
      compareCommits: () => Promise.resolve({ status: 'ahead', files: [FILES[0]] }),
    } as unknown as Platform;
    const base = { platform, pullRequest: PR, prFiles: FILES, botNames: new Set(['bot']) };
    const settle = async (comments: Array<{ body: string }>, complete: boolean) => {
      const memory = await prepareMemory({
        ...base,
        comments: comments.map((c, i) => ({
          id: String(i),
          kind: 'review' as const,
          authorUsername: 'bot',
          body: c.body,
          createdAt: '2026-11-25T07:00:05Z',
        })),
        trigger: 'request',
        logger: silentLogger(),
      });
      const settled = await settleMemory({
        memory,
        pullRequest: PR,
        kept: [],
        rejected: [],
        prFileDiffs: toFileDiffs(FILES),
        workspaceDir: dir,
        complete,
        now: new Date('2026-11-25T08:00:00Z'),
      });
      return { mode: memory.plan.info.mode, markers: settled.extras.markers };
    };
    // Incremental since X: the next review must show these changes again, so the marker stays at X.
    expect(await settle([{ body: last }], false)).toEqual({
      mode: 'incremental',
      markers: [`<!-- reviewbot:review head=${X} at=2026-11-25T08:00:00.000Z -->`],
    });
    expect((await settle([{ body: last }], true)).markers).toEqual([
      `<!-- reviewbot:review head=${HEAD} at=2026-11-25T08:00:00.000Z -->`,
    ]);
    // A full review that did not cover everything claims no head at all.
    expect(await settle([], false)).toEqual({ mode: 'full', markers: [] });
  });

  it('skips a trigger whose only change since the last review is an ignored file', async () => {
    const last = `<!-- reviewbot:review head=${'d'.repeat(40)} at=2026-11-25T07:00:00.000Z -->`;
    const platform = {
      getFileContent: (_r: string, p: string) =>
        Promise.resolve(p === '.reviewbot.yaml' ? 'review:\n  ignore: ["gen/**"]\n' : null),
      listReviewThreads: () => Promise.resolve([]),
      compareCommits: () => Promise.resolve({ status: 'ahead', files: [FILES[1]] }),
    } as unknown as Platform;
    const input = {
      platform,
      pullRequest: PR,
      prFiles: FILES,
      comments: [
        {
          id: '1',
          kind: 'review' as const,
          authorUsername: 'bot',
          body: last,
          createdAt: '2026-11-25T07:00:05Z',
        },
      ],
      botNames: new Set(['bot']),
      logger: silentLogger(),
    };
    const triggered = await prepareMemory({ ...input, trigger: 'lifecycle' });
    expect(triggered.plan.info.mode).toBe('incremental');
    expect(triggered.skipAgent).toBe(true);
    const asked = await prepareMemory({ ...input, trigger: 'request' });
    expect(asked.skipAgent).toBe(false);
  });

  it('keeps an incremental LEFT finding inline only when its text is the same in the base diff', async () => {
    // base: x y z; push 1 adds `new1` on top (reviewed at X); push 2 removes z.
    const prFiles: PullRequestFile[] = [
      {
        path: 'a.ts',
        status: 'modified',
        additions: 1,
        deletions: 1,
        patch: '@@ -1,3 +1,3 @@\n+new1\n x\n y\n-z',
      },
      { path: 'b.ts', status: 'modified', additions: 0, deletions: 1, patch: '@@ -1,2 +1,1 @@\n a\n-b' },
    ];
    const since: PullRequestFile[] = [
      { path: 'a.ts', status: 'modified', additions: 0, deletions: 1, patch: '@@ -2,3 +2,2 @@\n x\n y\n-z' },
      { path: 'b.ts', status: 'modified', additions: 0, deletions: 1, patch: '@@ -1,2 +1,1 @@\n a\n-b' },
    ];
    const last = `<!-- reviewbot:review head=${'d'.repeat(40)} at=2026-11-25T07:00:00.000Z -->`;
    const platform = {
      getFileContent: () => Promise.resolve(null),
      listReviewThreads: () => Promise.resolve([]),
      compareCommits: () => Promise.resolve({ status: 'ahead', files: since }),
    } as unknown as Platform;
    const memory = await prepareMemory({
      platform,
      pullRequest: PR,
      prFiles,
      comments: [
        { id: '1', kind: 'review', authorUsername: 'bot', body: last, createdAt: '2026-11-25T07:00:05Z' },
      ],
      botNames: new Set(['bot']),
      trigger: 'request',
      logger: silentLogger(),
    });
    expect(memory.plan.info.mode).toBe('incremental');
    const settled = await settleMemory({
      memory,
      pullRequest: PR,
      // LEFT 3 is `y` in the shown diff (X numbering) but `z` in the base: it must not go inline.
      kept: [
        { path: 'a.ts', line: 3, side: 'LEFT', severity: 'P2' as const, confidence: null, body: 'About y' },
        {
          path: 'b.ts',
          line: 2,
          side: 'LEFT',
          severity: 'P2' as const,
          confidence: null,
          body: 'About b, both numberings agree',
        },
      ],
      rejected: [],
      prFileDiffs: toFileDiffs(prFiles),
      workspaceDir: dir,
    });
    expect(settled.kept.map((f) => f.body)).toEqual(['About b, both numberings agree']);
    expect(settled.rejected.map((f) => f.body)).toEqual(['About y']);
  });
});
