/**
 * The Bitbucket Cloud platform's writes against the fake Bitbucket Cloud (OpenAPI-validated):
 * one voice without a review object, inline failures that do not stop the rest, build statuses.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startFakeBitbucketCloud,
  type FakeBitbucketCloud,
} from '../../../test/support/fake-bitbucket-cloud/index.js';
import { createDiffScenario, type DiffScenario } from '../../../test/support/git-fixtures.js';
import { reviewLines } from '../../../test/e2e/cli-fixture.js';
import type { Platform } from '../types.js';
import { createBitbucketPlatform } from './platform.js';

const TOKEN = 'bb-unitTokenThatMustNeverLeak0123456789';
const REPO = 'acme/widgets';

describe('Bitbucket Cloud platform writes', () => {
  let root: string;
  let scenario: DiffScenario;
  let bb: FakeBitbucketCloud;
  let platform: Platform;

  beforeAll(async () => {
    root = mkdtempSync(path.join(os.tmpdir(), 'reviewbot-bb-unit-'));
    scenario = createDiffScenario(path.join(root, 'repos'), REPO);
    bb = await startFakeBitbucketCloud({ token: TOKEN, nickname: 'rb' });
    bb.addPullRequest({
      repo: REPO,
      id: 3,
      bareRepoPath: scenario.bareRepoPath,
      headBranch: scenario.head,
      baseBranch: scenario.base,
    });
    platform = createBitbucketPlatform({
      settings: { token: TOKEN, apiUrl: bb.apiUrl, webhookSecret: undefined },
      logger: pino({ level: 'silent' }),
    });
  });
  afterAll(async () => {
    await bb?.close();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('resolves the 12-character hashes of a pull request to full SHAs', async () => {
    const pr = await platform.getPullRequest(REPO, 3);
    expect(pr.headSha).toBe(scenario.headSha);
    expect(pr.baseSha).toMatch(/^[0-9a-f]{40}$/);
    expect(pr.headCloneUrl).toBe(`${bb.url}/${REPO}.git`);
    const files = await platform.listPullRequestFiles(REPO, 3);
    expect(files.map((f) => f.path).sort()).toEqual(
      Object.values(scenario.files)
        .map((f) => f.path)
        .sort(),
    );
    expect(bb.violations).toEqual([]);
  });

  it('when one inline comment is rejected, the others and the summary still land (it is listed there)', async () => {
    const lines = reviewLines(scenario);
    const marker = '<!-- reviewbot:review head=' + scenario.headSha + ' at=2026-11-26T10:00:00.000Z -->';
    bb.failNext('POST', /\/comments$/, 500);
    const posted = await platform.submitReview(REPO, 3, {
      body: `Summary.\n\n${marker}`,
      commitSha: scenario.headSha,
      comments: [
        { path: lines.right.path, line: lines.right.line, side: 'RIGHT', body: 'First.' },
        { path: lines.left.path, line: lines.left.line, side: 'LEFT', body: 'Second.' },
      ],
    });
    const comments = bb.comments(REPO, 3);
    expect(comments.map((c) => c.inline)).toEqual([
      { path: lines.left.path, from: lines.left.line },
      undefined,
    ]);
    const summary = comments[1]!;
    expect(posted.id).toBe(String(summary.id));
    expect(summary.raw).toMatch(/Findings that could not be placed inline[\s\S]*First\./);
    expect(summary.raw).toMatch(/\n\n\[\/\/\]: # \(reviewbot:review head=[0-9a-f]{40} [^)]*\)$/);
    // The same review again posts no inline comment twice.
    await platform.submitReview(REPO, 3, {
      body: 'Again.',
      commitSha: scenario.headSha,
      comments: [{ path: lines.left.path, line: lines.left.line, side: 'LEFT', body: 'Second.' }],
    });
    expect(bb.comments(REPO, 3).filter((c) => c.inline)).toHaveLength(1);
    expect(bb.violations).toEqual([]);
  });

  it("lists threads and resolves the bot's own (POST …/comments/{id}/resolve)", async () => {
    const threads = await platform.listReviewThreads!(REPO, 3);
    expect(threads).toHaveLength(1);
    expect(threads[0]).toMatchObject({ authorUsername: '{557058:bot-0001}', resolved: false, side: 'LEFT' });
    await platform.resolveThread!(REPO, 3, threads[0]!.id);
    expect((await platform.listReviewThreads!(REPO, 3))[0]?.resolved).toBe(true);
    expect(bb.violations).toEqual([]);
  });

  it('sets the build status INPROGRESS, then FAILED, key reviewbot, with the pull request link', async () => {
    const handle = await platform.startProgress!(
      {
        repoFullName: REPO,
        prNumber: 3,
        headSha: scenario.headSha,
        prUrl: 'https://bitbucket.org/acme/widgets/pull-requests/3',
      },
      { description: 'reviewing' },
    );
    await handle.finish('failure', { description: 'failed: boom' });
    expect(bb.statuses.map((s) => [s.key, s.state, s.url])).toEqual([
      ['reviewbot', 'INPROGRESS', 'https://bitbucket.org/acme/widgets/pull-requests/3'],
      ['reviewbot', 'FAILED', 'https://bitbucket.org/acme/widgets/pull-requests/3'],
    ]);
    expect(await platform.getBotUsernames()).toEqual(['{557058:bot-0001}']);
    expect(bb.violations).toEqual([]);
  });

  it('reads files at the base and compares commits (ahead)', async () => {
    const pr = await platform.getPullRequest(REPO, 3);
    expect(await platform.getFileContent!(REPO, 'no/such/file', pr.baseSha)).toBeNull();
    const shas = (await platform.listCommitShas!(REPO, 3))!;
    expect(shas[0]).toBe(pr.headSha);
    // The base branch moved on after the pull request forked: base and head diverged.
    expect((await platform.compareCommits!(REPO, pr.baseSha, pr.headSha))?.status).toBe('diverged');
    const oldest = shas.at(-1)!;
    const cmp = await platform.compareCommits!(REPO, oldest, pr.headSha);
    expect(cmp?.status).toBe(oldest === pr.headSha ? 'identical' : 'ahead');
    expect(await platform.compareCommits!(REPO, 'f'.repeat(40), pr.headSha)).toBeNull();
    expect(bb.violations).toEqual([]);
  });
});

describe('Bitbucket Cloud platform with a token refused GET /user', () => {
  it.each([
    ['an access token (401 "not supported for this endpoint")', { accessToken: true }],
    ['credentials without the account scope (403)', { userForbidden: true }],
  ])(
    '%s: knows itself by no name (configured usernames decide), says so once, still posts reviews',
    async (_, refusal) => {
      const root = mkdtempSync(path.join(os.tmpdir(), 'reviewbot-bb-unit-403-'));
      const scenario = createDiffScenario(path.join(root, 'repos'), REPO);
      const bb = await startFakeBitbucketCloud({ token: TOKEN, nickname: 'rb', ...refusal });
      const logged: string[] = [];
      try {
        bb.addPullRequest({
          repo: REPO,
          id: 4,
          bareRepoPath: scenario.bareRepoPath,
          headBranch: scenario.head,
          baseBranch: scenario.base,
        });
        const platform = createBitbucketPlatform({
          settings: { token: TOKEN, apiUrl: bb.apiUrl, webhookSecret: undefined },
          logger: pino({ level: 'warn' }, { write: (line: string) => logged.push(line) }),
        });
        expect(await platform.getBotUsernames()).toEqual([]);
        expect(await platform.getBotMentionNames!()).toEqual([]);
        const lines = reviewLines(scenario);
        const comment = {
          path: lines.right.path,
          line: lines.right.line,
          side: 'RIGHT' as const,
          body: 'One.',
        };
        await platform.submitReview(REPO, 4, {
          body: 'S.',
          commitSha: scenario.headSha,
          comments: [comment],
        });
        await platform.submitReview(REPO, 4, {
          body: 'S.',
          commitSha: scenario.headSha,
          comments: [comment],
        });
        expect(bb.comments(REPO, 4).filter((c) => c.inline)).toHaveLength(1);
        expect(bb.requests.filter((r) => r.path === '/2.0/user')).toHaveLength(1);
        expect(logged).toHaveLength(1);
        expect(logged[0]).toContain('Bitbucket refused GET /user');
        expect(logged.join('')).not.toContain(TOKEN);
      } finally {
        await bb.close();
        rmSync(root, { recursive: true, force: true });
      }
    },
  );
});
