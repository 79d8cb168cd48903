/**
 * The Azure DevOps platform's writes against the fake Azure DevOps: one thread per finding, a
 * refused thread that does not stop the rest (listed in the summary), a re-submission that posts
 * no thread twice, replies in a thread, threads marked fixed, and the files' hunks made from the
 * iteration's changes.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeAzureDevOps, type FakeAzureDevOps } from '../../../test/support/fake-azure-devops/index.js';
import { createDiffScenario, type DiffScenario } from '../../../test/support/git-fixtures.js';
import { reviewLines } from '../../../test/e2e/cli-fixture.js';
import type { Platform } from '../types.js';
import { createAzureDevOpsPlatform } from './platform.js';
import { UNPLACED_HEADING } from './submit-review.js';

const TOKEN = 'ado-unitPatThatMustNeverLeak0123456789';
const FULL = 'Fabrikam/widgets';

describe('Azure DevOps platform writes', () => {
  let root: string;
  let scenario: DiffScenario;
  let ado: FakeAzureDevOps;
  let platform: Platform;

  beforeAll(async () => {
    root = mkdtempSync(path.join(os.tmpdir(), 'reviewbot-ado-unit-'));
    scenario = createDiffScenario(path.join(root, 'repos'), 'acme/widgets');
    ado = await startFakeAzureDevOps({ token: TOKEN });
    ado.addPullRequest({
      project: 'Fabrikam',
      repo: 'widgets',
      id: 3,
      bareRepoPath: scenario.bareRepoPath,
      headBranch: scenario.head,
      baseBranch: scenario.base,
    });
    platform = createAzureDevOpsPlatform({
      settings: { token: TOKEN, url: ado.collectionUrl, webhookUser: undefined, webhookSecret: undefined },
      logger: pino({ level: 'silent' }),
    });
  });
  afterAll(async () => {
    await ado?.close();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('lists the changed files with hunks from the merge base (3 lines of context)', async () => {
    const files = await platform.listPullRequestFiles(FULL, 3);
    const lines = reviewLines(scenario);
    const modified = files.find((f) => f.path === lines.right.path);
    expect(modified?.status).toBe('modified');
    expect(modified?.patch).toMatch(/^@@ -\d+(,\d+)? \+\d+(,\d+)? @@/);
    expect(files.map((f) => f.path).sort()).toEqual(Object.keys(scenario.files).sort());
  });

  it('one refused thread does not stop the others; the summary lists it; a re-run posts nothing twice', async () => {
    const lines = reviewLines(scenario);
    const review = {
      body: 'Summary.\n\n<!-- reviewbot:review head=abc -->',
      commitSha: scenario.headSha,
      comments: [
        { path: lines.right.path, line: lines.right.line, side: 'RIGHT' as const, body: 'One.' },
        { path: lines.offDiff.path, line: lines.offDiff.line, side: 'RIGHT' as const, body: 'Off the diff.' },
        { path: lines.left.path, line: lines.left.line, side: 'LEFT' as const, body: 'Two.' },
      ],
    };
    const posted = await platform.submitReview(FULL, 3, review);
    const threads = ado.threads('Fabrikam', 'widgets', 3);
    expect(threads.filter((t) => t.threadContext).map((t) => t.comments[0]?.content)).toEqual([
      'One.',
      'Two.',
    ]);
    const summary = threads.at(-1)!;
    expect(String(summary.id)).toBe(posted.id);
    expect(summary.comments[0]?.content).toContain(UNPLACED_HEADING);
    expect(summary.comments[0]?.content).toContain('Off the diff.');
    expect(summary.comments[0]?.content).toMatch(/\n\n\[\/\/\]: # \(reviewbot:review head=abc\)$/);
    await platform.submitReview(FULL, 3, review);
    expect(ado.threads('Fabrikam', 'widgets', 3).filter((t) => t.threadContext)).toHaveLength(2);
  });

  it('replies in a thread, marks a thread fixed, and reads threads back', async () => {
    const thread = ado.threads('Fabrikam', 'widgets', 3).find((t) => t.threadContext)!;
    await platform.postReply({ repoFullName: FULL, prNumber: 3, discussionId: String(thread.id) }, 'Noted.');
    expect(thread.comments.at(-1)).toMatchObject({ content: 'Noted.', parentCommentId: 1 });
    await platform.resolveThread!(FULL, 3, String(thread.id));
    expect(thread.status).toBe('fixed');
    const read = await platform.listReviewThreads!(FULL, 3);
    expect(read.find((t) => t.id === String(thread.id))).toMatchObject({ resolved: true, body: 'One.' });
    expect(ado.violations).toEqual([]);
  });
});
