/**
 * The Gitea platform's progress (CONTRACT §18: a `reviewbot` commit status, pending then
 * success/failure) and the pull request's commit list (review memory, §13), against the fake Gitea
 * (every request checked against Gitea 1.22's swagger) and a real repository.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PlatformError } from '../../errors.js';
import { runGit } from '../../../test/support/git-fixtures.js';
import { createGiteaKit, INDEX, REPO, type GiteaKit } from './gitea-test-kit.test-helper.js';
import { GITEA_PROGRESS_LIMITS } from './progress.js';

describe('Gitea platform: progress and commits', () => {
  let kit: GiteaKit;
  beforeAll(async () => {
    kit = await createGiteaKit();
  });
  afterAll(async () => {
    await kit?.close();
  });

  it('shows a `reviewbot` commit status on the head: pending (linking the pull request), then success', async () => {
    const platform = kit.platform();
    expect(platform.progressLimits).toEqual(GITEA_PROGRESS_LIMITS);
    const prUrl = `${kit.fake.url}/${REPO}/pulls/${INDEX}`;
    const target = { repoFullName: REPO, prNumber: INDEX, headSha: kit.scenario.headSha, prUrl };
    const before = kit.fake.statuses.length;
    const handle = await platform.startProgress!(target, { description: 'reviewing' });
    await handle.finish('neutral', { description: 'Reviewed: 2 findings', url: `${prUrl}#issuecomment-9` });
    const statuses = kit.fake.statuses.slice(before);
    expect(statuses).toEqual([
      expect.objectContaining({
        sha: kit.scenario.headSha,
        state: 'pending',
        context: 'reviewbot',
        description: 'reviewing',
        targetUrl: prUrl,
      }),
      expect.objectContaining({
        state: 'success',
        context: 'reviewbot',
        description: 'Reviewed: 2 findings',
        targetUrl: `${prUrl}#issuecomment-9`,
      }),
    ]);
    expect(kit.fake.violations).toEqual([]);
  });

  it('ends in failure for a failed job, and throws PlatformError for a commit Gitea does not have', async () => {
    const platform = kit.platform();
    const target = { repoFullName: REPO, prNumber: INDEX, headSha: kit.scenario.headSha };
    const handle = await platform.startProgress!(target, { description: 'working' });
    await handle.finish('failure', { description: 'The task failed: boom' });
    expect(kit.fake.statuses.at(-1)).toMatchObject({
      state: 'failure',
      description: 'The task failed: boom',
      targetUrl: '',
    });
    const gone = { ...target, headSha: 'f'.repeat(40) };
    await expect(platform.startProgress!(gone, { description: 'x' })).rejects.toBeInstanceOf(PlatformError);
    expect(kit.fake.violations).toEqual([]);
  });

  it('throws PlatformError 403 when the account may not write to the code (a read-only REVIEWER)', async () => {
    kit.fake.setCodeWrite(false);
    try {
      const target = { repoFullName: REPO, prNumber: INDEX, headSha: kit.scenario.headSha };
      const error: unknown = await kit.platform().startProgress!(target, { description: 'x' }).catch(
        (e) => e,
      );
      expect(error).toBeInstanceOf(PlatformError);
      expect((error as PlatformError).status).toBe(403);
    } finally {
      kit.fake.setCodeWrite(true);
    }
    expect(kit.fake.violations).toEqual([]);
  });

  it('lists every commit of the pull request, across pages', async () => {
    const platform = kit.platform();
    expect(await platform.listCommitShas!(REPO, INDEX)).toEqual([kit.scenario.headSha]);
    // 60 more commits on a new branch: two pages of at most 50.
    const bare = kit.scenario.bareRepoPath;
    const tree = runGit(bare, ['rev-parse', `${kit.scenario.headSha}^{tree}`]).trim();
    let parent = kit.scenario.headSha;
    const added: string[] = [];
    for (let i = 0; i < 60; i++) {
      parent = runGit(bare, ['commit-tree', tree, '-p', parent, '-m', `step ${i}`]).trim();
      added.push(parent);
    }
    runGit(bare, ['update-ref', 'refs/heads/long', parent]);
    kit.fake.addPullRequest({ repo: REPO, index: 4, headBranch: 'long', baseBranch: 'main', title: 'Long' });
    const shas = await platform.listCommitShas!(REPO, 4);
    expect(new Set(shas)).toEqual(new Set([kit.scenario.headSha, ...added]));
    expect(shas).toHaveLength(61);
    const pages = kit.fake.requests.filter(
      (r) => r.operationId === 'repoGetPullRequestCommits' && r.path.endsWith('/pulls/4/commits'),
    );
    expect(pages.map((r) => r.query)).toEqual([
      { page: '1', limit: '50', verification: 'false', files: 'false' },
      { page: '2', limit: '50', verification: 'false', files: 'false' },
    ]);
    expect(kit.fake.violations).toEqual([]);
  });
});
