/**
 * The apply tests' adapters for Bitbucket Cloud and Bitbucket Data Center (`ApplyAdapter`): each
 * starts its fake with pull request 7, seeds the bot's findings as inline comments (markers in the
 * link-reference form the bot posts there; Cloud `inline.to`/`from`, Data Center an anchor on an
 * ADDED or REMOVED line), writes comments as a person would and delivers their webhooks.
 */
import { renderPlainSuggestion } from '../../src/platforms/plain-suggestion.js';
import { toWire } from '../../src/platforms/wire-markers.js';
import { startFakeBitbucketCloud, type FakeBitbucketCloud } from '../support/fake-bitbucket-cloud/index.js';
import { commentHook, sendBitbucketWebhook } from '../support/fake-bitbucket-cloud/webhooks.js';
import {
  startFakeBitbucketServer,
  type FakeBitbucketServer,
} from '../support/fake-bitbucket-server/index.js';
import {
  commentHook as serverCommentHook,
  sendBitbucketServerWebhook,
} from '../support/fake-bitbucket-server/webhooks.js';
import {
  APPLY_PR,
  APPLY_WORKER,
  findingBody,
  type ApplyAdapter,
  type ApplyRepo,
  type FindingSeed,
} from './apply-fixture.js';

/** The ids of `root` and every comment below it, given each comment's parent. */
function threadIds(comments: Array<{ id: number; parentId?: number }>, root: number): Set<number> {
  const ids = new Set([root]);
  for (const c of comments) if (c.parentId !== undefined && ids.has(c.parentId)) ids.add(c.id);
  return ids;
}

/** Bitbucket Cloud: repository `acme/widgets`; `allowed_users` lists account ids. */
export function bitbucketCloudAdapter(): ApplyAdapter {
  const token = 'bb-applyE2eTokenThatMustNeverLeak01';
  const secret = 'bb-apply-secret-0123456789';
  const repoName = 'acme/widgets';
  const bot = 'reviewbot-bb';
  let fake: FakeBitbucketCloud;
  let repo: ApplyRepo;
  const comments = () => fake.comments(repoName, APPLY_PR);
  const deliver = async (
    serverUrl: string,
    comment: {
      id: number;
      raw: string;
      author: string;
      inline?: { path: string; to?: number };
      parentId?: number;
    },
  ) => {
    const hook = commentHook(
      {
        repo: repoName,
        id: APPLY_PR,
        title: 'Apply',
        headBranch: 'feature',
        headSha: await repo.head(),
        baseBranch: 'main',
        baseSha: await repo.base(),
      },
      comment,
    );
    return sendBitbucketWebhook(`${serverUrl}/webhooks/bitbucket`, 'pullrequest:comment_created', hook, {
      secret,
    });
  };
  return {
    name: 'Bitbucket Cloud',
    platform: 'bitbucket',
    repoFullName: repoName,
    // Bitbucket Cloud's login is an account id: the commit names the person too.
    worker: APPLY_WORKER,
    requester: 'alice (@{557058:alice})',
    refusedReason: /could not be resolved: the bot's account lacks the permission/,
    refusedCountsAddressed: false,
    async start(r: ApplyRepo) {
      repo = r;
      fake = await startFakeBitbucketCloud({ token, nickname: bot, accountId: '557058:bot-0001' });
      fake.addPullRequest({
        repo: repoName,
        id: APPLY_PR,
        bareRepoPath: repo.bare,
        headBranch: 'feature',
        baseBranch: 'main',
        title: 'Apply',
      });
      return {
        BITBUCKET_TOKEN: token,
        BITBUCKET_API_URL: fake.apiUrl,
        BITBUCKET_WEBHOOK_SECRET: secret,
        ALLOWED_USERS: '557058:alice',
      };
    },
    async seedFinding(seed: FindingSeed) {
      const inline =
        seed.side === 'RIGHT'
          ? { path: seed.path, to: seed.line, ...(seed.startLine ? { start_to: seed.startLine } : {}) }
          : { path: seed.path, from: seed.line };
      const c = fake.addComment(repoName, APPLY_PR, {
        raw: toWire(findingBody(seed, renderPlainSuggestion)),
        author: bot,
        inline,
      });
      return String(c.id);
    },
    async reply(serverUrl, handle, raw, who) {
      const root = comments().find((c) => String(c.id) === handle)!;
      const inline = { path: root.inline!.path, ...(root.inline!.to ? { to: root.inline!.to } : {}) };
      const c = fake.addComment(repoName, APPLY_PR, { raw, author: who, inline, parentId: root.id });
      return deliver(serverUrl, { id: c.id, raw, author: who, inline, parentId: root.id });
    },
    async comment(serverUrl, raw, who) {
      const c = fake.addComment(repoName, APPLY_PR, { raw, author: who });
      return deliver(serverUrl, { id: c.id, raw, author: who });
    },
    botReplies(handle) {
      const ids = threadIds(comments(), Number(handle));
      return comments()
        .filter((c) => ids.has(c.id) && String(c.id) !== handle && c.author === bot)
        .map((c) => c.raw);
    },
    botTexts: () =>
      comments()
        .filter((c) => c.author === bot)
        .map((c) => c.raw),
    resolved: (handle) => comments().find((c) => String(c.id) === handle)?.resolved === true,
    refuseResolution() {
      fake.failNext('POST', /\/comments\/\d+\/resolve$/, 403);
      return () => undefined;
    },
    violations: () => fake.violations,
    close: () => fake?.close() ?? Promise.resolve(),
  };
}

/** Bitbucket Data Center: repository `ACME/widgets`. */
export function bitbucketServerAdapter(): ApplyAdapter {
  const token = 'bbs-applyE2eTokenThatMustNeverLeak01';
  const secret = 'bbs-apply-secret-0123456789';
  const repoName = 'ACME/widgets';
  const bot = 'reviewbot-bbs';
  let fake: FakeBitbucketServer;
  let repo: ApplyRepo;
  const comments = () => fake.comments(repoName, APPLY_PR);
  const deliver = async (serverUrl: string, comment: Parameters<typeof serverCommentHook>[1]) => {
    const hook = serverCommentHook(
      {
        repo: repoName,
        id: APPLY_PR,
        title: 'Apply',
        headBranch: 'feature',
        headSha: await repo.head(),
        baseBranch: 'main',
        baseSha: await repo.base(),
      },
      comment,
    );
    return sendBitbucketServerWebhook(`${serverUrl}/webhooks/bitbucket-server`, 'pr:comment:added', hook, {
      secret,
    });
  };
  const anchorOf = (seed: { path: string; line: number; side: 'LEFT' | 'RIGHT' }) =>
    seed.side === 'RIGHT'
      ? { path: seed.path, line: seed.line, lineType: 'ADDED', fileType: 'TO' }
      : { path: seed.path, line: seed.line, lineType: 'REMOVED', fileType: 'FROM' };
  return {
    name: 'Bitbucket Data Center',
    platform: 'bitbucket-server',
    repoFullName: repoName,
    worker: APPLY_WORKER,
    requester: '@alice',
    refusedReason: /could not be resolved: the bot's account lacks the permission/,
    refusedCountsAddressed: false,
    async start(r: ApplyRepo) {
      repo = r;
      fake = await startFakeBitbucketServer({ token, username: bot });
      fake.addPullRequest({
        repo: repoName,
        id: APPLY_PR,
        bareRepoPath: repo.bare,
        headBranch: 'feature',
        baseBranch: 'main',
        title: 'Apply',
      });
      return {
        BITBUCKET_SERVER_TOKEN: token,
        BITBUCKET_SERVER_URL: fake.url,
        BITBUCKET_SERVER_WEBHOOK_SECRET: secret,
        ALLOWED_USERS: 'alice',
      };
    },
    async seedFinding(seed: FindingSeed) {
      const c = fake.addComment(repoName, APPLY_PR, {
        text: toWire(findingBody(seed, renderPlainSuggestion)),
        author: bot,
        anchor: { ...anchorOf(seed), diffType: 'EFFECTIVE' },
      });
      return String(c.id);
    },
    async reply(serverUrl, handle, text, who) {
      const root = comments().find((c) => String(c.id) === handle)!;
      const c = fake.addComment(repoName, APPLY_PR, { text, author: who, parentId: root.id });
      const anchor = root.anchor?.line
        ? {
            path: root.anchor.path,
            line: root.anchor.line,
            lineType: root.anchor.lineType!,
            fileType: root.anchor.fileType!,
          }
        : undefined;
      return deliver(serverUrl, {
        id: c.id,
        text,
        author: who,
        parentId: root.id,
        ...(anchor ? { anchor } : {}),
      });
    },
    async comment(serverUrl, text, who) {
      const c = fake.addComment(repoName, APPLY_PR, { text, author: who });
      return deliver(serverUrl, { id: c.id, text, author: who });
    },
    botReplies(handle) {
      const ids = threadIds(comments(), Number(handle));
      return comments()
        .filter((c) => ids.has(c.id) && String(c.id) !== handle && c.author === bot)
        .map((c) => c.text);
    },
    botTexts: () =>
      comments()
        .filter((c) => c.author === bot)
        .map((c) => c.text),
    resolved: (handle) => comments().find((c) => String(c.id) === handle)?.threadResolved === true,
    refuseResolution() {
      fake.failNext('PUT', /\/pull-requests\/\d+\/comments\/\d+$/, 403);
      return () => undefined;
    },
    violations: () => fake.violations,
    close: () => fake?.close() ?? Promise.resolve(),
  };
}
