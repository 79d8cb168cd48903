/**
 * Bitbucket Data Center `listPullRequests` and the resolver of a thread against the fake Data
 * Center over real HTTP (OpenAPI-checked): one listing of every state, most recently updated first,
 * paged with `nextPageStart` (the fake serves 2 a page), stopped at the first older pull request or
 * at `max`; `resolvedBy` from `threadResolver`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startFakeBitbucketServer,
  type FakeBitbucketServer,
} from '../../../test/support/fake-bitbucket-server/index.js';
import { createDiffScenario, SCENARIO_PATHS, type DiffScenario } from '../../../test/support/git-fixtures.js';
import type { Platform } from '../types.js';
import { createBitbucketServerPlatform } from './platform.js';

const TOKEN = 'bbs-statsTokenThatMustNeverLeak0123456789';
const REPO = 'ACME/widgets';
const tick = () => new Promise((r) => setTimeout(r, 5));

describe('Bitbucket Data Center platform: listing pull requests for stats', () => {
  let root: string;
  let scenario: DiffScenario;
  let bb: FakeBitbucketServer;
  let platform: Platform;
  let between: Date;

  beforeAll(async () => {
    root = mkdtempSync(path.join(os.tmpdir(), 'reviewbot-bbs-list-'));
    scenario = createDiffScenario(path.join(root, 'repos'), REPO);
    bb = await startFakeBitbucketServer({ token: TOKEN, username: 'rb' });
    const add = (id: number) =>
      bb.addPullRequest({
        repo: REPO,
        id,
        bareRepoPath: scenario.bareRepoPath,
        headBranch: scenario.head,
        baseBranch: scenario.base,
      });
    add(1);
    await tick();
    add(2);
    await tick();
    between = new Date();
    await tick();
    for (const id of [3, 4, 5]) add(id);
    await tick();
    bb.setPullRequestState(REPO, 4, 'MERGED');
    await tick();
    bb.addComment(REPO, 3, { text: 'A question.', author: 'alice' });
    await tick();
    bb.setPullRequestState(REPO, 5, 'DECLINED');
    platform = createBitbucketServerPlatform({
      settings: { token: TOKEN, url: bb.url, webhookSecret: undefined },
      logger: pino({ level: 'silent' }),
    });
  });
  afterAll(async () => {
    await bb?.close();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  const listings = () => bb.requests.filter((r) => r.path.endsWith('/pull-requests'));

  it('lists every state by last update across pages and stops at the first older pull request', async () => {
    const listing = await platform.listPullRequests!(REPO, { updatedSince: between, max: 100 });
    expect(listing).toEqual({
      pullRequests: [
        { number: 5, state: 'closed', updatedAt: expect.any(String) },
        { number: 3, state: 'open', updatedAt: expect.any(String) },
        { number: 4, state: 'merged', updatedAt: expect.any(String) },
      ],
      truncated: false,
    });
    expect(listings().map((r) => r.path)).toEqual([
      '/rest/api/1.0/projects/ACME/repos/widgets/pull-requests',
      '/rest/api/1.0/projects/ACME/repos/widgets/pull-requests',
    ]);
    expect(bb.violations).toEqual([]);
  });

  it('says when max stopped the listing', async () => {
    const all = await platform.listPullRequests!(REPO, { updatedSince: new Date(0), max: 100 });
    expect(all.pullRequests.map((pr) => pr.number)).toEqual([5, 3, 4, 2, 1]);
    const two = await platform.listPullRequests!(REPO, { updatedSince: new Date(0), max: 2 });
    expect(two).toMatchObject({ pullRequests: [{ number: 5 }, { number: 3 }], truncated: true });
    expect(bb.violations).toEqual([]);
  });

  it('names who resolved a thread: the bot through resolveThread, a person on Data Center', async () => {
    const anchor = { path: SCENARIO_PATHS.modified, line: 3, lineType: 'CONTEXT', fileType: 'TO' };
    const mine = (text: string) => bb.addComment(REPO, 3, { text, author: 'rb', anchor });
    const byBot = mine('Bot finding.');
    const byPerson = mine('Another.');
    const open = mine('Open.');
    await platform.resolveThread!(REPO, 3, String(byBot.id));
    bb.resolveThread(REPO, 3, byPerson.id, 'carol');
    const threads = await platform.listReviewThreads!(REPO, 3);
    const of = (id: number) => threads.find((t) => t.id === String(id));
    expect(of(byBot.id)).toMatchObject({ resolved: true, resolvedBy: 'rb' });
    expect(of(byPerson.id)).toMatchObject({ resolved: true, resolvedBy: 'carol' });
    expect(of(open.id)?.resolved).toBe(false);
    expect(of(open.id)).not.toHaveProperty('resolvedBy');
    expect(bb.violations).toEqual([]);
  });
});
