import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REVIEW_THREADS_QUERY } from '../../../src/platforms/github/memory-api.js';
import { startScenarioFake, TOKEN, type ScenarioFake } from './test-kit.js';

describe('fake GitHub: POST /graphql', () => {
  let env: ScenarioFake;
  beforeAll(async () => {
    env = await startScenarioFake();
  });
  afterAll(() => env.close());

  const post = async (query: string, variables: Record<string, unknown> = {}, token = TOKEN) => {
    const res = await fetch(`${env.fake.url}/graphql`, {
      method: 'POST',
      headers: { authorization: `bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query, variables }),
    });
    return {
      status: res.status,
      json: (await res.json()) as { data?: unknown; errors?: Array<{ message: string }> },
    };
  };

  it('refuses a document GitHub would refuse, and records it', async () => {
    const res = await post(
      'query { repository(owner: "acme", name: "widgets") { pullRequest(number: 1) { reviewThreadz { totalCount } } } }',
    );
    expect(res.status).toBe(200);
    expect(res.json.errors?.[0]?.message).toMatch(/Cannot query field "reviewThreadz"/);
    expect(env.fake.violations.splice(0)).toEqual([
      expect.objectContaining({ path: '/graphql', kind: 'body' }),
    ]);
  });

  it('needs credentials', async () => {
    expect((await post('query { viewer { login } }', {}, 'wrong')).status).toBe(401);
  });

  it('pages through more than 100 threads', async () => {
    const file = Object.values(env.scenario.files).find((f) => f.added.length > 0)!;
    for (let i = 0; i < 102; i++) {
      await env.fake.addReviewComment({
        owner: 'acme',
        repo: 'widgets',
        number: 1,
        body: `note ${i}`,
        user: 'reviewbot-test',
        path: file.path,
        line: file.added[0]!,
      });
    }
    const vars = { owner: 'acme', name: 'widgets', number: 1, cursor: null };
    const first = await post(REVIEW_THREADS_QUERY, vars);
    type Page = {
      repository: {
        pullRequest: {
          reviewThreads: { nodes: unknown[]; pageInfo: { hasNextPage: boolean; endCursor: string } };
        };
      };
    };
    const page1 = (first.json.data as Page).repository.pullRequest.reviewThreads;
    expect(page1.nodes).toHaveLength(100);
    expect(page1.pageInfo.hasNextPage).toBe(true);
    const second = await post(REVIEW_THREADS_QUERY, { ...vars, cursor: page1.pageInfo.endCursor });
    const page2 = (second.json.data as Page).repository.pullRequest.reviewThreads;
    expect(page2.nodes).toHaveLength(2);
    expect(page2.pageInfo.hasNextPage).toBe(false);
    expect(env.fake.violations).toEqual([]);
  });
});
