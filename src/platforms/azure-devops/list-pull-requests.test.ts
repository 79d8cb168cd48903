/**
 * Azure DevOps `listPullRequests` and thread resolutions against the fake Azure DevOps over real
 * HTTP: the open pull requests, then those closed since the date (the service has no update time),
 * paged with `$top`/`$skip`, stopped at `max`; a thread resolved as `fixed` (what the bot sets) is
 * told from one a person closed as won't fix.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeAzureDevOps, type FakeAzureDevOps } from '../../../test/support/fake-azure-devops/index.js';
import { createDiffScenario, type DiffScenario } from '../../../test/support/git-fixtures.js';
import type { Platform } from '../types.js';
import { createAzureDevOpsPlatform } from './platform.js';

const TOKEN = 'ado-statsPatThatMustNeverLeak0123456789';
const FULL = 'Fabrikam/widgets';
const tick = () => new Promise((r) => setTimeout(r, 5));

describe('Azure DevOps platform: listing pull requests for stats', () => {
  let root: string;
  let scenario: DiffScenario;
  let ado: FakeAzureDevOps;
  let platform: Platform;
  let between: Date;

  beforeAll(async () => {
    root = mkdtempSync(path.join(os.tmpdir(), 'reviewbot-ado-list-'));
    scenario = createDiffScenario(path.join(root, 'repos'), 'acme/widgets');
    ado = await startFakeAzureDevOps({ token: TOKEN });
    const add = (id: number) =>
      ado.addPullRequest({
        project: 'Fabrikam',
        repo: 'widgets',
        id,
        bareRepoPath: scenario.bareRepoPath,
        headBranch: scenario.head,
        baseBranch: scenario.base,
      });
    for (const id of [1, 2, 3, 4, 5]) add(id);
    ado.setPullRequestStatus('Fabrikam', 'widgets', 1, 'completed');
    await tick();
    between = new Date();
    await tick();
    ado.setPullRequestStatus('Fabrikam', 'widgets', 2, 'completed');
    ado.setPullRequestStatus('Fabrikam', 'widgets', 4, 'abandoned');
    platform = createAzureDevOpsPlatform({
      settings: { token: TOKEN, url: ado.collectionUrl, webhookUser: undefined, webhookSecret: undefined },
      logger: pino({ level: 'silent' }),
    });
  });
  afterAll(async () => {
    await ado?.close();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  const listings = () => ado.requests.filter((r) => /\/pullrequests$/i.test(r.path));

  it('lists the open pull requests, then those closed since the date, with their states', async () => {
    const listing = await platform.listPullRequests!(FULL, { updatedSince: between, max: 100 });
    expect(listing.truncated).toBe(false);
    expect(listing.pullRequests.map((pr) => [pr.number, pr.state])).toEqual([
      [5, 'open'],
      [3, 'open'],
      [4, 'closed'],
      [2, 'merged'],
    ]);
    expect(listings()).toHaveLength(2);
    expect(ado.violations).toEqual([]);
  });

  it('pages with $top and $skip, and says when max stopped it', async () => {
    for (let id = 10; id < 112; id++) {
      ado.addPullRequest({
        project: 'Fabrikam',
        repo: 'widgets',
        id,
        bareRepoPath: scenario.bareRepoPath,
        headBranch: scenario.head,
        baseBranch: scenario.base,
      });
    }
    const before = listings().length;
    const all = await platform.listPullRequests!(FULL, { updatedSince: between, max: 1000 });
    expect(all.pullRequests).toHaveLength(106);
    expect(listings().length - before).toBe(3);
    const two = await platform.listPullRequests!(FULL, { updatedSince: between, max: 2 });
    expect(two).toMatchObject({ pullRequests: [{ number: 111 }, { number: 110 }], truncated: true });
    expect(ado.violations).toEqual([]);
  });

  it("tells a thread resolved as fixed from one a person closed as won't fix", async () => {
    const threads = ado.threads('Fabrikam', 'widgets', 3);
    const seed = (status: string) => {
      const thread = {
        id: 900 + threads.length,
        status,
        threadContext: {
          filePath: '/src/service.ts',
          rightFileStart: { line: 3, offset: 1 },
          rightFileEnd: { line: 3, offset: 1 },
        },
        comments: [
          {
            id: 1,
            parentCommentId: 0,
            content: `Finding (${status}).`,
            author: ado.botName,
            authorId: ado.botId,
            publishedDate: new Date().toISOString(),
          },
        ],
      };
      threads.push(thread);
      return String(thread.id);
    };
    const fixed = seed('active');
    const wontFix = seed('wontFix');
    const open = seed('active');
    await platform.resolveThread!(FULL, 3, fixed);
    const read = await platform.listReviewThreads!(FULL, 3);
    const of = (id: string) => read.find((t) => t.id === id);
    expect(of(fixed)).toMatchObject({ resolved: true, resolvedAsFixed: true });
    expect(of(wontFix)).toMatchObject({ resolved: true, resolvedAsFixed: false });
    expect(of(open)?.resolved).toBe(false);
    expect(of(open)).not.toHaveProperty('resolvedAsFixed');
    expect(ado.violations).toEqual([]);
  });
});
