import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentError, GitError, PlatformError } from '../errors.js';
import { SecretMasker } from '../secrets.js';
import { LLM_KEY, TOKEN, metricValue, startJobFixture, type JobFixture } from './job-fixture.test-helper.js';
import { makePayload } from './records.test-helper.js';
import { failureReason, failureReplyBody, runJob } from './run-job.js';

describe('failureReason', () => {
  const masker = new SecretMasker(['hunter2-secret-value']);
  it.each([
    [new PlatformError('GitHub API error: 404 Not Found'), 'GitHub API error: 404 Not Found'],
    [
      new GitError('git push failed (exit code 1):\n  remote: hunter2-secret-value\n'),
      'git push failed (exit code 1): remote: ***',
    ],
    [new AgentError('the agent reached the turn limit'), 'the agent reached the turn limit'],
    ['a string', 'a string'],
    [new Error(''), 'unknown error'],
    [new Error('x'.repeat(1000)), `${'x'.repeat(399)}…`],
  ])('%s → %s', (error, expected) => {
    expect(failureReason(error, masker)).toBe(expected);
  });

  it('never includes a stack trace', () => {
    const error = new Error('boom');
    expect(failureReason(error, masker)).toBe('boom');
  });
});

describe('failureReplyBody', () => {
  it.each([
    ['reviewer', 'reviewbot could not finish this review: oops'],
    ['worker', 'reviewbot could not finish this task: oops'],
  ] as const)('%s', (botType, expected) => {
    expect(failureReplyBody(botType, 'oops')).toBe(expected);
  });
});

describe('runJob failures', () => {
  let fx: JobFixture;
  beforeAll(async () => {
    fx = await startJobFixture();
  });
  afterAll(async () => {
    await fx?.close();
  });

  it('replies with a short, masked reason when the platform fails, and counts the failure', async () => {
    // GitHub answers with an error message that (absurdly) echoes the token.
    fx.github.failNext('GET', /^\/repos\/acme\/widgets\/pulls\/7$/, 403, {
      message: `Resource not accessible with ${TOKEN}`,
      documentation_url: 'https://docs.github.com/rest',
    });
    const payload = makePayload('reviewer', 'review please', fx.comment({ commentId: '1' }));
    const result = await runJob(payload, fx.ctx);
    expect(result.status).toBe('failed');
    expect(result.error).toMatch(/^GitHub API error while trying to fetch pull request acme\/widgets#7: 403/);
    expect(result.error).not.toContain(TOKEN);

    const reply = fx.github.issueComments.at(-1)!.body;
    expect(reply).toMatch(/^reviewbot could not finish this review: GitHub API error .*403/);
    expect(reply).toContain('***');
    expect(reply).not.toContain(TOKEN);
    expect(reply).not.toMatch(/\bat .*\.(ts|js):\d+/);
    expect(fx.llm.requests).toEqual([]);

    const logs = fx.logs.join('\n');
    expect(logs).not.toContain(TOKEN);
    expect(logs).not.toContain(LLM_KEY);
    const failed = fx.logs
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((l) => l.msg === 'job failed');
    expect(failed).toMatchObject({ jobId: payload.jobId, platform: 'github', repo: 'acme/widgets', pr: 7 });

    const metrics = await fx.ctx.metrics.registry.metrics();
    expect(metricValue(metrics, 'reviewbot_jobs_total', 'bot_type="reviewer",result="failed"')).toBe(1);
  });

  it('fails without a reply when the comment’s platform is not configured', async () => {
    const before = fx.github.requests.length;
    const result = await runJob(makePayload('worker', 'x', fx.comment({ platform: 'gitlab' })), fx.ctx);
    expect(result).toEqual({ status: 'failed', error: 'platform gitlab is not configured in this process' });
    expect(fx.github.requests.length).toBe(before);
  });

  it('still returns failed when the failure reply cannot be posted', async () => {
    fx.github.failNext('GET', /^\/repos\/acme\/widgets\/pulls\/7$/, 404);
    fx.github.failNext('POST', /^\/repos\/acme\/widgets\/issues\/7\/comments$/, 403);
    const result = await runJob(makePayload('worker', 'x', fx.comment()), fx.ctx);
    expect(result.status).toBe('failed');
    expect(fx.logs.some((l) => l.includes('could not post the failure reply'))).toBe(true);
  });
});
