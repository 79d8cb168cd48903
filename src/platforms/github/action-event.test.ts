import { describe, expect, it } from 'vitest';
import { parseActionEvent } from './action-event.js';
import { githubExample } from './webhook-examples.test-helper.js';

function pullRequest(head: string | null): Record<string, unknown> {
  const payload = githubExample('pull_request', 'opened');
  payload.repository.full_name = 'acme/widgets';
  payload.pull_request.number = 9;
  payload.pull_request.base.repo.full_name = 'acme/widgets';
  if (head === null) payload.pull_request.head.repo = null;
  else payload.pull_request.head.repo.full_name = head;
  return payload;
}

function comment(association: string, onPullRequest: boolean): Record<string, unknown> {
  const payload = githubExample('issue_comment', 'created');
  payload.repository.full_name = 'acme/widgets';
  payload.issue.number = 9;
  payload.issue.pull_request = onPullRequest
    ? { url: 'https://api.github.com/repos/acme/widgets/pulls/9' }
    : null;
  payload.comment.author_association = association;
  return payload;
}

describe('parseActionEvent', () => {
  it.each([
    ['same repository', 'acme/widgets', false],
    ['same repository, other case', 'Acme/Widgets', false],
    ['a fork', 'mallory/widgets', true],
    ['a deleted fork', null, true],
  ])('pull_request from %s', (_name, head, isFork) => {
    expect(parseActionEvent('pull_request', pullRequest(head))).toEqual({
      kind: 'pull_request',
      repoFullName: 'acme/widgets',
      prNumber: 9,
      headRepoFullName: head,
      isFork,
    });
  });

  it.each([
    ['OWNER', true],
    ['MEMBER', true],
    ['COLLABORATOR', true],
    ['CONTRIBUTOR', false],
    ['NONE', false],
  ])('issue_comment by %s: trusted %s', (association, trusted) => {
    expect(parseActionEvent('issue_comment', comment(association, true))).toMatchObject({
      kind: 'comment',
      prNumber: 9,
      trusted,
    });
  });

  it.each([
    ['issue_comment', comment('OWNER', false), /#9 is an issue, not a pull request/],
    ['pull_request_target', pullRequest('mallory/widgets'), /pull_request_target event is not handled/],
    ['push', githubExample('push'), /push event is not handled/],
    ['pull_request', { ...pullRequest('acme/widgets'), action: 'closed' }, /#9 was closed/],
    ['pull_request', { pull_request: { number: 'x' } }, /lacks pull_request.number/],
  ])('%s: ignored with a reason', (event, payload, reason) => {
    const parsed = parseActionEvent(event, payload);
    expect(parsed.kind).toBe('ignored');
    expect(parsed.kind === 'ignored' && parsed.reason).toMatch(reason);
  });
});
