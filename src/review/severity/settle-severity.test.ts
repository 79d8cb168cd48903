/** Severity in `settleMemory` (§21): min_severity, the ranked budget and the verdict over memory. */
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../logger.js';
import type { Platform, PullRequestFile, PullRequestInfo, ReviewThread } from '../../platforms/types.js';
import { toFileDiffs } from '../../diff/diff.js';
import { fingerprintLines } from '../memory/fingerprint.js';
import { prepareMemory, settleMemory } from '../memory/index.js';
import type { Finding } from '../types.js';
import type { Severity } from './severity.js';

const PR: PullRequestInfo = {
  repoFullName: 'o/r',
  number: 5,
  title: 't',
  body: '',
  state: 'open',
  authorUsername: 'alice',
  headBranch: 'f',
  headSha: 'c'.repeat(40),
  baseBranch: 'main',
  baseSha: 'b'.repeat(40),
  headCloneUrl: '',
  headRepoFullName: 'o/r',
  isFork: false,
  htmlUrl: '',
};
const FILES: PullRequestFile[] = [
  {
    path: 'a.ts',
    status: 'added',
    additions: 4,
    deletions: 0,
    patch: '@@ -0,0 +1,4 @@\n+one\n+two\n+three\n+four',
  },
];

const finding = (
  line: number,
  severity: Severity,
  body: string,
  confidence: number | null = null,
): Finding => ({
  path: 'a.ts',
  line,
  side: 'RIGHT',
  body,
  severity,
  confidence,
});

function thread(id: string, code: string, sev: string | undefined, resolved = false): ReviewThread {
  const marker = `<!-- reviewbot:finding fp=${fingerprintLines('a.ts', [code])} side=RIGHT n=1${sev ? ` sev=${sev}` : ''} -->`;
  return { id, path: 'a.ts', resolved, outdated: false, authorUsername: 'bot', body: `Earlier\n\n${marker}` };
}

describe('settleMemory with severities', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'settle-sev-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  async function settle(rules: string, threads: ReviewThread[], kept: Finding[], rejected: Finding[] = []) {
    const platform = {
      getFileContent: (_r: string, p: string) => Promise.resolve(p === '.reviewbot.yaml' ? rules : null),
      listReviewThreads: () => Promise.resolve(threads),
    } as unknown as Platform;
    const memory = await prepareMemory({
      platform,
      pullRequest: PR,
      prFiles: FILES,
      comments: [],
      botNames: new Set(['bot']),
      server: { incremental: true, ignore: [], min_severity: 'P3', block_on: 'P1' },
      trigger: 'request',
      logger: silentLogger(),
    });
    return settleMemory({
      memory,
      pullRequest: PR,
      kept,
      rejected,
      prFileDiffs: toFileDiffs(FILES),
      workspaceDir: dir,
    });
  }

  it("sets aside what is below the repository's min_severity and ranks the rest into max_comments", async () => {
    const settled = await settle(
      'review:\n  min_severity: P2\n  max_comments: 2\n',
      [],
      [
        finding(1, 'P3', 'nit'),
        finding(2, 'P2', 'minor', 0.9),
        finding(3, 'P1', 'bug', 0.1),
        finding(4, 'P0', 'crash'),
      ],
      [{ ...finding(99, 'P3', 'nit elsewhere') }],
    );
    expect(settled.kept.map((f) => f.body)).toEqual(['bug', 'crash']);
    expect(settled.rejected.map((f) => f.body)).toEqual(['minor']);
    expect(settled.belowThreshold.map((f) => f.body)).toEqual(['nit', 'nit elsewhere']);
    // The markers follow the kept findings and carry their severity.
    expect(settled.inlineMarkers).toHaveLength(2);
    expect(settled.inlineMarkers[1]).toMatch(/ sev=P0 -->$/);
    expect(settled.verdict).toEqual({
      status: 'blocking',
      counts: { P0: 1, P1: 1, P2: 1, P3: 0 },
      blockOn: 'P1',
    });
    expect(settled.extras.afterSummary).toEqual(['**Verdict:** blocking — P0 ×1, P1 ×1 · 1 other finding']);
    // A budget of one: the P0 takes it, the P1 is folded into the body, most severe first.
    const tight = await settle(
      'review:\n  max_comments: 1\n',
      [],
      [finding(2, 'P2', 'minor'), finding(3, 'P1', 'bug'), finding(4, 'P0', 'crash')],
    );
    expect(tight.kept.map((f) => f.body)).toEqual(['crash']);
    expect(tight.rejected.map((f) => f.body)).toEqual(['bug', 'minor']);
  });

  it('counts the open earlier findings: an old marker without a severity as P2, a resolved one not', async () => {
    writeFileSync(path.join(dir, 'a.ts'), 'one\ntwo\nthree\nfour\n');
    const settled = await settle(
      'review:\n  block_on: P0\n',
      [thread('t1', 'one', 'P0'), thread('t2', 'two', undefined), thread('t3', 'three', 'P1', true)],
      [finding(4, 'P3', 'nit')],
    );
    expect(settled.addressed).toEqual([]);
    expect(settled.verdict).toEqual({
      status: 'blocking',
      counts: { P0: 1, P1: 0, P2: 1, P3: 1 },
      blockOn: 'P0',
    });
  });

  it('an earlier P0 whose code changed is addressed: it no longer counts', async () => {
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'a.ts'), 'ONE CHANGED\ntwo\nthree\nfour\n');
    const settled = await settle('', [thread('t1', 'one', 'P0')], []);
    expect(settled.addressed.map((f) => f.thread.id)).toEqual(['t1']);
    expect(settled.verdict).toEqual({
      status: 'clean',
      counts: { P0: 0, P1: 0, P2: 0, P3: 0 },
      blockOn: 'P1',
    });
  });
});
