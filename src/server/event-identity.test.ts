import { describe, expect, it } from 'vitest';
import type { ReviewComment } from '../platforms/types.js';
import { eventIdentity } from './event-identity.js';

const SHA = '3f786850e387550fdab836ed7e6dc881de23001b';

function event(overrides: Partial<ReviewComment> = {}): ReviewComment {
  return {
    platform: 'github',
    repoFullName: 'acme/widgets',
    prNumber: 7,
    prBranch: 'feature',
    baseBranch: 'main',
    headSha: SHA,
    prTitle: 'A title',
    commentId: '42',
    commentType: 'issue_comment',
    authorUsername: 'alice',
    body: '@bot review',
    cloneUrl: 'https://example.test/acme/widgets.git',
    deliveryId: 'd-1',
    eventType: 'comment',
    ...overrides,
  };
}

const lifecycle = (overrides: Partial<ReviewComment> = {}) =>
  event({ commentId: '', commentType: 'lifecycle', body: '', eventType: 'pr_push', ...overrides });

describe('eventIdentity', () => {
  it('is 64 hex digits', () => {
    expect(eventIdentity(event())).toMatch(/^[0-9a-f]{64}$/);
  });

  it.each<[string, Partial<ReviewComment>]>([
    ['another delivery id', { deliveryId: 'd-2' }],
    ['another head (the pull request moved on)', { headSha: 'b'.repeat(40) }],
    ['another title, branch or clone URL', { prTitle: 'x', prBranch: 'y', cloneUrl: '' }],
  ])('a comment is the same event with %s', (_name, overrides) => {
    expect(eventIdentity(event(overrides))).toBe(eventIdentity(event()));
  });

  it.each<[string, Partial<ReviewComment>]>([
    ['another comment id', { commentId: '43' }],
    ['the same id in another thread (Azure DevOps numbers comments per thread)', { discussionId: '12' }],
    ['another pull request', { prNumber: 8 }],
    ['another kind of comment with the same id', { commentType: 'review_comment' }],
    ['another repository', { repoFullName: 'acme/gadgets' }],
    ['another platform', { platform: 'gitea' }],
  ])('a comment is another event with %s', (_name, overrides) => {
    expect(eventIdentity(event(overrides))).not.toBe(eventIdentity(event()));
  });

  it.each<[string, Partial<ReviewComment>]>([
    ['another head', { headSha: 'b'.repeat(40) }],
    ['another pull request', { prNumber: 8 }],
    ['another lifecycle event', { eventType: 'pr_reopened' }],
    ['another repository', { repoFullName: 'acme/gadgets' }],
  ])('a lifecycle event is another event with %s', (_name, overrides) => {
    expect(eventIdentity(lifecycle(overrides))).not.toBe(eventIdentity(lifecycle()));
  });

  it('a lifecycle event is the same event under another delivery id or sender', () => {
    expect(eventIdentity(lifecycle({ deliveryId: 'x', authorUsername: 'bob' }))).toBe(
      eventIdentity(lifecycle()),
    );
  });

  it('a comment without an id (a Gitea review) is told apart by its text, author and head', () => {
    const review = (overrides: Partial<ReviewComment> = {}) =>
      event({ commentId: '', commentType: 'review', ...overrides });
    expect(eventIdentity(review({ deliveryId: 'other' }))).toBe(eventIdentity(review()));
    for (const overrides of [
      { body: '@bot again' },
      { authorUsername: 'bob' },
      { headSha: 'c'.repeat(40) },
    ]) {
      expect(eventIdentity(review(overrides))).not.toBe(eventIdentity(review()));
    }
  });

  it('keeps parts apart whatever they hold', () => {
    const a = eventIdentity(event({ repoFullName: 'a","b', commentId: '1' }));
    const b = eventIdentity(event({ repoFullName: 'a', commentId: 'b","1' }));
    expect(a).not.toBe(b);
  });

  it.each<[string, ReviewComment]>([
    ['a lifecycle event without a head SHA', lifecycle({ headSha: '' })],
    ['a comment with neither id nor head SHA', event({ commentId: '', headSha: '' })],
  ])('has none for %s', (_name, comment) => {
    expect(eventIdentity(comment)).toBeUndefined();
  });
});
