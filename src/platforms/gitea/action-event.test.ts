import { describe, expect, it } from 'vitest';
import { giteaServerUrl, isGiteaActions, parseGiteaActionEvent } from './action-event.js';
import { CTX, PR } from './gitea-hooks.test-helper.js';
import {
  issueCommentHook,
  pullRequestCommentHook,
  pullRequestHook,
} from '../../../test/support/fake-gitea/webhook-payloads.js';

describe('Gitea/Forgejo Actions detection', () => {
  it.each([
    [{ GITEA_ACTIONS: 'true', GITHUB_ACTIONS: 'true' }, true],
    [{ FORGEJO_ACTIONS: 'true', GITHUB_ACTIONS: 'true' }, true],
    [{ GITHUB_ACTIONS: 'true', GITHUB_API_URL: 'https://git.example/api/v1' }, true],
    [{ GITHUB_ACTIONS: 'true', GITHUB_API_URL: 'https://api.github.com' }, false],
    [{ GITHUB_ACTIONS: 'true', GITHUB_API_URL: 'https://ghe.example/api/v3' }, false],
    [{}, false],
  ])('%j → %s', (env, gitea) => {
    expect(isGiteaActions(env)).toBe(gitea);
  });

  it('takes the instance from GITHUB_SERVER_URL, else from GITHUB_API_URL', () => {
    expect(giteaServerUrl({ GITHUB_SERVER_URL: 'https://git.example/', GITHUB_API_URL: 'x' })).toBe(
      'https://git.example',
    );
    expect(giteaServerUrl({ GITHUB_API_URL: 'https://git.example/sub/api/v1' })).toBe(
      'https://git.example/sub',
    );
    expect(giteaServerUrl({})).toBeUndefined();
  });
});

describe('parseGiteaActionEvent (Gitea payloads at GITHUB_EVENT_PATH)', () => {
  it('a pull_request event of the repository itself', () => {
    expect(parseGiteaActionEvent('pull_request', pullRequestHook(CTX, PR, 'synchronized').payload)).toEqual({
      kind: 'pull_request',
      repoFullName: 'acme/widgets',
      prNumber: 7,
      headRepoFullName: 'acme/widgets',
      isFork: false,
    });
  });

  it.each([
    ['a fork', 'bob.dev/widgets', 'bob.dev/widgets'],
    ['a deleted fork', null, null],
  ])('%s is a fork', (_name, headRepo, head) => {
    const event = parseGiteaActionEvent(
      'pull_request',
      pullRequestHook(CTX, { ...PR, headRepo }, 'opened').payload,
    );
    expect(event).toMatchObject({ kind: 'pull_request', isFork: true, headRepoFullName: head });
  });

  it('a closed pull request is nothing to review', () => {
    expect(parseGiteaActionEvent('pull_request', pullRequestHook(CTX, PR, 'closed').payload)).toEqual({
      kind: 'ignored',
      reason: 'pull request #7 was closed',
    });
  });

  it.each([
    [{ admin: false, push: true, pull: true }, true],
    [{ admin: true, push: false, pull: true }, true],
    [{ admin: false, push: false, pull: true }, false],
    [null, false],
  ])('a comment by a user with permissions %j: trusted %s', (permissions, trusted) => {
    const { payload } = pullRequestCommentHook(CTX, PR, { id: 3, body: '/review', author: 'rb.dev' });
    (payload.repository as Record<string, unknown>).permissions = permissions;
    expect(parseGiteaActionEvent('issue_comment', payload)).toEqual({
      kind: 'comment',
      repoFullName: 'acme/widgets',
      prNumber: 7,
      authorLogin: 'rb.dev',
      trusted,
      body: '/review',
    });
  });

  it.each([
    [
      'issue_comment',
      issueCommentHook(CTX, 3, { id: 1, body: '/review' }).payload,
      '#3 is an issue, not a pull request',
    ],
    ['push', {}, 'the push event is not handled (use pull_request or issue_comment)'],
    ['pull_request', { pull_request: { number: 1 } }, 'the pull_request event lacks'],
  ])('%s → ignored', (name, payload, reason) => {
    const event = parseGiteaActionEvent(name, payload);
    expect(event.kind).toBe('ignored');
    expect((event as { reason: string }).reason).toContain(reason);
  });

  it('refuses a repository name Gitea would not allow', () => {
    const { payload } = pullRequestHook(CTX, PR, 'opened');
    (payload.repository as Record<string, unknown>).full_name = 'acme/..';
    expect(parseGiteaActionEvent('pull_request', payload)).toMatchObject({ kind: 'ignored' });
  });
});
