/**
 * REVIEWER jobs against the fake GitHub (REST + git over HTTP) and the fake Anthropic API, through
 * the real platform, workspace, review pipeline and API runner.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commitToBranch, SCENARIO_PATHS } from '../../test/support/git-fixtures.js';
import { makePayload } from './records.test-helper.js';
import { metricValue, startJobFixture, type JobFixture } from './job-fixture.test-helper.js';
import { runJob } from './run-job.js';

let fx: JobFixture;
beforeAll(async () => {
  fx = await startJobFixture();
});
afterAll(async () => {
  await fx?.close();
});

describe('REVIEWER job', () => {
  it('posts a review, then continues the conversation on the next mention in a review thread', async () => {
    const modified = fx.scenario.files[SCENARIO_PATHS.modified]!;
    const line = modified.added[0]!;
    fx.llm.setScript([
      {
        toolCalls: [
          {
            name: 'submit_review',
            input: {
              summary: 'One constant deserves a name.',
              comments: [{ path: modified.path, line, side: 'RIGHT', body: 'Name this magic number.' }],
            },
          },
        ],
        usage: { inputTokens: 1000, outputTokens: 100 },
      },
      {
        text: '{"summary": "Yes: I meant the value on that line; nothing else changed.", "comments": []}',
        usage: { inputTokens: 1500, outputTokens: 50 },
      },
    ]);

    const first = makePayload(
      'reviewer',
      'focus on the constants',
      fx.comment({ commentId: '9001', body: '@rb-review focus on the constants' }),
    );
    expect(await runJob(first, fx.ctx)).toEqual({ status: 'succeeded' });
    expect(fx.github.reviews).toHaveLength(1);
    const review = fx.github.reviews[0]!;
    expect(review.body).toContain('One constant deserves a name.');
    expect(review.state).toBe('COMMENTED');
    const inline = fx.github.reviewComments.filter((c) => c.pull_request_review_id === review.id);
    expect(inline.map((c) => [c.path, c.line, c.body])).toEqual([
      [
        modified.path,
        line,
        expect.stringMatching(
          /^\*\*P2\*\* Name this magic number\.\n\n<!-- reviewbot:finding fp=[0-9a-f]{16} side=RIGHT n=1 sev=P2 -->$/,
        ),
      ],
    ]);

    // A follow-up written as a reply in that inline thread.
    const top = inline[0]!;
    const followUp = makePayload(
      'reviewer',
      'which line did you mean?',
      fx.comment({
        commentType: 'review_comment',
        commentId: String(top.id + 1000),
        discussionId: String(top.id),
        filePath: modified.path,
        line,
      }),
    );
    expect(await runJob(followUp, fx.ctx)).toEqual({ status: 'succeeded' });

    // The second model call carried the first exchange: its prompt and its answer.
    const second = fx.llm.requests[1]!;
    const texts = second.messages.map((m) => `${m.role}: ${m.text}`);
    expect(texts[0]).toMatch(/^user: [\s\S]*focus on the constants/);
    expect(texts[1]).toMatch(/^assistant: [\s\S]*One constant deserves a name\./);
    expect(texts.at(-1)).toMatch(/^user: [\s\S]*which line did you mean\?/);

    // No finding → the body is a reply in the thread of the mention.
    const reply = fx.github.reviewComments.find((c) => c.in_reply_to_id === top.id);
    expect(reply?.body).toContain('I meant the value on that line');
    expect(fx.github.violations).toEqual([]);

    // Tokens of both jobs were counted.
    const metrics = await fx.ctx.metrics.registry.metrics();
    expect(
      metricValue(metrics, 'reviewbot_agent_tokens_total', 'bot_type="reviewer",direction="input"'),
    ).toBe(2500);
    expect(metricValue(metrics, 'reviewbot_jobs_total', 'bot_type="reviewer",result="succeeded"')).toBe(2);
    // §23: the one finding posted (P2: it states no severity).
    const found = (outcome: string) =>
      metricValue(
        metrics,
        'reviewbot_findings_total',
        `platform="github",severity="P2",outcome="${outcome}"`,
      );
    expect(found('posted')).toBe(1);
  });

  it('reviews a lifecycle event with no extra instructions and posts the body as a PR comment', async () => {
    fx.llm.setScript([{ text: '{"summary": "Automatic review: fine.", "comments": []}' }]);
    const before = fx.github.issueComments.length;
    const payload = makePayload(
      'reviewer',
      '',
      fx.comment({ commentType: 'lifecycle', eventType: 'pr_opened', authorUsername: 'octocat' }),
    );
    // §13: the head was reviewed by the test above, so a trigger runs no agent and posts nothing.
    const calls = fx.llm.requests.length;
    expect(await runJob(payload, fx.ctx)).toEqual({ status: 'succeeded' });
    expect(fx.llm.requests).toHaveLength(calls);
    expect(fx.github.issueComments).toHaveLength(before);
    // With incremental reviews turned off, every trigger is a full review.
    fx.ctx.config.review.incremental = false;
    expect(await runJob(payload, fx.ctx)).toEqual({ status: 'succeeded' });
    const request = fx.llm.requests.at(-1)!;
    expect(request.messages.at(-1)?.text).toContain('No extra instructions were given');
    const posted = fx.github.issueComments.slice(before);
    expect(posted.map((c) => c.body)).toEqual([expect.stringContaining('Automatic review: fine.')]);
  });

  it('with review.gate on, the verdict is the reviewbot/verdict status; an override turns it green (§21)', async () => {
    const modified = fx.scenario.files[SCENARIO_PATHS.modified]!;
    fx.ctx.config.review.gate = 'on';
    fx.llm.setScript([
      {
        toolCalls: [
          {
            name: 'submit_review',
            input: {
              summary: 'A crash.',
              comments: [
                {
                  path: modified.path,
                  line: modified.added.at(-1)!,
                  body: 'Crashes on start.',
                  severity: 'P0',
                },
              ],
            },
          },
        ],
      },
    ]);
    const gate = () => fx.github.statuses.filter((s) => s.context === 'reviewbot/verdict');
    const payload = makePayload(
      'reviewer',
      'again',
      fx.comment({ commentId: '9101', body: '@rb-review again' }),
    );
    expect(await runJob(payload, fx.ctx)).toEqual({ status: 'succeeded' });
    expect(fx.github.reviews.at(-1)!.body).toMatch(/A crash\.\n\n\*\*Verdict:\*\* blocking — P0 ×1/);
    expect(gate().at(-1)).toMatchObject({
      state: 'failure',
      description: expect.stringMatching(/^blocking — P0 ×1/),
    });

    const calls = fx.llm.requests.length;
    const override = makePayload(
      'reviewer',
      'override known crash, fixed in #12',
      fx.comment({ commentId: '9102', body: '@rb-review override known crash, fixed in #12' }),
    );
    expect(await runJob(override, fx.ctx)).toEqual({ status: 'succeeded' });
    expect(fx.llm.requests).toHaveLength(calls);
    expect(gate().at(-1)).toMatchObject({
      state: 'success',
      description: 'overridden by @alice: known crash, fixed in #12',
      target_url: expect.stringMatching(/pull\/7$/),
    });
    expect(fx.github.issueComments.at(-1)!.body).toContain('gate is green for');
    expect(fx.github.violations).toEqual([]);

    // With the gate off, an override only answers.
    fx.ctx.config.review.gate = 'off';
    const before = gate().length;
    expect(await runJob(override, fx.ctx)).toEqual({ status: 'succeeded' });
    expect(gate()).toHaveLength(before);
    expect(fx.github.issueComments.at(-1)!.body).toContain('the `reviewbot/verdict` gate is off');
  });

  it('counts the finding whose code changed as addressed when the next review resolves its thread', async () => {
    const modified = fx.scenario.files[SCENARIO_PATHS.modified]!;
    const line = modified.added[0]!;
    const text = await fx.bareGit('show', `${fx.scenario.head}:${modified.path}`);
    const lines = text.split('\n');
    lines[line - 1] = `${lines[line - 1]} // renamed`;
    commitToBranch(fx.scenario.bareRepoPath, {
      branch: fx.scenario.head,
      message: 'Name the constant',
      changes: { write: { [modified.path]: lines.join('\n') } },
    });
    fx.llm.setScript([{ text: '{"summary": "Looks better now.", "comments": []}' }]);
    const payload = makePayload(
      'reviewer',
      'again',
      fx.comment({ commentId: '9002', body: '@rb-review again' }),
    );
    expect(await runJob(payload, fx.ctx)).toEqual({ status: 'succeeded' });
    expect(fx.github.reviewThreads.filter((t) => t.resolved)).toHaveLength(1);
    const metrics = await fx.ctx.metrics.registry.metrics();
    expect(
      metricValue(metrics, 'reviewbot_findings_total', 'platform="github",severity="P2",outcome="addressed"'),
    ).toBe(1);
  });
});
