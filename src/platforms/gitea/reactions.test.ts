/**
 * The Gitea platform's reactions on comments (CONTRACT §20 dismissals) against the fake Gitea
 * (every request checked against Gitea 1.22's swagger): a code comment's reactions through the
 * issue-comment endpoint, a conversation comment's, none for a review body; threads name their
 * first comment so its reactions can be read.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PlatformError } from '../../errors.js';
import { BOT, createGiteaKit, INDEX, REPO, type GiteaKit } from './gitea-test-kit.test-helper.js';

describe('Gitea platform: reactions', () => {
  let kit: GiteaKit;
  beforeAll(async () => {
    kit = await createGiteaKit();
  });
  afterAll(async () => {
    await kit?.close();
  });

  it("lists a finding's reactions by its thread's first comment, and a conversation comment's", async () => {
    const platform = kit.platform();
    const finding = kit.fake.addCodeComment({
      repo: REPO,
      index: INDEX,
      author: BOT,
      body: 'Magic number.',
      path: 'src/service.ts',
      line: 3,
    });
    const note = kit.fake.addComment(REPO, INDEX, 'alice', 'hello');
    kit.fake.reactions.push(
      { repo: REPO, commentId: finding.id, user: 'alice', content: '-1' },
      { repo: REPO, commentId: finding.id, user: 'bob', content: 'heart' },
      { repo: REPO, commentId: note.id, user: 'carol', content: '+1' },
      { repo: REPO, index: INDEX, user: 'dave', content: '-1' },
    );
    const threads = await platform.listReviewThreads!(REPO, INDEX);
    expect(threads).toEqual([
      expect.objectContaining({ id: String(finding.id), commentId: String(finding.id) }),
    ]);
    const target = { repoFullName: REPO, prNumber: INDEX };
    expect(
      await platform.listReactions!({
        ...target,
        commentId: threads[0]!.commentId!,
        commentType: 'review_comment',
      }),
    ).toEqual([
      { content: '-1', username: 'alice' },
      { content: 'heart', username: 'bob' },
    ]);
    expect(
      await platform.listReactions!({ ...target, commentId: String(note.id), commentType: 'issue_comment' }),
    ).toEqual([{ content: '+1', username: 'carol' }]);
    const before = kit.fake.requests.length;
    expect(await platform.listReactions!({ ...target, commentId: '77', commentType: 'review' })).toEqual([]);
    expect(kit.fake.requests.length).toBe(before);
    expect(kit.fake.requests.filter((r) => r.operationId === 'issueGetCommentReactions')).toHaveLength(2);
    expect(kit.fake.violations).toEqual([]);
  });

  it('throws PlatformError for a comment Gitea does not have', async () => {
    const target = {
      repoFullName: REPO,
      prNumber: INDEX,
      commentId: '9999',
      commentType: 'issue_comment' as const,
    };
    await expect(kit.platform().listReactions!(target)).rejects.toBeInstanceOf(PlatformError);
    expect(kit.fake.violations).toEqual([]);
  });
});
