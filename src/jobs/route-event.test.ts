import { describe, expect, it } from 'vitest';
import type { ReviewComment } from '../platforms/types.js';
import { makeComment, makeLifecycle } from './records.test-helper.js';
import { isBotAuthor, routeEvent, type RouteDecision, type RouteRules } from './route-event.js';

const rules: RouteRules = {
  reviewerUsername: 'rb-review',
  workerUsername: 'rb-worker',
  botIdentities: ['reviewbot-app[bot]', 'reviewbot-token-user'],
  allowedUsers: ['alice', 'Bob'],
  allowedRepos: [],
  triggers: ['pr_opened'],
};

const ignore = (reason: string): RouteDecision => ({ action: 'ignore', reason });

describe('routeEvent', () => {
  it.each<[string, ReviewComment, Partial<RouteRules>, RouteDecision]>([
    [
      'a reviewer mention',
      makeComment({ body: '@rb-review check the tests' }),
      {},
      { action: 'job', botType: 'reviewer', prompt: 'check the tests' },
    ],
    [
      'a worker mention in a review comment',
      makeComment({ body: 'please @rb-worker fix', commentType: 'review_comment' }),
      {},
      { action: 'job', botType: 'worker', prompt: 'please  fix' },
    ],
    ['no mention', makeComment({ body: 'looks good' }), {}, ignore('no mention of the bot')],
    ['a mention in code only', makeComment({ body: '`@rb-worker`' }), {}, ignore('no mention of the bot')],
    [
      'the reviewer bot itself',
      makeComment({ authorUsername: 'RB-Review', body: '@rb-worker go' }),
      {},
      ignore('comment by a bot'),
    ],
    [
      'the worker bot itself',
      makeComment({ authorUsername: 'rb-worker', body: '@rb-review go' }),
      {},
      ignore('comment by a bot'),
    ],
    [
      'the authenticated account',
      makeComment({ authorUsername: 'reviewbot-token-user' }),
      {},
      ignore('comment by a bot'),
    ],
    [
      'the App account',
      makeComment({ authorUsername: 'ReviewBot-App[bot]' }),
      {},
      ignore('comment by a bot'),
    ],
    ['any [bot] account', makeComment({ authorUsername: 'dependabot[bot]' }), {}, ignore('comment by a bot')],
    [
      'a repository outside allowed_repos',
      makeComment(),
      { allowedRepos: ['acme/other'] },
      ignore('repository acme/widgets is not in allowed_repos'),
    ],
    [
      'a repository in allowed_repos (any case)',
      makeComment({ body: '@rb-review' }),
      { allowedRepos: ['ACME/Widgets'] },
      { action: 'job', botType: 'reviewer', prompt: '' },
    ],
    ['an enabled lifecycle trigger', makeLifecycle(), {}, { action: 'job', botType: 'reviewer', prompt: '' }],
    [
      'an enabled lifecycle trigger sent by a bot account',
      makeLifecycle({ authorUsername: 'rb-worker', eventType: 'pr_push' }),
      { triggers: ['pr_push'] },
      { action: 'job', botType: 'reviewer', prompt: '' },
    ],
    [
      'a lifecycle trigger that is not enabled',
      makeLifecycle({ eventType: 'pr_push' }),
      {},
      ignore('trigger pr_push is not enabled'),
    ],
    [
      'a lifecycle trigger with no triggers configured',
      makeLifecycle(),
      { triggers: [] },
      ignore('trigger pr_opened is not enabled'),
    ],
    [
      'a lifecycle trigger outside allowed_repos',
      makeLifecycle(),
      { allowedRepos: ['acme/other'] },
      ignore('repository acme/widgets is not in allowed_repos'),
    ],
    [
      'a mention by a user outside allowed_users',
      makeComment({ authorUsername: 'mallory', body: '@rb-review go' }),
      {},
      ignore('user mallory is not allowed'),
    ],
    [
      'a mention by an allowed user (any case)',
      makeComment({ authorUsername: 'BOB', body: '@rb-review go' }),
      {},
      { action: 'job', botType: 'reviewer', prompt: 'go' },
    ],
    [
      'a comment when allowed_users is empty',
      makeComment({ body: '@rb-review go' }),
      { allowedUsers: [] },
      ignore('user alice is not allowed'),
    ],
    [
      'a lifecycle trigger by a user outside allowed_users',
      makeLifecycle({ authorUsername: 'mallory' }),
      {},
      { action: 'job', botType: 'reviewer', prompt: '' },
    ],
    [
      'a mention by a user allowed on another platform only (github:alice, comment on GitLab)',
      makeComment({ platform: 'gitlab', authorUsername: 'alice', body: '@rb-review go' }),
      { allowedUsers: ['github:alice'] },
      ignore('user alice is not allowed'),
    ],
    [
      'a mention by a user allowed on its platform (gitlab:alice)',
      makeComment({ platform: 'gitlab', authorUsername: 'Alice', body: '@rb-review go' }),
      { allowedUsers: ['github:bob', 'gitlab:alice'] },
      { action: 'job', botType: 'reviewer', prompt: 'go' },
    ],
    [
      'a repository allowed on another platform only (gitlab:acme/widgets, comment on GitHub)',
      makeComment({ body: '@rb-review' }),
      { allowedRepos: ['gitlab:acme/widgets'] },
      ignore('repository acme/widgets is not in allowed_repos'),
    ],
    [
      'a lifecycle trigger of a repository allowed on its platform (github:acme/widgets)',
      makeLifecycle(),
      { allowedRepos: ['github:acme/widgets'] },
      { action: 'job', botType: 'reviewer', prompt: '' },
    ],
    [
      'a mention of a bot that is not configured',
      makeComment({ body: '@rb-worker go' }),
      { workerUsername: undefined },
      ignore('no mention of the bot'),
    ],
    [
      "a mention by the platform's name for the bot (Bitbucket Cloud account id) starts the REVIEWER",
      makeComment({
        platform: 'bitbucket',
        authorUsername: '{alice}',
        body: '@{557058:bot-1} please review',
      }),
      { botMentionNames: { bitbucket: ['{557058:bot-1}'] } },
      { action: 'job', botType: 'reviewer', prompt: 'please review' },
    ],
    [
      'the same with only a WORKER configured starts the WORKER',
      makeComment({ platform: 'bitbucket', authorUsername: '{alice}', body: '@{557058:bot-1} fix it' }),
      { botMentionNames: { bitbucket: ['{557058:bot-1}'] }, reviewerUsername: undefined },
      { action: 'job', botType: 'worker', prompt: 'fix it' },
    ],
    [
      'a configured name mentioned first still decides',
      makeComment({
        platform: 'bitbucket',
        authorUsername: '{alice}',
        body: '@rb-worker and @{557058:bot-1}',
      }),
      { botMentionNames: { bitbucket: ['{557058:bot-1}'] } },
      { action: 'job', botType: 'worker', prompt: 'and @{557058:bot-1}' },
    ],
    [
      "another platform's name for the bot is no mention here",
      makeComment({ body: '@{557058:bot-1} please review' }),
      { botMentionNames: { bitbucket: ['{557058:bot-1}'] } },
      ignore('no mention of the bot'),
    ],
    [
      'another account id is no mention',
      makeComment({ platform: 'bitbucket', authorUsername: '{alice}', body: '@{557058:other} review' }),
      { botMentionNames: { bitbucket: ['{557058:bot-1}'] } },
      ignore('no mention of the bot'),
    ],
  ])('%s', (_label, comment, override, expected) => {
    expect(routeEvent(comment, { ...rules, ...override })).toEqual(expected);
  });
});

describe('routeEvent reads the body only of comments that may start a job', () => {
  /** `comment` whose `body` throws when read: routing must decide from the payload's names. */
  function unreadable(comment: ReviewComment): ReviewComment {
    return Object.defineProperty({ ...comment }, 'body', {
      get(): string {
        throw new Error('the body was read');
      },
    });
  }

  it.each<[string, ReviewComment, RouteDecision]>([
    [
      'a user outside allowed_users',
      makeComment({ authorUsername: 'mallory' }),
      ignore('user mallory is not allowed'),
    ],
    ['the bot itself', makeComment({ authorUsername: 'rb-review' }), ignore('comment by a bot')],
    ['a [bot] account', makeComment({ authorUsername: 'renovate[bot]' }), ignore('comment by a bot')],
    [
      'a repository outside allowed_repos',
      makeComment({ repoFullName: 'acme/other' }),
      ignore('repository acme/other is not in allowed_repos'),
    ],
  ])('%s: ignored without reading the body', (_label, comment, expected) => {
    expect(routeEvent(unreadable(comment), { ...rules, allowedRepos: ['acme/widgets'] })).toEqual(expected);
  });

  it('an allowed user: the body is read', () => {
    expect(() => routeEvent(unreadable(makeComment()), rules)).toThrow('the body was read');
  });
});

describe('isBotAuthor', () => {
  it.each([
    ['rb-review', true],
    ['RB-WORKER', true],
    ['renovate[bot]', true],
    ['alice', false],
    ['rb-reviewer', false],
    ['', false],
  ])('%s → %s', (login, expected) => {
    expect(isBotAuthor(login, { ...rules, botIdentities: [] })).toBe(expected);
  });
});
