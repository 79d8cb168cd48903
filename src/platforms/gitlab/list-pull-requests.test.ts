/**
 * GitLab `listPullRequests` and the resolver of a thread against the fake GitLab over real HTTP:
 * one listing of the project's merge requests updated since a date (newest update first, every
 * state, paged), stopped at `max`; `resolvedBy` from the notes' `resolved_by`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCENARIO_PATHS } from '../../../test/support/git-fixtures.js';
import { createGitLabKit, IID, PROJECT, type GitLabKit } from './gitlab-test-kit.test-helper.js';

describe('GitLab platform: listing merge requests for stats', () => {
  let kit: GitLabKit;
  let before: Date;
  beforeAll(async () => {
    kit = await createGitLabKit();
    before = new Date(Date.now() - 60_000);
    for (const iid of [4, 5, 6]) {
      await kit.fake.addMergeRequest({
        project: PROJECT,
        iid,
        sourceBranch: kit.scenario.head,
        targetBranch: kit.scenario.base,
        title: `Change ${iid}`,
      });
    }
    // Updates, oldest first: !6 closed, !3 gets a note, !4 merged. !5 last changed at creation.
    kit.fake.setMergeRequestState(PROJECT, 6, 'closed');
    kit.fake.addNote({ project: PROJECT, iid: IID, body: 'A question.', author: 'alice' });
    kit.fake.setMergeRequestState(PROJECT, 4, 'merged');
  });
  afterAll(async () => {
    await kit?.close();
  });

  it('lists every state, most recently updated first, in one sorted and filtered listing', async () => {
    const listing = await kit.platform().listPullRequests!(PROJECT, { updatedSince: before, max: 10 });
    expect(listing.truncated).toBe(false);
    expect(listing.pullRequests.map((pr) => [pr.number, pr.state])).toEqual([
      [4, 'merged'],
      [IID, 'open'],
      [6, 'closed'],
      [5, 'open'],
    ]);
    const list = kit.fake.requests.filter((r) => r.path.endsWith('/merge_requests'));
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({
      path: '/api/v4/projects/acme%2Fplatform%2Fwidgets/merge_requests',
      query: {
        state: 'all',
        updated_after: before.toISOString(),
        order_by: 'updated_at',
        sort: 'desc',
        per_page: '100',
        page: '1',
      },
      status: 200,
    });
    expect(kit.fake.violations).toEqual([]);
  });

  it('reads nothing older than the date, and says when max stopped it', async () => {
    const none = await kit.platform().listPullRequests!(PROJECT, {
      updatedSince: new Date(Date.now() + 3_600_000),
      max: 10,
    });
    expect(none).toEqual({ pullRequests: [], truncated: false });
    const two = await kit.platform().listPullRequests!(PROJECT, { updatedSince: before, max: 2 });
    expect(two.pullRequests.map((pr) => pr.number)).toEqual([4, IID]);
    expect(two.truncated).toBe(true);
  });

  it('names who resolved a thread: the bot through resolveThread, a person on GitLab', async () => {
    const platform = kit.platform();
    const position = { newPath: SCENARIO_PATHS.modified, newLine: 3 };
    const byBot = kit.fake.addNote({
      project: PROJECT,
      iid: IID,
      body: 'Bot finding.',
      author: 'review-bot',
      position,
    });
    const byPerson = kit.fake.addNote({
      project: PROJECT,
      iid: IID,
      body: 'Another.',
      author: 'review-bot',
      position,
      resolved: true,
      resolvedBy: 'carol',
    });
    const open = kit.fake.addNote({
      project: PROJECT,
      iid: IID,
      body: 'Open.',
      author: 'review-bot',
      position,
    });
    await platform.resolveThread!(PROJECT, IID, byBot.discussionId);
    const threads = await platform.listReviewThreads!(PROJECT, IID);
    const of = (id: string) => threads.find((t) => t.id === id);
    expect(of(byBot.discussionId)).toMatchObject({ resolved: true, resolvedBy: 'review-bot' });
    expect(of(byPerson.discussionId)).toMatchObject({ resolved: true, resolvedBy: 'carol' });
    expect(of(open.discussionId)?.resolved).toBe(false);
    expect(of(open.discussionId)).not.toHaveProperty('resolvedBy');
    expect(kit.fake.violations).toEqual([]);
  });
});
