/**
 * Gitea `listPullRequests` and the resolver of a conversation against the fake Gitea over real HTTP
 * (swagger-checked): one listing sorted by update (every state, paged by 50), stopped at the first
 * pull request older than the date or at `max`; `resolvedBy` from the first comment's `resolver`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCENARIO_PATHS } from '../../../test/support/git-fixtures.js';
import { BOT, createGiteaKit, INDEX, REPO, type GiteaKit } from './gitea-test-kit.test-helper.js';

describe('Gitea platform: listing pull requests for stats', () => {
  let kit: GiteaKit;
  let between: Date;
  beforeAll(async () => {
    kit = await createGiteaKit({ resolveEndpoint: true });
    const add = (index: number) =>
      kit.fake.addPullRequest({
        repo: REPO,
        index,
        bareRepoPath: kit.scenario.bareRepoPath,
        headBranch: kit.scenario.head,
        baseBranch: kit.scenario.base,
        title: `Change ${index}`,
      });
    // 52 old pull requests (one more page than Gitea's 50), then the recent changes.
    for (let index = 10; index < 62; index++) add(index);
    // The fake stamps a second apart: the last old change, then the date between old and recent.
    between = new Date(Date.parse(kit.fake.addComment(REPO, 61, 'alice', 'Old.').createdAt) + 500);
    add(4);
    add(5);
    kit.fake.setPullRequestState(REPO, 5, 'merged');
    kit.fake.addComment(REPO, INDEX, 'alice', 'A question.');
    kit.fake.setPullRequestState(REPO, 4, 'closed');
  });
  afterAll(async () => {
    await kit?.close();
  });

  const listings = () => kit.fake.requests.filter((r) => r.operationId === 'repoListPullRequests');

  it('lists open, merged and closed pull requests by last update and stops at the first older one', async () => {
    const listing = await kit.platform().listPullRequests!(REPO, { updatedSince: between, max: 100 });
    expect(listing).toEqual({
      pullRequests: [
        { number: 4, state: 'closed', updatedAt: expect.any(String) },
        { number: INDEX, state: 'open', updatedAt: expect.any(String) },
        { number: 5, state: 'merged', updatedAt: expect.any(String) },
      ],
      truncated: false,
    });
    expect(listings().map((r) => r.query)).toEqual([
      { state: 'all', sort: 'recentupdate', page: '1', limit: '50' },
    ]);
    expect(kit.fake.violations).toEqual([]);
  });

  it('reads every page back to the date, and says when max stopped it', async () => {
    const all = await kit.platform().listPullRequests!(REPO, { updatedSince: new Date(0), max: 100 });
    expect(all.pullRequests).toHaveLength(55);
    expect(all.pullRequests.at(-1)?.number).toBe(10);
    expect(
      listings()
        .slice(-2)
        .map((r) => r.query.page),
    ).toEqual(['1', '2']);
    const two = await kit.platform().listPullRequests!(REPO, { updatedSince: new Date(0), max: 2 });
    expect(two.pullRequests.map((pr) => pr.number)).toEqual([4, INDEX]);
    expect(two.truncated).toBe(true);
    expect(kit.fake.violations).toEqual([]);
  });

  it('names who resolved a conversation: the bot through resolveThread, a person on Gitea', async () => {
    const platform = kit.platform();
    const seed = (line: number, resolvedBy?: string) =>
      kit.fake.addCodeComment({
        repo: REPO,
        index: INDEX,
        author: BOT,
        body: `Finding on ${line}.`,
        path: SCENARIO_PATHS.modified,
        line,
        ...(resolvedBy ? { resolved: true, resolvedBy } : {}),
      });
    const byBot = seed(3);
    const byPerson = seed(4, 'carol');
    const open = seed(5);
    await platform.resolveThread!(REPO, INDEX, String(byBot.id));
    const threads = await platform.listReviewThreads!(REPO, INDEX);
    const of = (id: number) => threads.find((t) => t.id === String(id));
    expect(of(byBot.id)).toMatchObject({ resolved: true, resolvedBy: BOT });
    expect(of(byPerson.id)).toMatchObject({ resolved: true, resolvedBy: 'carol' });
    expect(of(open.id)?.resolved).toBe(false);
    expect(of(open.id)).not.toHaveProperty('resolvedBy');
    expect(kit.fake.violations).toEqual([]);
  });
});
