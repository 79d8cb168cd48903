import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCENARIO_PATHS } from '../git-fixtures.js';
import { startScenarioFake, statusOf, type ScenarioFake } from './test-kit.js';

const pr = { owner: 'acme', repo: 'widgets', pull_number: 1 };
const P = SCENARIO_PATHS;

interface Comment {
  path: string;
  line: number;
  side?: 'LEFT' | 'RIGHT';
  start_line?: number;
  start_side?: 'LEFT' | 'RIGHT';
  body: string;
}

describe('fake GitHub: reviews accepted', () => {
  let env: ScenarioFake;
  beforeAll(async () => {
    env = await startScenarioFake();
  });
  afterAll(() => env.close());

  it('accepts a comment on every line the diff shows, on the side that shows it', async () => {
    const comments: Comment[] = [];
    for (const f of Object.values(env.scenario.files)) {
      for (const line of f.added) comments.push({ path: f.path, line, side: 'RIGHT', body: `+${line}` });
      for (const line of f.removed) comments.push({ path: f.path, line, side: 'LEFT', body: `-${line}` });
      for (const c of f.context) {
        comments.push({ path: f.path, line: c.right, side: 'RIGHT', body: `ctx ${c.right}` });
        comments.push({ path: f.path, line: c.left, side: 'LEFT', body: `ctx ${c.left}` });
      }
    }
    const res = await env.octokit.rest.pulls.createReview({
      ...pr,
      event: 'COMMENT',
      body: 'All lines',
      comments,
    });
    expect(res.status).toBe(200);
    expect(res.data).toMatchObject({
      state: 'COMMENTED',
      body: 'All lines',
      commit_id: env.scenario.headSha,
    });
    expect(env.fake.reviewComments).toHaveLength(comments.length);
    expect(env.fake.violations).toEqual([]);
  });

  it('stores RIGHT, LEFT and multi-line comments in GitHub shape', async () => {
    const res = await env.octokit.rest.pulls.createReview({
      ...pr,
      commit_id: env.scenario.headSha,
      event: 'COMMENT',
      body: 'Review',
      comments: [
        { path: P.modified, line: 58, side: 'RIGHT', body: 'added line' },
        { path: P.modified, line: 56, side: 'LEFT', body: 'removed line' },
        { path: P.modified, start_line: 53, line: 59, side: 'RIGHT', body: 'range' },
        { path: P.removed, start_line: 1, line: 4, side: 'LEFT', start_side: 'LEFT', body: 'whole file' },
        { path: P.modified, line: 3, body: 'side defaults to RIGHT' },
      ],
    });
    const mine = env.fake.reviewComments.filter((c) => c.pull_request_review_id === res.data.id);
    expect(mine.map((c) => [c.path, c.start_line, c.line, c.side, c.start_side])).toEqual([
      [P.modified, null, 58, 'RIGHT', null],
      [P.modified, null, 56, 'LEFT', null],
      [P.modified, 53, 59, 'RIGHT', 'RIGHT'],
      [P.removed, 1, 4, 'LEFT', 'LEFT'],
      [P.modified, null, 3, 'RIGHT', null],
    ]);
    expect(mine[0]?.diff_hunk.split('\n').at(-1)).toBe("+export const extraA = 'a';");
    expect(mine[1]?.diff_hunk.split('\n').at(-1)).toBe('-export const v56 = 56;');
    expect(mine[0]?.position).toBe(15);
    const listed = await env.octokit.paginate(env.octokit.rest.pulls.listReviews, pr);
    expect(listed.map((r) => r.id)).toContain(res.data.id);
    expect(env.fake.violations).toEqual([]);
  });

  it('accepts the deprecated position field', async () => {
    const res = await env.octokit.rest.pulls.createReview({
      ...pr,
      event: 'COMMENT',
      body: 'by position',
      comments: [{ path: P.modified, position: 3, body: 'position 3 is the removed v3' }],
    });
    const stored = env.fake.reviewComments.find((c) => c.pull_request_review_id === res.data.id);
    expect(stored).toMatchObject({ line: 3, side: 'LEFT', position: 3 });
  });
});

describe('fake GitHub: reviews rejected as GitHub rejects them', () => {
  let env: ScenarioFake;
  beforeAll(async () => {
    env = await startScenarioFake();
  });
  afterAll(() => env.close());

  it.each<[string, Comment, string]>([
    [
      'a line outside every hunk',
      { path: P.modified, line: 30, side: 'RIGHT', body: 'x' },
      'Line could not be resolved',
    ],
    [
      'an old-only line on RIGHT',
      { path: P.removed, line: 1, side: 'RIGHT', body: 'x' },
      'Line could not be resolved',
    ],
    [
      'a LEFT line of an added file',
      { path: P.added, line: 1, side: 'LEFT', body: 'x' },
      'Line could not be resolved',
    ],
    ['a path not in the diff', { path: P.baseOnly, line: 1, body: 'x' }, 'Path could not be resolved'],
    ['a binary file', { path: P.binary, line: 1, body: 'x' }, 'Line could not be resolved'],
    [
      'a range crossing hunks',
      { path: P.modified, start_line: 5, line: 54, side: 'RIGHT', body: 'x' },
      'Start line must be part of the same hunk as the line',
    ],
    [
      'start_line after line',
      { path: P.modified, start_line: 5, line: 3, side: 'RIGHT', body: 'x' },
      'Start line must precede the end line',
    ],
    [
      'start_line equal to line',
      { path: P.modified, start_line: 3, line: 3, side: 'RIGHT', body: 'x' },
      'Start line must precede the end line',
    ],
  ])('422 for %s, storing nothing', async (_label, comment, error) => {
    const res = await statusOf(
      env.octokit.rest.pulls.createReview({
        ...pr,
        event: 'COMMENT',
        body: 'b',
        comments: [{ path: P.modified, line: 58, body: 'valid one' }, comment],
      }),
    );
    expect(res.status).toBe(422);
    expect(res.data).toMatchObject({ message: 'Unprocessable Entity', errors: [error] });
    expect(env.fake.reviews).toEqual([]);
    expect(env.fake.reviewComments).toEqual([]);
    expect(env.fake.violations).toEqual([]);
  });

  it.each(Object.values(SCENARIO_PATHS).filter((p) => p !== P.baseOnly && p !== P.renamedFrom))(
    '422 for the invalid line of %s on both sides',
    async (path) => {
      const line = env.scenario.files[path]?.invalidLine ?? 0;
      for (const side of ['LEFT', 'RIGHT'] as const) {
        const call = env.octokit.rest.pulls.createReview({
          ...pr,
          event: 'COMMENT',
          comments: [{ path, line, side, body: 'x' }],
        });
        expect((await statusOf(call)).status).toBe(422);
      }
      expect(env.fake.reviews).toEqual([]);
    },
  );

  it.each([
    ['COMMENT without body or comments', { event: 'COMMENT' as const }],
    ['REQUEST_CHANGES without body', { event: 'REQUEST_CHANGES' as const, body: ' ' }],
    ['an unknown commit_id', { event: 'COMMENT' as const, body: 'b', commit_id: 'f'.repeat(40) }],
    [
      'a side GitHub does not know',
      {
        event: 'COMMENT' as const,
        body: 'b',
        comments: [{ path: P.modified, line: 3, side: 'MIDDLE', body: 'x' }],
      },
    ],
  ])('422 for %s', async (_label, body) => {
    expect((await statusOf(env.octokit.rest.pulls.createReview({ ...pr, ...body }))).status).toBe(422);
    expect(env.fake.reviews).toEqual([]);
  });

  it('refuses to let the author approve their own pull request', async () => {
    const own = await startScenarioFake({ login: 'octocat' });
    try {
      const res = await statusOf(own.octokit.rest.pulls.createReview({ ...pr, event: 'APPROVE' }));
      expect(res).toMatchObject({ status: 422, data: { errors: ['Can not approve your own pull request'] } });
    } finally {
      await own.close();
    }
  });

  it("uses GitHub's pull_request_review_thread wording for a single review comment", async () => {
    const res = await statusOf(
      env.octokit.rest.pulls.createReviewComment({
        ...pr,
        commit_id: env.scenario.headSha,
        path: P.modified,
        line: 30,
        side: 'RIGHT',
        body: 'x',
      }),
    );
    expect(res.status).toBe(422);
    expect(res.data).toMatchObject({
      message: 'Validation Failed',
      errors: [{ field: 'pull_request_review_thread.line', code: 'custom' }],
    });
  });
});

describe('fake GitHub: OpenAPI conformance', () => {
  let env: ScenarioFake;
  beforeAll(async () => {
    env = await startScenarioFake();
  });
  afterAll(() => env.close());

  it.each<[string, string, string, Record<string, unknown> | undefined, string]>([
    [
      'a string line in a review comment',
      'POST',
      '/repos/acme/widgets/pulls/1/reviews',
      { event: 'COMMENT', body: 'b', comments: [{ path: P.modified, line: '3', body: 'x' }] },
      'body',
    ],
    [
      'side MIDDLE on a review comment',
      'POST',
      '/repos/acme/widgets/pulls/1/comments',
      { body: 'x', commit_id: 'abc', path: P.modified, line: 3, side: 'MIDDLE' },
      'body',
    ],
    [
      'an unknown event',
      'POST',
      '/repos/acme/widgets/pulls/1/reviews',
      { event: 'MERGE', body: 'b' },
      'body',
    ],
    [
      'an unknown reaction',
      'POST',
      '/repos/acme/widgets/issues/comments/1/reactions',
      { content: 'thumbs' },
      'body',
    ],
    ['a missing required field', 'POST', '/repos/acme/widgets/issues/1/comments', {}, 'body'],
    [
      'a non-numeric per_page',
      'GET',
      '/repos/acme/widgets/pulls/1/files?per_page=lots',
      undefined,
      'parameters',
    ],
    ['a non-numeric pull number', 'GET', '/repos/acme/widgets/pulls/one', undefined, 'parameters'],
  ])('422 and a recorded violation for %s', async (_label, method, url, body, kind) => {
    env.fake.violations.length = 0;
    const [path = '', query = ''] = url.split('?');
    const res = await statusOf(
      env.octokit.request(`${method} ${path}${query ? `?${query}` : ''}`, body ? { data: body } : {}),
    );
    expect(res.status).toBe(422);
    expect(env.fake.violations).toEqual([expect.objectContaining({ kind, method, path })]);
    expect(env.fake.reviews).toEqual([]);
    expect(env.fake.issueComments).toEqual([]);
  });

  it.each([
    ['GET', '/repos/acme/widgets/no-such-thing', 'unknown-operation'],
    ['GET', '/repos/acme/widgets/branches', 'unimplemented'],
  ])('404 and a recorded violation for %s %s', async (method, path, kind) => {
    env.fake.violations.length = 0;
    expect((await statusOf(env.octokit.request(`${method} ${path}`))).status).toBe(404);
    expect(env.fake.violations).toEqual([expect.objectContaining({ kind, path })]);
  });
});
