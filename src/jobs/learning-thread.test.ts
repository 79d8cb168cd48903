/**
 * `learn` written in a bot finding's thread on platforms whose comment events do not name the
 * thread (CONTRACT §20, §2): a Gitea reply in a code conversation (delivered as a plain
 * `issue_comment`) and a Bitbucket Cloud reply to a reply (the event names only its parent). The
 * learning takes the finding's path and the answer lands in that thread, against the fakes.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reviewLines } from '../../test/e2e/cli-fixture.js';
import { startFakeBitbucketCloud } from '../../test/support/fake-bitbucket-cloud/index.js';
import { startFakeGitea } from '../../test/support/fake-gitea/index.js';
import { createDiffScenario, type DiffScenario } from '../../test/support/git-fixtures.js';
import { rawConfigSchema } from '../config/schema.js';
import { openLearningsStore, type LearningsStore } from '../learnings/index.js';
import { createMetrics } from '../metrics.js';
import { createBitbucketPlatform } from '../platforms/bitbucket-cloud/platform.js';
import { toWire } from '../platforms/wire-markers.js';
import { createGiteaPlatform } from '../platforms/gitea/platform.js';
import type { Platform, PlatformName, ReviewComment } from '../platforms/types.js';
import { renderFindingMarker } from '../review/memory/markers.js';
import { SecretMasker } from '../secrets.js';
import { createMemoryConversationStore } from './conversation-store.js';
import type { JobContext } from './job-context.js';
import { processLearningCommand } from './learning-job.js';

const TOKEN = 'learning-thread-token-that-must-never-leak';
const REPO = 'acme/widgets';
const FINDING = `Check this bound.\n\n${renderFindingMarker({ fp: '0123456789abcdef', side: 'RIGHT', n: 1, severity: 'P2' })}`;

let root: string;
let scenario: DiffScenario;
let store: LearningsStore;

beforeAll(async () => {
  root = mkdtempSync(path.join(os.tmpdir(), 'reviewbot-learn-thread-'));
  scenario = createDiffScenario(path.join(root, 'repos'), REPO);
  store = await openLearningsStore({ baseDir: path.join(root, 'base') });
});
afterAll(async () => {
  await store?.close();
  if (root) rmSync(root, { recursive: true, force: true });
});

function contextFor(name: PlatformName, platform: Platform): JobContext {
  return {
    platforms: new Map<PlatformName, Platform>([[name, platform]]),
    createRunner: () => {
      throw new Error('a learning command runs no agent');
    },
    config: rawConfigSchema.parse({
      reviewer: { bot_username: 'rb-reviewer' },
      workspace: { base_dir: path.join(root, 'base') },
    }),
    store: createMemoryConversationStore(),
    metrics: createMetrics({ defaultMetrics: false }),
    logger: pino({ level: 'silent' }),
    masker: new SecretMasker([TOKEN]),
    learnings: store,
  };
}

function mention(platform: PlatformName, fields: Partial<ReviewComment>): ReviewComment {
  return {
    platform,
    repoFullName: REPO,
    prNumber: 1,
    prBranch: scenario.head,
    baseBranch: scenario.base,
    headSha: '',
    prTitle: 'T',
    commentId: '',
    commentType: 'issue_comment',
    authorUsername: 'alice',
    body: '@rb-reviewer learn bounds here are inclusive',
    cloneUrl: '',
    deliveryId: 'd-1',
    eventType: 'comment',
    ...fields,
  };
}

const payload = (comment: ReviewComment) => ({
  version: 1 as const,
  jobId: '00000000-0000-4000-8000-000000000001',
  botType: 'reviewer' as const,
  comment,
  prompt: 'learn bounds here are inclusive',
  enqueuedAt: new Date().toISOString(),
});

describe('learn in a finding thread', () => {
  it('Gitea: a reply in a code conversation (an issue_comment event) learns for the path and answers there', async () => {
    const gitea = await startFakeGitea({ token: TOKEN, username: 'reviewbot-bot' });
    try {
      gitea.addPullRequest({
        repo: REPO,
        bareRepoPath: scenario.bareRepoPath,
        index: 1,
        headBranch: scenario.head,
        baseBranch: scenario.base,
        title: 'T',
      });
      const at = reviewLines(scenario).right;
      const seed = { repo: REPO, index: 1, path: at.path, line: at.line };
      const finding = gitea.addCodeComment({ ...seed, author: 'reviewbot-bot', body: FINDING });
      const reply = gitea.addCodeComment({ ...seed, author: 'alice', body: '@rb-reviewer learn …' });
      const platform = createGiteaPlatform({
        settings: { token: TOKEN, url: gitea.url, webhookSecret: undefined },
        logger: pino({ level: 'silent' }),
      });
      // As parseGiteaWebhook delivers it: an issue_comment naming no file, line or thread.
      const comment = mention('gitea', { commentId: String(reply.id) });
      const text = await processLearningCommand(
        payload(comment),
        { kind: 'learn', text: 'bounds here are inclusive' },
        contextFor('gitea', platform),
      );
      expect(text).toContain(`for files matching \`${at.path}\``);
      const learned = await store.list({ platform: 'gitea', repo: REPO });
      // §23: the finding's fingerprint too, so that `reviewbot stats` counts it as dismissed.
      expect(learned.find((l) => l.text === 'bounds here are inclusive')).toMatchObject({
        path: at.path,
        fingerprint: '0123456789abcdef',
      });
      const answer = gitea.codeComments.find((c) => c.body.startsWith('Learned'));
      expect(answer).toMatchObject({ path: finding.path, line: finding.line, author: 'reviewbot-bot' });
      expect(gitea.comments.filter((c) => c.body.startsWith('Learned'))).toEqual([]);
      expect(gitea.violations).toEqual([]);
    } finally {
      await gitea.close();
    }
  });

  it('Bitbucket Cloud: a reply to a reply walks up to the finding, learns for its path, answers in the thread', async () => {
    const bb = await startFakeBitbucketCloud({ token: TOKEN, nickname: 'rb' });
    try {
      bb.addPullRequest({
        repo: REPO,
        id: 1,
        bareRepoPath: scenario.bareRepoPath,
        headBranch: scenario.head,
        baseBranch: scenario.base,
      });
      const at = reviewLines(scenario).right;
      const inline = { path: at.path, to: at.line };
      const top = bb.addComment(REPO, 1, { raw: toWire(FINDING), author: 'rb', inline });
      const first = bb.addComment(REPO, 1, { raw: 'Why?', author: 'bob', inline, parentId: top.id });
      const second = bb.addComment(REPO, 1, {
        raw: '@rb-reviewer learn …',
        author: 'alice',
        inline,
        parentId: first.id,
      });
      const platform = createBitbucketPlatform({
        settings: { token: TOKEN, apiUrl: bb.apiUrl, webhookSecret: undefined },
        logger: pino({ level: 'silent' }),
      });
      // As parseBitbucketWebhook delivers it: discussionId = the immediate parent.
      const comment = mention('bitbucket', {
        commentId: String(second.id),
        commentType: 'review_comment',
        filePath: at.path,
        line: at.line,
        discussionId: String(first.id),
        authorUsername: '{557058:alice}',
      });
      const text = await processLearningCommand(
        payload(comment),
        { kind: 'learn', text: 'bounds here are inclusive' },
        contextFor('bitbucket', platform),
      );
      expect(text).toContain(`for files matching \`${at.path}\``);
      const learned = await store.list({ platform: 'bitbucket', repo: REPO });
      // §23: the finding's fingerprint too, so that `reviewbot stats` counts it as dismissed.
      expect(learned.find((l) => l.text === 'bounds here are inclusive')).toMatchObject({
        path: at.path,
        fingerprint: '0123456789abcdef',
      });
      const answer = bb.comments(REPO, 1).find((c) => c.raw.startsWith('Learned'));
      expect(answer?.parentId).toBe(top.id);
      expect(bb.violations).toEqual([]);
    } finally {
      await bb.close();
    }
  });
});
