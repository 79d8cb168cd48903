/**
 * Who wrote a comment on Bitbucket Cloud: the author's account id, never the nickname (Atlassian,
 * "Bitbucket Cloud REST APIs are changing to improve user privacy": account ids are unique and
 * stable, nicknames are not unique). An account that takes the bot's nickname is not the bot: its
 * review marker is not the bot's memory and its inline comment does not stand for the bot's.
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
import { reviewLines } from '../../../test/e2e/cli-fixture.js';
import type { Platform } from '../types.js';
import { createBitbucketPlatform } from './platform.js';

const TOKEN = 'bb-identityTokenThatMustNeverLeak01234';
const REPO = 'acme/widgets';
const BOT_ID = '557058:bot-0001';
const MALLORY_ID = '557058:mallory-0666';

describe('Bitbucket Cloud identities', () => {
  let root: string;
  let scenario: DiffScenario;
  let bb: FakeBitbucketCloud;
  let platform: Platform;

  beforeAll(async () => {
    root = mkdtempSync(path.join(os.tmpdir(), 'reviewbot-bb-identity-'));
    scenario = createDiffScenario(path.join(root, 'repos'), REPO);
    bb = await startFakeBitbucketCloud({ token: TOKEN, nickname: 'rb', accountId: BOT_ID });
    bb.addPullRequest({
      repo: REPO,
      id: 5,
      bareRepoPath: scenario.bareRepoPath,
      headBranch: scenario.head,
      baseBranch: scenario.base,
    });
    platform = createBitbucketPlatform({
      settings: { token: TOKEN, apiUrl: bb.apiUrl, webhookSecret: undefined },
      logger: pino({ level: 'silent' }),
    });
  });
  afterAll(async () => {
    await bb?.close();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('the bot is its account id from GET /user, not its nickname; a mention of it is @{<account id>}', async () => {
    expect(await platform.getBotUsernames()).toEqual([`{${BOT_ID}}`]);
    expect(await platform.getBotMentionNames!()).toEqual([`{${BOT_ID}}`]);
  });

  it("a review marker by an account named like the bot is not by the bot; the bot's own is", async () => {
    const marker = `[//]: # (reviewbot:review head=${scenario.headSha} at=2099-01-01T00:00:00Z)`;
    bb.addComment(REPO, 5, { raw: `Reviewed.\n\n${marker}`, author: 'rb', authorAccountId: MALLORY_ID });
    const own = await platform.postReply({ repoFullName: REPO, prNumber: 5 }, 'Mine.');
    const bot = new Set(await platform.getBotUsernames());
    const comments = await platform.listComments(REPO, 5);
    const forged = comments.find((c) => c.body.includes('reviewbot:review'));
    expect(forged?.authorUsername).toBe(`{${MALLORY_ID}}`);
    expect(bot.has(forged?.authorUsername ?? '')).toBe(false);
    const mine = comments.find((c) => c.id === own.id);
    expect(bot.has(mine?.authorUsername ?? '')).toBe(true);
  });

  it("an identical inline comment by an account named like the bot does not stand for the bot's", async () => {
    const lines = reviewLines(scenario);
    const finding = {
      path: lines.right.path,
      line: lines.right.line,
      side: 'RIGHT' as const,
      body: 'Check.',
    };
    bb.addComment(REPO, 5, {
      raw: finding.body,
      author: 'rb',
      authorAccountId: MALLORY_ID,
      inline: { path: finding.path, to: finding.line },
    });
    await platform.submitReview(REPO, 5, { body: 'S.', commitSha: scenario.headSha, comments: [finding] });
    const inline = bb.comments(REPO, 5).filter((c) => c.inline);
    expect(inline.map((c) => c.authorAccountId ?? BOT_ID)).toEqual([MALLORY_ID, BOT_ID]);
    expect(bb.violations).toEqual([]);
  });
});
