/**
 * Bitbucket Cloud `listPullRequests` and the resolver of a thread against the fake Bitbucket Cloud
 * over real HTTP (OpenAPI-checked): one listing of every state filtered and sorted by `updated_on`,
 * followed through `next` links, stopped at `max`; `resolvedBy` from `resolution.user`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startFakeBitbucketCloud,
  type FakeBitbucketCloud,
} from '../../../test/support/fake-bitbucket-cloud/index.js';
import { createDiffScenario, type DiffScenario } from '../../../test/support/git-fixtures.js';
import type { Platform } from '../types.js';
import { updatedSinceQuery } from './list-pull-requests.js';
import { createBitbucketPlatform } from './platform.js';

const TOKEN = 'bb-statsTokenThatMustNeverLeak0123456789';
const REPO = 'acme/widgets';
const tick = () => new Promise((r) => setTimeout(r, 5));

describe('Bitbucket Cloud platform: listing pull requests for stats', () => {
  let root: string;
  let scenario: DiffScenario;
  let bb: FakeBitbucketCloud;
  let platform: Platform;
  let between: Date;

  beforeAll(async () => {
    root = mkdtempSync(path.join(os.tmpdir(), 'reviewbot-bb-list-'));
    scenario = createDiffScenario(path.join(root, 'repos'), REPO);
    bb = await startFakeBitbucketCloud({ token: TOKEN, nickname: 'rb' });
    const add = (id: number) =>
      bb.addPullRequest({
        repo: REPO,
        id,
        bareRepoPath: scenario.bareRepoPath,
        headBranch: scenario.head,
        baseBranch: scenario.base,
      });
    // 52 old pull requests (more than one page of 50), then the recent changes.
    for (let id = 10; id < 62; id++) add(id);
    await tick();
    between = new Date();
    await tick();
    for (const id of [3, 4, 5, 6]) add(id);
    await tick();
    bb.setPullRequestState(REPO, 4, 'MERGED');
    await tick();
    bb.setPullRequestState(REPO, 5, 'DECLINED');
    await tick();
    bb.addComment(REPO, 3, { raw: 'A question.', author: 'alice' });
    await tick();
    bb.setPullRequestState(REPO, 6, 'SUPERSEDED');
    platform = createBitbucketPlatform({
      settings: { token: TOKEN, apiUrl: bb.apiUrl, webhookSecret: undefined },
      logger: pino({ level: 'silent' }),
    });
  });
  afterAll(async () => {
    await bb?.close();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('writes the date as the filter language does', () => {
    expect(updatedSinceQuery(new Date('2025-06-01T00:00:00.000Z'))).toBe(
      'updated_on >= 2025-06-01T00:00:00+00:00',
    );
  });

  it('lists every state by last update, filtered by the date in one listing', async () => {
    const listing = await platform.listPullRequests!(REPO, { updatedSince: between, max: 100 });
    expect(listing.truncated).toBe(false);
    expect(listing.pullRequests.map((pr) => [pr.number, pr.state])).toEqual([
      [6, 'closed'],
      [3, 'open'],
      [5, 'closed'],
      [4, 'merged'],
    ]);
    expect(bb.requests.filter((r) => r.path.endsWith('/pullrequests'))).toHaveLength(1);
    expect(bb.violations).toEqual([]);
  });

  it('follows next links back to the date, and says when max stopped it', async () => {
    const all = await platform.listPullRequests!(REPO, { updatedSince: new Date(0), max: 100 });
    expect(all.pullRequests).toHaveLength(56);
    const two = await platform.listPullRequests!(REPO, { updatedSince: new Date(0), max: 2 });
    expect(two).toMatchObject({ pullRequests: [{ number: 6 }, { number: 3 }], truncated: true });
    expect(bb.violations).toEqual([]);
  });

  it('names who resolved a thread by account id: the bot through resolveThread, a person on Bitbucket', async () => {
    const inline = { path: 'src/service.ts', to: 3 };
    const mine = (raw: string) => bb.addComment(REPO, 3, { raw, author: 'rb', inline });
    const byBot = mine('Bot finding.');
    const byPerson = mine('Another.');
    const open = mine('Open.');
    await platform.resolveThread!(REPO, 3, String(byBot.id));
    bb.resolveComment(REPO, 3, byPerson.id, 'carol');
    const threads = await platform.listReviewThreads!(REPO, 3);
    const of = (id: number) => threads.find((t) => t.id === String(id));
    const [bot] = await platform.getBotUsernames();
    expect(of(byBot.id)).toMatchObject({ resolved: true, resolvedBy: bot });
    expect(of(byPerson.id)).toMatchObject({ resolved: true, resolvedBy: '{557058:carol}' });
    expect(of(open.id)?.resolved).toBe(false);
    expect(of(open.id)).not.toHaveProperty('resolvedBy');
    expect(bb.violations).toEqual([]);
  });
});
