import { describe, expect, it } from 'vitest';
import type { ReplyTarget, ReviewComment } from '../platforms/types.js';
import { makeComment, makeLifecycle } from './records.test-helper.js';
import { replyTargetOf } from './reply-target.js';

const pr = { repoFullName: 'acme/widgets', prNumber: 7 };

describe('replyTargetOf', () => {
  it.each<[string, ReviewComment, ReplyTarget]>([
    ['GitHub conversation comment', makeComment(), pr],
    ['GitHub review body', makeComment({ commentType: 'review' }), pr],
    [
      'GitHub top-level review comment',
      makeComment({ commentType: 'review_comment', commentId: '55' }),
      { ...pr, inReplyToCommentId: '55' },
    ],
    [
      'GitHub reply in a review thread',
      makeComment({ commentType: 'review_comment', commentId: '56', discussionId: '55' }),
      { ...pr, inReplyToCommentId: '55' },
    ],
    ['GitHub lifecycle event', makeLifecycle(), pr],
    [
      'GitLab diff note',
      makeComment({ platform: 'gitlab', commentType: 'review_comment', discussionId: 'abc123' }),
      { ...pr, discussionId: 'abc123' },
    ],
    [
      'GitLab note in a discussion',
      makeComment({ platform: 'gitlab', discussionId: 'def456' }),
      { ...pr, discussionId: 'def456' },
    ],
    ['GitLab note without discussion', makeComment({ platform: 'gitlab' }), pr],
    ['GitLab lifecycle event', makeLifecycle({ platform: 'gitlab' }), pr],
  ])('%s', (_label, comment, expected) => {
    expect(replyTargetOf(comment)).toEqual(expected);
  });
});
