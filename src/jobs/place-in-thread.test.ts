/** `placeInThread`: a mention the event did not place is answered in the inline thread it is in. */
import { describe, expect, it } from 'vitest';
import type { LocatedComment, Platform, ReviewComment } from '../platforms/types.js';
import { placeInThread } from './place-in-thread.js';
import { makeComment, makeLifecycle, stubPlatform } from './records.test-helper.js';

const THREAD: LocatedComment = {
  discussionId: '40',
  path: 'src/a.ts',
  line: 3,
  side: 'LEFT',
  diffHunk: '@@ -1,3 +1,3 @@',
};

function recording(locate: () => Promise<LocatedComment | undefined>) {
  const calls: string[] = [];
  const warnings: unknown[] = [];
  const platform: Platform = stubPlatform({
    locateComment: async (_repo, _pr, id) => {
      calls.push(id);
      return locate();
    },
  });
  const logger = { warn: (obj: unknown) => warnings.push(obj) } as never;
  return { platform, calls, warnings, logger };
}

describe('placeInThread', () => {
  it('places a conversation-typed comment found in an inline thread there', async () => {
    const { platform, calls, logger } = recording(async () => THREAD);
    const comment = makeComment({ commentId: '42', commentType: 'issue_comment' });
    expect(await placeInThread(platform, comment, logger)).toEqual({
      ...comment,
      commentType: 'review_comment',
      discussionId: '40',
      filePath: 'src/a.ts',
      line: 3,
      side: 'LEFT',
      diffHunk: '@@ -1,3 +1,3 @@',
    });
    expect(calls).toEqual(['42']);
  });

  it.each<[string, ReviewComment]>([
    ['a lifecycle event', makeLifecycle()],
    ['a review body', makeComment({ commentId: '42', commentType: 'review' })],
    [
      'an inline comment whose event named its file',
      makeComment({ commentId: '42', commentType: 'review_comment', filePath: 'src/b.ts' }),
    ],
  ])('leaves %s as it is, without asking', async (_, comment) => {
    const { platform, calls, logger } = recording(async () => THREAD);
    expect(await placeInThread(platform, comment, logger)).toBe(comment);
    expect(calls).toEqual([]);
  });

  it('leaves a comment in no inline thread, or on a platform that cannot tell, as it is', async () => {
    const comment = makeComment({ commentId: '42' });
    const { platform, logger } = recording(async () => undefined);
    expect(await placeInThread(platform, comment, logger)).toBe(comment);
    expect(await placeInThread(stubPlatform(), comment, logger)).toBe(comment);
  });

  it('answers on the pull request when the lookup fails (logged)', async () => {
    const { platform, warnings, logger } = recording(async () => {
      throw new Error('Gitea: 502');
    });
    const comment = makeComment({ commentId: '42' });
    expect(await placeInThread(platform, comment, logger)).toBe(comment);
    expect(warnings).toHaveLength(1);
  });
});
