/**
 * handleComment / createDispatcher against the fake GitHub through the real GitHub platform: the
 * `eyes` reaction is a real API call, and the dispatcher answers without waiting for it.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../logger.js';
import { createGitHubPlatform } from '../platforms/github/platform.js';
import type { Platform } from '../platforms/types.js';
import { startScenarioFake, TOKEN, type ScenarioFake } from '../../test/support/fake-github/test-kit.js';
import { createDispatcher, handleComment, isAllowedUser } from './handle-comment.js';
import { makeComment, makeLifecycle, stubPlatform } from './records.test-helper.js';
import type { RouteRules } from './route-event.js';
import type { JobPayload, JobRunner } from './types.js';

interface Submitted {
  payload: JobPayload;
  before: Promise<unknown> | undefined;
}

/** A JobRunner that records what it is given and runs nothing. */
function recordingRunner(options: { refuse?: boolean } = {}): JobRunner & { submitted: Submitted[] } {
  const submitted: Submitted[] = [];
  return {
    submitted,
    submit(payload, submitOptions) {
      if (options.refuse) throw new Error('runner is shutting down');
      submitted.push({ payload, before: submitOptions?.before });
    },
    depth: () => submitted.length,
    shutdown: async () => [],
  };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('isAllowedUser', () => {
  it.each([
    ['alice', ['alice'], true],
    ['Alice', ['ALICE', 'bob'], true],
    ['carol', ['alice', 'bob'], false],
    ['alice', [], false],
    ['', [''], true],
    // Bitbucket Cloud: authors are `{<account id>}`; an entry lists the account id, braces optional.
    ['{557058:a1b2}', ['557058:a1b2'], true],
    ['{557058:a1b2}', ['{557058:A1B2}'], true],
    ['{557058:a1b2}', ['alice'], false],
    ['557058:a1b2', ['{557058:a1b2}'], false],
  ])('Bitbucket Cloud: %s in %j → %s', (login, list, expected) => {
    expect(isAllowedUser(login, list, 'bitbucket')).toBe(expected);
  });

  it.each(['bitbucket-server', 'github', 'gitea', 'azure-devops'])(
    'on %s a login {alice} is not the allowed user alice',
    (platform) => {
      expect(isAllowedUser('{alice}', ['alice'], platform)).toBe(false);
      expect(isAllowedUser('alice', ['alice'], platform)).toBe(true);
    },
  );
});

describe('handleComment', () => {
  let fx: ScenarioFake;
  let platform: Platform;
  let commentId: string;
  beforeAll(async () => {
    fx = await startScenarioFake();
    platform = createGitHubPlatform({
      settings: { auth: { kind: 'token', token: TOKEN }, apiUrl: fx.fake.url, webhookSecret: undefined },
      logger: silentLogger(),
    });
    const seeded = fx.fake.addIssueComment({
      owner: 'acme',
      repo: 'widgets',
      number: 1,
      body: '@rb-review please',
      user: 'alice',
    });
    commentId = String(seeded.id);
  });
  afterAll(async () => {
    await fx?.close();
  });
  beforeEach(() => {
    fx.fake.setLatency(0);
  });

  const mentionComment = () =>
    makeComment({ prNumber: 1, commentId, body: '@rb-review please', authorUsername: 'Alice' });

  it('enqueues at once and adds the eyes reaction without waiting for it', async () => {
    fx.fake.setLatency(2000, /reactions/);
    const runner = recordingRunner();
    const started = Date.now();
    const outcome = handleComment(
      mentionComment(),
      { botType: 'reviewer', prompt: 'please' },
      {
        platform,
        allowedUsers: ['alice'],
        jobRunner: runner,
        logger: silentLogger(),
        now: () => new Date('2025-03-04T05:06:07.000Z'),
      },
    );
    expect(Date.now() - started).toBeLessThan(200);
    expect(outcome).toEqual({ status: 'accepted' });
    expect(runner.submitted).toHaveLength(1);
    const { payload, before } = runner.submitted[0]!;
    expect(payload).toEqual({
      version: 1,
      jobId: expect.stringMatching(UUID),
      botType: 'reviewer',
      comment: mentionComment(),
      prompt: 'please',
      enqueuedAt: '2025-03-04T05:06:07.000Z',
    });
    // The reaction is still on its way when the job is queued ...
    expect(fx.fake.reactions).toEqual([]);
    // ... and the runner's `before` settles once it was posted.
    await before;
    expect(Date.now() - started).toBeGreaterThanOrEqual(1900);
    expect(fx.fake.reactions.map((r) => [r.content, r.subject_type, String(r.subject_id)])).toEqual([
      ['eyes', 'issue_comment', commentId],
    ]);
  });

  it('rejects a user outside allowed_users: no reaction, no job', () => {
    const runner = recordingRunner();
    const requests = fx.fake.requests.length;
    const outcome = handleComment(
      makeComment({ prNumber: 1, commentId, authorUsername: 'mallory' }),
      { botType: 'worker', prompt: 'rm -rf' },
      { platform, allowedUsers: ['alice'], jobRunner: runner, logger: silentLogger() },
    );
    expect(outcome).toEqual({ status: 'ignored', reason: 'user mallory is not allowed' });
    expect(runner.submitted).toEqual([]);
    expect(fx.fake.requests.length).toBe(requests);
  });

  it('allows nobody when allowed_users is empty', async () => {
    const runner = recordingRunner();
    const outcome = handleComment(
      mentionComment(),
      { botType: 'reviewer', prompt: '' },
      { platform, allowedUsers: [], jobRunner: runner, logger: silentLogger() },
    );
    expect((await outcome).status).toBe('ignored');
    expect(runner.submitted).toEqual([]);
  });

  it('runs lifecycle events for anyone, without a reaction', () => {
    const runner = recordingRunner();
    const requests = fx.fake.requests.length;
    const outcome = handleComment(
      makeLifecycle({ prNumber: 1 }),
      { botType: 'reviewer', prompt: '' },
      { platform, allowedUsers: [], jobRunner: runner, logger: silentLogger() },
    );
    expect(outcome).toEqual({ status: 'accepted' });
    expect(runner.submitted[0]?.before).toBeUndefined();
    expect(runner.submitted[0]?.payload.prompt).toBe('');
    expect(fx.fake.requests.length).toBe(requests);
  });

  it('still runs the job when the reaction fails', async () => {
    fx.fake.failNext('POST', /reactions$/, 403);
    const runner = recordingRunner();
    const outcome = handleComment(
      mentionComment(),
      { botType: 'reviewer', prompt: '' },
      { platform, allowedUsers: ['alice'], jobRunner: runner, logger: silentLogger() },
    );
    expect(outcome).toEqual({ status: 'accepted' });
    await expect(runner.submitted[0]!.before).resolves.toBeUndefined();
  });
});

describe('createDispatcher', () => {
  const rules: Omit<RouteRules, 'allowedUsers'> = {
    reviewerUsername: 'rb-review',
    workerUsername: 'rb-worker',
    botIdentities: ['reviewbot-test'],
    allowedRepos: [],
    triggers: ['pr_opened'],
  };
  /** A platform whose reaction never settles: the dispatcher must not wait for it. */
  const hangingPlatform = stubPlatform({ addReaction: () => new Promise<void>(() => undefined) });

  it.each([
    [
      'a mention by an allowed user',
      makeComment({ body: '@rb-worker fix it' }),
      { status: 'accepted' },
      'worker',
    ],
    [
      'the bot’s own comment',
      makeComment({ authorUsername: 'reviewbot-test', body: '@rb-worker x' }),
      { status: 'ignored', reason: 'comment by a bot' },
      undefined,
    ],
    [
      'no mention',
      makeComment({ body: 'thanks!' }),
      { status: 'ignored', reason: 'no mention of the bot' },
      undefined,
    ],
    [
      'an unauthorized user',
      makeComment({ authorUsername: 'eve', body: '@rb-worker x' }),
      { status: 'ignored', reason: 'user eve is not allowed' },
      undefined,
    ],
    ['an enabled lifecycle event', makeLifecycle(), { status: 'accepted' }, 'reviewer'],
  ] as const)('%s', (_label, comment, expected, botType) => {
    const runner = recordingRunner();
    const dispatch = createDispatcher({
      rules,
      allowedUsers: ['alice'],
      jobRunner: runner,
      logger: silentLogger(),
    });
    const outcome = dispatch(hangingPlatform, comment, silentLogger());
    expect(outcome).toEqual(expected);
    expect(runner.submitted.map((s) => s.payload.botType)).toEqual(botType ? [botType] : []);
  });

  it('answers ignored when the runner refuses the job', () => {
    const dispatch = createDispatcher({
      rules,
      allowedUsers: ['alice'],
      jobRunner: recordingRunner({ refuse: true }),
      logger: silentLogger(),
    });
    expect(dispatch(hangingPlatform, makeComment({ body: '@rb-review' }))).toEqual({
      status: 'ignored',
      reason: 'the job could not be queued',
    });
  });
});
