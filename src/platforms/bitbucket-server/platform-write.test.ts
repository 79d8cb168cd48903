/**
 * The Bitbucket Data Center platform against the fake Data Center (OpenAPI-validated): reads, one
 * voice without a review object, inline failures that do not stop the rest, inline comments in a
 * moved file (anchored with its old path), build statuses, memory (compare, raw files, thread
 * resolution).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startFakeBitbucketServer,
  type FakeBitbucketServer,
} from '../../../test/support/fake-bitbucket-server/index.js';
import { createDiffScenario, SCENARIO_PATHS, type DiffScenario } from '../../../test/support/git-fixtures.js';
import { reviewLines } from '../../../test/e2e/cli-fixture.js';
import type { Platform } from '../types.js';
import { createBitbucketServerPlatform } from './platform.js';

const TOKEN = 'bbs-unitTokenThatMustNeverLeak0123456789';
const REPO = 'ACME/widgets';

describe('Bitbucket Data Center platform', () => {
  let root: string;
  let scenario: DiffScenario;
  let bb: FakeBitbucketServer;
  let platform: Platform;

  beforeAll(async () => {
    root = mkdtempSync(path.join(os.tmpdir(), 'reviewbot-bbs-unit-'));
    scenario = createDiffScenario(path.join(root, 'repos'), REPO);
    bb = await startFakeBitbucketServer({ token: TOKEN, username: 'rb' });
    bb.addPullRequest({
      repo: REPO,
      id: 3,
      bareRepoPath: scenario.bareRepoPath,
      headBranch: scenario.head,
      baseBranch: scenario.base,
    });
    platform = createBitbucketServerPlatform({
      settings: { token: TOKEN, url: bb.url, webhookSecret: undefined },
      logger: pino({ level: 'silent' }),
    });
  });
  afterAll(async () => {
    await bb?.close();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('reads the pull request, its files (paged) and the bot from X-AUSERNAME', async () => {
    const pr = await platform.getPullRequest(REPO, 3);
    expect(pr.headSha).toBe(scenario.headSha);
    expect(pr.headCloneUrl).toBe(`${bb.url}/scm/acme/widgets.git`);
    expect(pr.htmlUrl).toBe(`${bb.url}/projects/ACME/repos/widgets/pull-requests/3`);
    const files = await platform.listPullRequestFiles(REPO, 3);
    expect(files.map((f) => f.path).sort()).toEqual(
      Object.values(scenario.files)
        .map((f) => f.path)
        .sort(),
    );
    const lines = reviewLines(scenario);
    expect(files.find((f) => f.path === lines.right.path)?.patch).toMatch(/^@@ -\d+,\d+ \+\d+,\d+ @@/);
    expect(await platform.getBotUsernames()).toEqual(['rb']);
    expect(bb.requests.every((r) => r.path.startsWith('/rest/api/1.0/'))).toBe(true);
    expect(bb.violations).toEqual([]);
  });

  it('one rejected inline comment does not stop the others nor the summary; a re-run posts nothing twice', async () => {
    const lines = reviewLines(scenario);
    const marker = '<!-- reviewbot:review head=' + scenario.headSha + ' at=2026-11-26T10:00:00.000Z -->';
    bb.failNext('POST', /\/comments$/, 500);
    const posted = await platform.submitReview(REPO, 3, {
      body: `Summary.\n\n${marker}`,
      commitSha: scenario.headSha,
      comments: [
        { path: lines.right.path, line: lines.right.line, side: 'RIGHT', body: 'First.' },
        { path: lines.left.path, line: lines.left.line, side: 'LEFT', body: 'Second.' },
        { path: lines.offDiff.path, line: lines.offDiff.line, side: 'RIGHT', body: 'Off.' },
      ],
    });
    const comments = bb.comments(REPO, 3);
    expect(comments.map((c) => c.anchor)).toEqual([
      {
        path: lines.left.path,
        line: lines.left.line,
        lineType: 'REMOVED',
        fileType: 'FROM',
        diffType: 'EFFECTIVE',
      },
      undefined,
    ]);
    const summary = comments[1]!;
    expect(posted.id).toBe(String(summary.id));
    expect(summary.text).toMatch(/Findings that could not be placed inline[\s\S]*First\.[\s\S]*Off\./);
    expect(summary.text).toMatch(/\n\n\[\/\/\]: # \(reviewbot:review head=[0-9a-f]{40} [^)]*\)$/);
    await platform.submitReview(REPO, 3, {
      body: 'Again.',
      commitSha: scenario.headSha,
      comments: [{ path: lines.left.path, line: lines.left.line, side: 'LEFT', body: 'Second.' }],
    });
    expect(bb.comments(REPO, 3).filter((c) => c.anchor)).toHaveLength(1);
    expect(bb.violations).toEqual([]);
  });

  it('posts an inline finding on a renamed file, anchored with the path before the move (srcPath)', async () => {
    bb.addPullRequest({
      repo: REPO,
      id: 4,
      bareRepoPath: scenario.bareRepoPath,
      headBranch: scenario.head,
      baseBranch: scenario.base,
    });
    const files = await platform.listPullRequestFiles(REPO, 4);
    expect(files.find((f) => f.path === SCENARIO_PATHS.renamed)).toMatchObject({
      status: 'renamed',
      previousPath: SCENARIO_PATHS.renamedFrom,
    });
    await platform.submitReview(REPO, 4, {
      body: 'Summary.',
      commitSha: scenario.headSha,
      comments: [
        { path: SCENARIO_PATHS.renamed, line: 10, side: 'RIGHT', body: 'Returns 1000 now.' },
        { path: SCENARIO_PATHS.renamed, line: 10, side: 'LEFT', body: 'Returned 10 before.' },
      ],
    });
    const comments = bb.comments(REPO, 4);
    expect(comments.map((c) => [c.text, c.anchor])).toEqual([
      [
        'Returns 1000 now.',
        {
          path: SCENARIO_PATHS.renamed,
          srcPath: SCENARIO_PATHS.renamedFrom,
          line: 10,
          lineType: 'ADDED',
          fileType: 'TO',
          diffType: 'EFFECTIVE',
        },
      ],
      [
        'Returned 10 before.',
        {
          path: SCENARIO_PATHS.renamed,
          srcPath: SCENARIO_PATHS.renamedFrom,
          line: 10,
          lineType: 'REMOVED',
          fileType: 'FROM',
          diffType: 'EFFECTIVE',
        },
      ],
      ['Summary.', undefined],
    ]);
    expect(bb.violations).toEqual([]);
  });

  it('replies in the thread of a comment (parent id)', async () => {
    const mention = bb.addComment(REPO, 3, { text: '@rb please', author: 'alice' });
    await platform.postReply({ repoFullName: REPO, prNumber: 3, discussionId: String(mention.id) }, 'Done.');
    const reply = bb.comments(REPO, 3).at(-1)!;
    expect(reply).toMatchObject({ parentId: mention.id, text: 'Done.', author: 'rb' });
    const listed = await platform.listComments(REPO, 3);
    expect(listed.find((c) => c.id === String(reply.id))?.kind).toBe('issue_comment');
    expect(bb.violations).toEqual([]);
  });

  it("lists threads and resolves the bot's own (PUT with version and threadResolved)", async () => {
    const threads = await platform.listReviewThreads!(REPO, 3);
    expect(threads).toHaveLength(1);
    expect(threads[0]).toMatchObject({ authorUsername: 'rb', resolved: false, side: 'LEFT' });
    await platform.resolveThread!(REPO, 3, threads[0]!.id);
    expect((await platform.listReviewThreads!(REPO, 3))[0]?.resolved).toBe(true);
    expect(bb.violations).toEqual([]);
  });

  it('sets the build status INPROGRESS, then SUCCESSFUL, key reviewbot, with the pull request link', async () => {
    const handle = await platform.startProgress!(
      { repoFullName: REPO, prNumber: 3, headSha: scenario.headSha },
      { description: 'reviewing' },
    );
    await handle.finish('neutral', { description: 'reviewed' });
    const url = `${bb.url}/projects/ACME/repos/widgets/pull-requests/3`;
    expect(bb.statuses.map((s) => [s.key, s.state, s.url])).toEqual([
      ['reviewbot', 'INPROGRESS', url],
      ['reviewbot', 'SUCCESSFUL', url],
    ]);
    expect(bb.violations).toEqual([]);
  });

  it('reads files at the base and compares commits', async () => {
    const pr = await platform.getPullRequest(REPO, 3);
    expect(await platform.getFileContent!(REPO, 'no/such/file', pr.baseSha)).toBeNull();
    const modified = Object.values(scenario.files).find((f) => f.removed.length > 0)!;
    expect(await platform.getFileContent!(REPO, modified.path, pr.baseSha)).toContain('\n');
    const shas = (await platform.listCommitShas!(REPO, 3))!;
    expect(shas[0]).toBe(pr.headSha);
    expect((await platform.compareCommits!(REPO, pr.baseSha, pr.headSha))?.status).toBe('diverged');
    const oldest = shas.at(-1)!;
    const cmp = await platform.compareCommits!(REPO, oldest, pr.headSha);
    expect(cmp?.status).toBe(oldest === pr.headSha ? 'identical' : 'ahead');
    expect(await platform.compareCommits!(REPO, 'f'.repeat(40), pr.headSha)).toBeNull();
    expect(bb.violations).toEqual([]);
  });
});
