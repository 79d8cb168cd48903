/**
 * Pull requests from forks on Bitbucket Cloud (fake, OpenAPI-checked): the head's full SHA is read
 * through the base repository's pull request; the fork is read only for its clone URL, and a fork
 * the token may not read (403, as for an access token scoped to the base repository) is reported as
 * such, not as a failing commit lookup.
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
import { PlatformError } from '../../errors.js';
import { createBitbucketPlatform } from './platform.js';

const TOKEN = 'bb-forkTokenThatMustNeverLeak0123456789';
const REPO = 'acme/widgets';
const OPEN_FORK = 'carol/widgets';
const CLOSED_FORK = 'mallory/widgets';

describe('Bitbucket Cloud pull requests from forks', () => {
  let root: string;
  let scenario: DiffScenario;
  let bb: FakeBitbucketCloud;

  beforeAll(async () => {
    root = mkdtempSync(path.join(os.tmpdir(), 'reviewbot-bb-fork-'));
    scenario = createDiffScenario(path.join(root, 'repos'), REPO);
    bb = await startFakeBitbucketCloud({ token: TOKEN, forbiddenRepos: [CLOSED_FORK] });
    for (const [id, fork] of [
      [11, OPEN_FORK],
      [12, CLOSED_FORK],
    ] as const) {
      bb.addPullRequest({
        repo: REPO,
        id,
        bareRepoPath: scenario.bareRepoPath,
        headBranch: scenario.head,
        baseBranch: scenario.base,
        sourceRepo: fork,
      });
    }
  });
  afterAll(async () => {
    await bb?.close();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  const platform = () =>
    createBitbucketPlatform({
      settings: { token: TOKEN, apiUrl: bb.apiUrl, webhookSecret: undefined },
      logger: pino({ level: 'silent' }),
    });

  it('reads the head SHA through the base repository; the fork only for its clone URL', async () => {
    bb.requests.length = 0;
    const pr = await platform().getPullRequest(REPO, 11);
    expect(pr).toMatchObject({
      isFork: true,
      headRepoFullName: OPEN_FORK,
      headSha: scenario.headSha,
      headCloneUrl: `${bb.url}/${OPEN_FORK}.git`,
    });
    const forkCalls = bb.requests.filter((r) => r.path.startsWith(`/2.0/repositories/${OPEN_FORK}`));
    expect(forkCalls.map((r) => r.path)).toEqual([`/2.0/repositories/${OPEN_FORK}`]);
    expect(bb.violations).toEqual([]);
  });

  it('a fork the token may not read (403): a clear error naming the fork, not a commit lookup', async () => {
    const failure = await platform()
      .getPullRequest(REPO, 12)
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(failure).toBeInstanceOf(PlatformError);
    expect((failure as PlatformError).status).toBe(403);
    expect((failure as Error).message).toMatch(
      `pull request ${REPO}#12 comes from the fork ${CLOSED_FORK}, which BITBUCKET_TOKEN cannot read (HTTP 403)`,
    );
    expect((failure as Error).message).not.toContain(TOKEN);
    // The pull request's own endpoints still answer for the base repository's token.
    expect(await platform().listPullRequestFiles(REPO, 12)).not.toHaveLength(0);
    expect(bb.violations).toEqual([]);
  });
});
