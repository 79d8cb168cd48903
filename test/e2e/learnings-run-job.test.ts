/**
 * A learning command in cluster mode (CONTRACT §20): a real `reviewbot run-job` process (the Job
 * pod's entry point) with a REVIEWER `learn` payload stores the learning in the Redis store, replies
 * on the pull request and calls no model; the CLI then reads it from the same store.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobPayload } from '../../src/jobs/types.js';
import { startRedis, type RedisServer } from '../support/redis-server.js';
import { runCli } from '../support/run-cli.js';
import { createCliFixture, GITHUB_TOKEN, type CliFixture } from './cli-fixture.js';

let fx: CliFixture;
let redis: RedisServer;
beforeAll(async () => {
  fx = await createCliFixture();
  redis = await startRedis();
});
afterAll(async () => {
  await redis?.stop();
  await fx?.close();
});

describe('run-job with a learn command', () => {
  it('stores the learning in Redis and replies, with no model call', async () => {
    const body = '@rb-review learn Constants are named in UPPER_CASE.';
    const comment = fx.github.addIssueComment({
      owner: 'acme',
      repo: 'widgets',
      number: 7,
      body,
      user: 'alice',
    });
    const payload: JobPayload = {
      version: 1,
      jobId: randomUUID(),
      botType: 'reviewer',
      prompt: 'learn Constants are named in UPPER_CASE.',
      enqueuedAt: new Date().toISOString(),
      comment: {
        platform: 'github',
        repoFullName: 'acme/widgets',
        prNumber: 7,
        prBranch: 'feature',
        baseBranch: 'main',
        headSha: fx.scenario.headSha,
        prTitle: 'Tune the service constants',
        commentId: String(comment.id),
        commentType: 'issue_comment',
        authorUsername: 'alice',
        body,
        cloneUrl: fx.github.gitUrl('acme', 'widgets'),
        deliveryId: 'delivery-learn',
        eventType: 'comment',
      },
    };
    const env = { WORKSPACE_BASE_DIR: fx.baseDir, HOME: fx.root, STORE_URL: redis.url };
    const result = await runCli(
      ['run-job'],
      {
        ...env,
        CODEHOST_TOKEN: GITHUB_TOKEN,
        CODEHOST_API_URL: fx.github.url,
        AGENT_PROVIDER: 'anthropic',
        AGENT_MODEL: 'claude-test',
        ANTHROPIC_API_KEY: 'sk-unused',
        // Nothing listens here: a model call would fail the job.
        ANTHROPIC_BASE_URL: 'http://127.0.0.1:9',
        REVIEWER_BOT_USERNAME: 'rb-review',
        REVIEWBOT_JOB_PAYLOAD: JSON.stringify(payload),
      },
      60_000,
    );
    expect(result.code).toBe(0);
    const reply = fx.github.issueComments.find((c) => c.body?.startsWith('Learned `'));
    const id = /Learned `([0-9a-f]{8})`/.exec(reply?.body ?? '')?.[1];
    expect(id).toMatch(/^[0-9a-f]{8}$/);
    const listed = await runCli(['learnings', 'list', 'github:acme/widgets', '--json'], env);
    expect(JSON.parse(listed.stdout)).toMatchObject({
      learnings: [
        expect.objectContaining({ id, text: 'Constants are named in UPPER_CASE.', author: 'alice' }),
      ],
    });
    expect(fx.github.violations).toEqual([]);
  });
});
