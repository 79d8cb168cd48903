/**
 * `reviewbot serve` WORKER jobs and thread replies: the agent edits a file, the commit reaches the
 * git server on the head branch, the reply names the commit; a mention in a review-comment thread is
 * answered in that thread; SIGTERM lets a running job finish, then the server exits 0.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendGitHubWebhook } from '../support/serve-process.js';
import { gitEnv } from '../support/git-fixtures.js';
import { reviewCommentPayload } from './github-payloads.js';
import {
  ALICE,
  createServeFixture,
  postComment,
  REVIEWER,
  summaryReply,
  waitFor,
  WEBHOOK_SECRET,
  WORKER,
  type ServeFixture,
} from './serve-fixture.js';

const run = promisify(execFile);
async function bareGit(bare: string, args: string[]): Promise<string> {
  const { stdout } = await run('git', [`--git-dir=${bare}`, ...args], { env: gitEnv() });
  return stdout.trim();
}

describe('reviewbot serve: WORKER and threads', () => {
  let fx: ServeFixture;
  beforeAll(async () => {
    fx = await createServeFixture();
  });
  afterAll(async () => {
    await fx?.closeAll();
  });

  it('edits a file, pushes the commit to the head branch and replies with its SHA', async () => {
    const before = await bareGit(fx.scenario.bareRepoPath, ['rev-parse', 'refs/heads/feature']);
    fx.llm.setScript([
      {
        toolCalls: [
          {
            name: 'Edit',
            input: {
              file_path: 'src/service.ts',
              old_string: 'export const v3 = 300;',
              new_string: 'export const v3 = 301;',
            },
          },
        ],
      },
      { text: 'Bumped v3 to 301 in src/service.ts.' },
    ]);
    const res = await postComment(fx, 7, `@${WORKER} bump v3 to 301`);
    expect(res.json).toMatchObject({ status: 'accepted' });
    const reply = await waitFor(
      () => fx.github.issueComments.find((c) => c.body?.includes('Bumped v3 to 301')),
      30_000,
      'reply',
    );
    const after = await bareGit(fx.scenario.bareRepoPath, ['rev-parse', 'refs/heads/feature']);
    expect(after).not.toBe(before);
    expect(await bareGit(fx.scenario.bareRepoPath, ['rev-parse', `${after}^`])).toBe(before);
    expect(await bareGit(fx.scenario.bareRepoPath, ['show', `${after}:src/service.ts`])).toContain(
      'export const v3 = 301;',
    );
    expect(reply.body).toContain(after.slice(0, 7));
    // The WORKER was offered the write tools; the request to the model never held the token.
    expect(fx.llm.requests[0]!.toolNames).toEqual(expect.arrayContaining(['Edit', 'Write', 'Bash']));
  });

  it('answers a mention made in a review-comment thread inside that thread', async () => {
    fx.llm.setScript([summaryReply('Answered in the thread.')]);
    const root = await fx.github.addReviewComment({
      owner: 'acme',
      repo: 'widgets',
      number: 7,
      path: 'docs/guide.md',
      line: 2,
      side: 'RIGHT',
      body: 'Is this line right?',
      user: 'bob',
    });
    const mentionComment = await fx.github.addReviewComment({
      owner: 'acme',
      repo: 'widgets',
      number: 7,
      path: 'docs/guide.md',
      line: 2,
      side: 'RIGHT',
      body: `@${REVIEWER} what do you think?`,
      user: ALICE,
      inReplyTo: root.id,
    });
    const res = await sendGitHubWebhook(
      fx.server.url,
      'pull_request_review_comment',
      reviewCommentPayload({
        repo: 'acme/widgets',
        pr: 7,
        body: `@${REVIEWER} what do you think?`,
        login: ALICE,
        pullRequest: fx.pr7,
        path: 'docs/guide.md',
        line: 2,
        inReplyTo: root.id,
        commentId: mentionComment.id,
      }),
      { secret: WEBHOOK_SECRET },
    );
    expect(res.json).toMatchObject({ status: 'accepted' });
    const reply = await waitFor(
      () => fx.github.reviewComments.find((c) => c.body?.includes('Answered in the thread.')),
      30_000,
      'thread reply',
    );
    expect(reply.in_reply_to_id).toBe(root.id);
    expect(fx.github.violations).toEqual([]);
  });

  it('on SIGTERM lets the running job finish, then exits 0', async () => {
    fx.llm.setScript([summaryReply('Finished during shutdown.', 1500)]);
    const calls = fx.llm.requests.length;
    const res = await postComment(fx, 8, `@${REVIEWER} last one`);
    expect(res.json).toMatchObject({ status: 'accepted' });
    await waitFor(() => fx.llm.requests.length > calls, 20_000, 'the job to start');
    const code = await fx.server.stop('SIGTERM');
    expect(code).toBe(0);
    expect(fx.github.issueComments.find((c) => c.body?.includes('Finished during shutdown.'))).toBeDefined();
    expect(fx.server.logs.some((l) => l.msg === 'reviewbot serve stopped')).toBe(true);
  });
});
