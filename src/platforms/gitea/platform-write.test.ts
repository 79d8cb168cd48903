/**
 * The Gitea platform's writes against the fake Gitea: reviews with inline comments at Gitea's
 * positions (a comment off the diff goes to the body, never to Gitea), replies, reactions, threads
 * and their resolution (Gitea 1.26's endpoint, or the "addressed" reply on older servers).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ADDRESSED_MARKER } from './threads.js';
import { BOT, createGiteaKit, INDEX, REPO, type GiteaKit } from './gitea-test-kit.test-helper.js';

describe('Gitea platform: writes', () => {
  let kit: GiteaKit;
  beforeEach(async () => {
    kit = await createGiteaKit();
  });
  afterEach(async () => {
    await kit?.close();
  });

  it('submits one COMMENT review with new_position / old_position, and lists off-diff comments in the body', async () => {
    const posted = await kit.platform().submitReview(REPO, INDEX, {
      body: 'Summary.',
      commitSha: kit.scenario.headSha,
      comments: [
        { path: 'src/service.ts', line: 3, side: 'RIGHT', body: 'added line' },
        { path: 'src/service.ts', line: 56, side: 'LEFT', body: 'removed line' },
        { path: 'src/service.ts', line: 57, side: 'RIGHT', body: 'context line' },
        { path: 'docs/guide.md', startLine: 1, line: 3, side: 'RIGHT', body: 'a range' },
        { path: 'src/service.ts', line: 30, side: 'RIGHT', body: 'not in the diff' },
        { path: 'src/service.ts', startLine: 3, line: 58, side: 'RIGHT', body: 'two hunks' },
      ],
    });
    expect(kit.fake.violations).toEqual([]);
    expect(kit.fake.reviews).toHaveLength(1);
    const review = kit.fake.reviews[0];
    expect(review).toMatchObject({ state: 'COMMENT', author: BOT, commitId: kit.scenario.headSha });
    expect(posted).toEqual({
      id: String(review?.id),
      url: `${kit.fake.url}/${REPO}/pulls/${INDEX}#issuecomment-${review?.id}`,
    });
    const inline = kit.fake.codeComments.map((c) => ({ path: c.path, line: c.line }));
    expect(inline).toEqual([
      { path: 'src/service.ts', line: 3 },
      { path: 'src/service.ts', line: -56 },
      { path: 'src/service.ts', line: 57 },
      { path: 'docs/guide.md', line: 3 },
    ]);
    expect(kit.fake.codeComments.every((c) => c.diffHunk.startsWith('@@ '))).toBe(true);
    expect(kit.fake.codeComments[3]?.body).toMatch(/^_Lines 1–3:_\n\na range/);
    expect(review?.body).toContain('Summary.');
    expect(review?.body).toContain('### Comments that could not be placed on the diff');
    expect(review?.body).toContain(
      '`src/service.ts:30` (RIGHT; line 30 is not on the RIGHT side of the diff): not in the diff',
    );
    expect(review?.body).toContain(
      '`src/service.ts:3-58` (RIGHT; the range spans more than one hunk): two hunks',
    );
  });

  it('the fake reports an inline comment Gitea would store off the diff', async () => {
    const res = await fetch(`${kit.fake.url}/api/v1/repos/${REPO}/pulls/${INDEX}/reviews`, {
      method: 'POST',
      headers: {
        authorization: `token ${'gitea-unit-token-that-must-never-leak-0001'}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({
        event: 'COMMENT',
        body: '',
        comments: [{ path: 'src/service.ts', body: 'x', new_position: 30 }],
      }),
    });
    expect(res.status).toBe(200);
    expect(kit.fake.violations.map((v) => v.message)).toEqual([
      expect.stringMatching(/line 30 is off the diff/),
    ]);
    kit.fake.violations.length = 0;
    const bad = await fetch(`${kit.fake.url}/api/v1/repos/${REPO}/pulls/${INDEX}/reviews`, {
      method: 'POST',
      headers: {
        authorization: `token ${'gitea-unit-token-that-must-never-leak-0001'}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ event: 'COMMENT', comments: [{ path: 'a', body: 'x', new_line: 3 }] }),
    });
    expect(bad.status).toBe(422);
    expect(kit.fake.violations[0]?.message).toMatch(/must NOT have additional properties \(new_line\)/);
    kit.fake.violations.length = 0;
  });

  it('replies in the conversation of an inline comment and in the pull request conversation', async () => {
    const seeded = kit.fake.addCodeComment({
      repo: REPO,
      index: INDEX,
      author: 'alice',
      body: '@review-bot why?',
      path: 'src/service.ts',
      line: -56,
    });
    const platform = kit.platform();
    const reply = await platform.postReply(
      { repoFullName: REPO, prNumber: INDEX, inReplyToCommentId: String(seeded.id) },
      'Because.',
    );
    const stored = kit.fake.codeComments.at(-1);
    expect(stored).toMatchObject({ path: 'src/service.ts', line: -56, body: 'Because.', author: BOT });
    expect(reply.id).toBe(String(stored?.id));
    const plain = await platform.postReply({ repoFullName: REPO, prNumber: INDEX }, 'Hello.');
    expect(kit.fake.comments.at(-1)).toMatchObject({ id: Number(plain.id), body: 'Hello.', author: BOT });
    expect(kit.fake.violations).toEqual([]);
  });

  it('reacts eyes on a comment, an inline comment and (for a review) the pull request', async () => {
    const platform = kit.platform();
    const comment = kit.fake.addComment(REPO, INDEX, 'alice', '@review-bot look');
    const code = kit.fake.addCodeComment({
      repo: REPO,
      index: INDEX,
      author: 'alice',
      body: 'hm',
      path: 'src/service.ts',
      line: 3,
    });
    const target = { repoFullName: REPO, prNumber: INDEX };
    await platform.addReaction(
      { ...target, commentId: String(comment.id), commentType: 'issue_comment' },
      'eyes',
    );
    await platform.addReaction(
      { ...target, commentId: String(code.id), commentType: 'review_comment' },
      'eyes',
    );
    await platform.addReaction({ ...target, commentId: '77', commentType: 'review' }, 'eyes');
    await platform.addReaction(
      { ...target, commentId: String(comment.id), commentType: 'issue_comment' },
      'eyes',
    );
    expect(kit.fake.reactions).toEqual([
      { repo: REPO, commentId: comment.id, user: BOT, content: 'eyes' },
      { repo: REPO, commentId: code.id, user: BOT, content: 'eyes' },
      { repo: REPO, index: INDEX, user: BOT, content: 'eyes' },
    ]);
    expect(kit.fake.violations).toEqual([]);
  });

  it('lists comments of every kind and the inline conversations as threads', async () => {
    const platform = kit.platform();
    kit.fake.addComment(REPO, INDEX, 'alice', 'conversation');
    await platform.submitReview(REPO, INDEX, {
      body: 'Review body.',
      commitSha: kit.scenario.headSha,
      comments: [{ path: 'src/service.ts', line: 3, side: 'RIGHT', body: 'finding' }],
    });
    const first = kit.fake.codeComments[0];
    kit.fake.addCodeComment({
      repo: REPO,
      index: INDEX,
      author: 'alice',
      body: 'reply',
      path: 'src/service.ts',
      line: 3,
    });
    const comments = await platform.listComments(REPO, INDEX);
    expect(comments.map((c) => [c.kind, c.authorUsername, c.body.slice(0, 12)])).toEqual([
      ['issue_comment', 'alice', 'conversation'],
      ['review', BOT, 'Review body.'],
      ['review_comment', BOT, 'finding'],
      ['review_comment', 'alice', 'reply'],
    ]);
    expect(comments[2]).toMatchObject({ path: 'src/service.ts', line: 3, side: 'RIGHT' });
    const threads = await platform.listReviewThreads?.(REPO, INDEX);
    expect(threads).toEqual([
      {
        id: String(first?.id),
        path: 'src/service.ts',
        line: 3,
        side: 'RIGHT',
        resolved: false,
        outdated: false,
        authorUsername: BOT,
        body: 'finding',
        commentId: String(first?.id),
      },
    ]);
    expect(kit.fake.violations).toEqual([]);
  });

  it('resolves a conversation through POST .../comments/{id}/resolve on Gitea 1.26+', async () => {
    kit.fake.setResolveEndpoint(true);
    const platform = kit.platform();
    const seeded = kit.fake.addCodeComment({
      repo: REPO,
      index: INDEX,
      author: BOT,
      body: 'finding',
      path: 'src/service.ts',
      line: 3,
    });
    await platform.resolveThread?.(REPO, INDEX, String(seeded.id));
    expect(kit.fake.codeComments[0]?.resolver).toBe(BOT);
    expect(kit.fake.codeComments).toHaveLength(1);
    expect((await platform.listReviewThreads?.(REPO, INDEX))?.[0]?.resolved).toBe(true);
    expect(kit.fake.violations).toEqual([]);
  });

  it('replies "addressed" too when Gitea 1.26 refuses the account (403)', async () => {
    kit.fake.setResolveEndpoint(true);
    kit.fake.failNext('POST', /\/resolve$/, 403, {
      message: 'user should have permission to resolve comment',
    });
    const seeded = kit.fake.addCodeComment({
      repo: REPO,
      index: INDEX,
      author: BOT,
      body: 'finding',
      path: 'src/service.ts',
      line: 3,
    });
    await kit.platform().resolveThread?.(REPO, INDEX, String(seeded.id));
    expect(kit.fake.codeComments.at(-1)?.body).toContain(ADDRESSED_MARKER);
    expect(kit.fake.violations).toEqual([]);
  });

  it('on a server without the resolve endpoint (404) replies "addressed", and the thread then counts as resolved', async () => {
    const platform = kit.platform();
    const seeded = kit.fake.addCodeComment({
      repo: REPO,
      index: INDEX,
      author: BOT,
      body: 'finding',
      path: 'src/service.ts',
      line: -56,
    });
    expect((await platform.listReviewThreads?.(REPO, INDEX))?.[0]?.resolved).toBe(false);
    await platform.resolveThread?.(REPO, INDEX, String(seeded.id));
    const reply = kit.fake.codeComments.at(-1);
    expect(reply).toMatchObject({ path: 'src/service.ts', line: -56, author: BOT });
    expect(reply?.body).toContain(ADDRESSED_MARKER);
    expect(kit.fake.codeComments[0]?.resolver).toBeNull();
    const threads = await platform.listReviewThreads?.(REPO, INDEX);
    expect(threads).toHaveLength(1);
    expect(threads?.[0]).toMatchObject({ id: String(seeded.id), resolved: true });
    expect(kit.fake.violations).toEqual([]);
  });
});
