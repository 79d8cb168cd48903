/**
 * The Bitbucket Cloud implementation of `Platform` on API 2.0 through `@coderabbitai/bitbucket`.
 * Repository full names are `workspace/slug`, pull request numbers the pull request id. Commit
 * hashes in pull requests are 12 characters: they are resolved to full SHAs
 * (`GET …/commit/{hash}`). Git over HTTP authenticates as `x-token-auth` with the token.
 */
import type { z } from 'zod';
import { AuthError, PlatformError } from '../../errors.js';
import type { Logger } from '../../logger.js';
import { onceUntilRejected } from '../../once-until-rejected.js';
import type { Platform, PullRequestInfo } from '../types.js';
import { platformCall } from '../http/index.js';
import { BITBUCKET_HTTP, createBitbucketClient, repoParams } from './client.js';
import {
  displayNameOf,
  identityOf,
  listBitbucketComments,
  threadOf,
  toExistingComments,
} from './comments.js';
import { toPullRequestFiles } from './diffs.js';
import { cloneUrlOf, forkCloneUrl, prCommitSha } from './head.js';
import { isBitbucketMentionName } from './names.js';
import { bitbucketListPullRequests } from './list-pull-requests.js';
import { bitbucketMemoryMethods } from './memory-api.js';
import { toWire } from '../wire-markers.js';
import { bitbucketProgress } from './progress.js';
import { Account, Comment, Commit, DiffStat, PullRequest } from './schemas.js';
import type { BitbucketSettings } from './settings.js';
import { submitBitbucketReview } from './submit-review.js';
import { createBitbucketWebhookHandler } from './webhook.js';
import { renderPlainSuggestion } from '../plain-suggestion.js';

/** Options of `createBitbucketPlatform`. */
export interface BitbucketPlatformOptions {
  settings: BitbucketSettings;
  logger: Logger;
  fetch?: typeof fetch;
}

/** PullRequestInfo.state from Bitbucket's `OPEN`/`MERGED`/`DECLINED`/`SUPERSEDED`. */
function stateOf(state: string | undefined): PullRequestInfo['state'] {
  if (state === 'MERGED') return 'merged';
  return state === 'OPEN' ? 'open' : 'closed';
}

/**
 * Creates the Bitbucket Cloud platform. Methods throw `AuthError` (401) or `PlatformError`;
 * `webhook` is set only when `BITBUCKET_WEBHOOK_SECRET` is.
 */
export function createBitbucketPlatform(options: BitbucketPlatformOptions): Platform {
  const { settings } = options;
  const client = createBitbucketClient({
    apiUrl: settings.apiUrl,
    token: settings.token,
    logger: options.logger,
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  const call = platformCall(BITBUCKET_HTTP, [settings.token]);
  // The bot is its account id (`identityOf`), never its nickname (not unique: anyone can take it).
  // Repository, project and workspace access tokens are refused `GET /user` ("Token is invalid or
  // not supported for this endpoint", Atlassian's open suggestion BCLOUD-23528; the endpoint needs
  // the account scope, which access tokens cannot have): the bot then knows itself only by
  // configured bot usernames (in the `{<account id>}` form to recognise its own comments, CONTRACT
  // §6), as docs/bitbucket.md says. That answer is final and logged once; a server error or an
  // unreachable API is not (the next call asks again).
  const me = onceUntilRejected(async (): Promise<z.output<typeof Account>> => {
    try {
      return await call('identify the bot account (GET /user)', async () =>
        Account.parse(client.ok(await client.api.GET('/user'))),
      );
    } catch (error) {
      const status = error instanceof PlatformError ? error.status : undefined;
      if (!(error instanceof AuthError) && status !== 403 && status !== 404) throw error;
      options.logger.warn(
        { status: error instanceof AuthError ? 401 : status },
        "Bitbucket refused GET /user for this token (access tokens are): the bot is known only by its configured bot usernames; set them to '{<account id>}' so it recognises its own comments",
      );
      return {};
    }
  });
  const login = async () => identityOf(await me());
  const ref = (repo: string, id: number) => `${repo}#${id}`;
  const secrets = (settings.webhookSecret ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');

  /** The full SHA of `hash` (Bitbucket abbreviates to 12 characters). */
  async function fullSha(repo: string, hash: string): Promise<string> {
    if (/^[0-9a-f]{40}$/.test(hash)) return hash;
    const commit = await call(`resolve commit ${hash} in ${repo}`, async () =>
      Commit.parse(
        client.ok(
          await client.api.GET('/repositories/{workspace}/{repo_slug}/commit/{commit}', {
            params: { path: { ...repoParams(repo), commit: hash } },
          }),
        ),
      ),
    );
    return commit.hash;
  }

  return {
    name: 'bitbucket',
    ...(secrets.length > 0 ? { webhook: createBitbucketWebhookHandler(secrets) } : {}),

    async getPullRequest(repo, id): Promise<PullRequestInfo> {
      const pr = await call(`fetch pull request ${ref(repo, id)}`, async () =>
        PullRequest.parse(
          client.ok(
            await client.api.GET('/repositories/{workspace}/{repo_slug}/pullrequests/{pull_request_id}', {
              params: { path: { ...repoParams(repo), pull_request_id: id } },
            }),
          ),
        ),
      );
      const headRepo = pr.source?.repository?.full_name ?? repo;
      const isFork = headRepo !== repo;
      const headHash = pr.source?.commit?.hash ?? '';
      // A fork may be unreadable with this token: its head SHA is read through the base repository's
      // pull request (head.ts); only the clone URL needs the fork, with a clear error when refused.
      const headCloneUrl = isFork
        ? await forkCloneUrl(client, call, repo, id, headRepo)
        : await call(`read the clone URL of ${repo}`, () => cloneUrlOf(client, repo));
      const headSha = isFork
        ? await prCommitSha(client, call, repo, id, headHash)
        : await fullSha(repo, headHash);
      if (!headSha) {
        throw new PlatformError(
          `Bitbucket: the head commit ${headHash} of ${ref(repo, id)} is not among the pull request's commits`,
        );
      }
      return {
        repoFullName: repo,
        number: pr.id,
        title: pr.title ?? '',
        body: pr.description ?? '',
        state: stateOf(pr.state),
        authorUsername: displayNameOf(pr.author),
        headBranch: pr.source?.branch?.name ?? '',
        headSha,
        baseBranch: pr.destination?.branch?.name ?? '',
        baseSha: await fullSha(repo, pr.destination?.commit?.hash ?? ''),
        headCloneUrl,
        headRepoFullName: headRepo,
        isFork,
        htmlUrl: pr.links?.html?.href ?? `https://bitbucket.org/${repo}/pull-requests/${id}`,
      };
    },

    async listPullRequestFiles(repo, id) {
      const path = { ...repoParams(repo), pull_request_id: id };
      const stats = await call(`list the files of ${ref(repo, id)}`, async () =>
        client.all(
          DiffStat,
          client.ok(
            await client.api.GET(
              '/repositories/{workspace}/{repo_slug}/pullrequests/{pull_request_id}/diffstat',
              {
                params: { path },
              },
            ),
          ),
        ),
      );
      const diff = await call(`download the diff of ${ref(repo, id)}`, async () =>
        client.ok(
          await client.api.GET('/repositories/{workspace}/{repo_slug}/pullrequests/{pull_request_id}/diff', {
            params: { path },
            parseAs: 'text',
          }),
        ),
      );
      return toPullRequestFiles(stats, diff);
    },

    async listComments(repo, id) {
      return toExistingComments(await listBitbucketComments(client, call, repo, id));
    },

    async locateComment(repo, id, commentId) {
      // The webhook names only a reply's immediate parent: walk the `parent` chain to the top.
      return threadOf(await listBitbucketComments(client, call, repo, id), Number(commentId));
    },

    async getBotUsernames() {
      // Comment authors are `{<account id>}` (comments.ts): the bot's own, only that.
      const own = identityOf(await me());
      return own ? [own] : [];
    },

    async getBotMentionNames() {
      // CONTRACT §6: the mention picker writes `@{<account id>}` (never the uuid) into content.raw.
      const { account_id: id } = await me();
      return id && isBitbucketMentionName(`{${id}}`) ? [`{${id}}`] : [];
    },

    async addReaction() {
      // Bitbucket has no reaction API: the §18 build status acknowledges instead (CONTRACT §6).
    },

    async postReply(target, body) {
      const { repoFullName: repo, prNumber: id } = target;
      const parent = target.inReplyToCommentId ?? target.discussionId;
      const posted = await call(`post a comment on ${ref(repo, id)}`, async () =>
        client.ok(
          await client.api.POST(
            '/repositories/{workspace}/{repo_slug}/pullrequests/{pull_request_id}/comments',
            {
              params: { path: { ...repoParams(repo), pull_request_id: id } },
              body: {
                type: 'pullrequest_comment',
                content: { raw: toWire(body) },
                ...(parent ? { parent: { type: 'pullrequest_comment', id: Number(parent) } } : {}),
              },
            },
          ),
        ),
      );
      const commentId = String(Comment.parse(posted).id);
      return {
        id: commentId,
        url:
          Comment.parse(posted).links?.html?.href ??
          `https://bitbucket.org/${repo}/pull-requests/${id}#comment-${commentId}`,
      };
    },

    submitReview(repo, id, review) {
      return submitBitbucketReview(client, call, login, repo, id, review);
    },

    async getGitCredentials() {
      // CONTRACT §4: Bitbucket Cloud access tokens authenticate git over HTTP as `x-token-auth`.
      return { username: 'x-token-auth', password: settings.token };
    },

    // Bitbucket Cloud renders no suggestion blocks: a plain fenced block that says what it replaces.
    renderSuggestion: renderPlainSuggestion,

    ...bitbucketMemoryMethods(client, call),
    ...bitbucketListPullRequests(client, call),
    ...bitbucketProgress(client, call),
  };
}
