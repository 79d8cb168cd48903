/**
 * `reviewbot serve` jobs: one job at a time per pull request, pull requests concurrently, FIFO within
 * a pull request; multi-turn continuation; a lifecycle trigger; a failing job tells the pull request.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendGitHubWebhook } from '../support/serve-process.js';
import { LLM_KEY } from './cli-fixture.js';
import { pullRequestPayload } from './github-payloads.js';
import {
  createServeFixture,
  postComment,
  jobTag,
  requestText,
  REVIEWER,
  summaryReply,
  waitFor,
  WEBHOOK_SECRET,
  type ServeFixture,
} from './serve-fixture.js';

describe('reviewbot serve: jobs', () => {
  let fx: ServeFixture;
  beforeAll(async () => {
    fx = await createServeFixture({ REVIEWER_TRIGGERS: 'pr_opened' });
  });
  afterAll(async () => {
    await fx?.closeAll();
  });

  const send = (pr: number, body: string) => postComment(fx, pr, body);

  it('runs 3 + 3 mentions one at a time per pull request, both pull requests at once, in order', async () => {
    const JOB_MS = 1500;
    const spans: Array<{ tag: string; start: number; end: number }> = [];
    fx.llm.setScript((request) => {
      const tag = jobTag(request) ?? '?';
      const start = Date.now();
      spans.push({ tag, start, end: start + JOB_MS });
      return summaryReply(`done job-${tag}`, JOB_MS);
    });
    const tags = ['A1', 'B1', 'A2', 'B2', 'A3', 'B3'];
    for (const tag of tags) {
      const res = await send(tag.startsWith('A') ? 7 : 8, `@${REVIEWER} job-${tag} please review`);
      expect(res.json).toMatchObject({ status: 'accepted' });
    }
    // When each job's reply appeared (to the poll's resolution): a job has ended by then.
    const doneAt = new Map<string, number>();
    await waitFor(
      () => {
        for (const t of tags) {
          const replied = fx.github.issueComments.some((c) => c.body?.includes(`done job-${t}`));
          if (replied && !doneAt.has(t)) doneAt.set(t, Date.now());
        }
        return doneAt.size === tags.length;
      },
      100_000,
      'six replies',
    );
    for (const pr of ['A', 'B']) {
      const mine = spans.filter((s) => s.tag.startsWith(pr));
      expect(mine.map((s) => s.tag)).toEqual([`${pr}1`, `${pr}2`, `${pr}3`]);
      for (let i = 1; i < mine.length; i++) expect(mine[i]!.start).toBeGreaterThanOrEqual(mine[i - 1]!.end);
    }
    // The two pull requests ran at the same time: each B job reached the model before the A job
    // sent just before it had replied (one queue for both would run B1 only after A1 ended). The
    // model calls themselves need not overlap: a job's preparation takes longer than its model call.
    const started = new Map(spans.map((s) => [s.tag, s.start]));
    for (const [a, b] of [
      ['A1', 'B1'],
      ['A2', 'B2'],
      ['A3', 'B3'],
    ] as const) {
      expect(started.get(b)!, `${b} started before ${a} replied`).toBeLessThan(doneAt.get(a)!);
    }
  }, 120_000);

  it('continues the conversation on a second mention of the same pull request', async () => {
    fx.llm.setScript([summaryReply('The parser looks fine.'), summaryReply('Yes, v3 changed to 300.')]);
    const calls = fx.llm.requests.length;
    await send(8, `@${REVIEWER} job-T1 what about the parser?`);
    await waitFor(
      () => fx.github.issueComments.find((c) => c.body?.includes('The parser looks fine.')),
      20_000,
      'first answer',
    );
    await send(8, `@${REVIEWER} job-T2 and did v3 change?`);
    await waitFor(
      () => fx.github.issueComments.find((c) => c.body?.includes('Yes, v3 changed to 300.')),
      20_000,
      'second answer',
    );
    const second = requestText(fx.llm.requests[calls + 1]!);
    expect(second).toContain('what about the parser?');
    expect(second).toContain('The parser looks fine.');
    expect(second).toContain('and did v3 change?');
  });

  it('reviews a newly opened pull request without a mention', async () => {
    fx.llm.setScript([summaryReply('Automatic review on open.')]);
    const reactions = fx.github.reactions.length;
    // A pull request the bot has not reviewed yet (§13: a trigger on a reviewed head does nothing).
    const pr9 = await fx.github.addPullRequest({
      owner: 'acme',
      repo: 'widgets',
      number: 9,
      bareRepoPath: fx.scenario.bareRepoPath,
      base: fx.scenario.base,
      head: fx.scenario.head,
      title: 'Opened later',
    });
    const res = await sendGitHubWebhook(
      fx.server.url,
      'pull_request',
      pullRequestPayload('opened', pr9, 'acme/widgets', 'octocat'),
      { secret: WEBHOOK_SECRET },
    );
    expect(res.json).toMatchObject({ status: 'accepted' });
    await waitFor(
      () => fx.github.issueComments.find((c) => c.body?.includes('Automatic review on open.')),
      20_000,
      'review',
    );
    expect(fx.github.reactions.length).toBe(reactions);
    const ignored = await sendGitHubWebhook(
      fx.server.url,
      'pull_request',
      pullRequestPayload('synchronize', pr9, 'acme/widgets', 'octocat'),
      { secret: WEBHOOK_SECRET },
    );
    expect(ignored.json).toMatchObject({ status: 'ignored' });
  });

  it('tells the pull request when a job fails, without secrets', async () => {
    fx.llm.setScript([
      {
        error: {
          status: 400,
          body: { type: 'error', error: { type: 'invalid_request_error', message: 'prompt is too long' } },
        },
      },
    ]);
    await send(7, `@${REVIEWER} job-F1 review`);
    const reply = await waitFor(
      () => fx.github.issueComments.find((c) => c.body?.includes('prompt is too long')),
      20_000,
      'failure reply',
    );
    expect(reply.body).not.toContain(LLM_KEY);
    expect(reply.body).not.toMatch(/\bat .*\.js:\d+/);
    expect(fx.server.stdout()).not.toContain(LLM_KEY);
  });
});
