/**
 * The Gitea/Forgejo implementation of `Platform` on Gitea's API v1 (Gitea ≥ 1.22, Forgejo ≥ 7:
 * the same v1 operations for what reviewbot uses). Repository full names are `owner/repo`, pull
 * request numbers are the issue index. A review is one `COMMENT` review with inline comments
 * (`submit-review.ts`); a reply to an inline comment goes into its conversation (`reply.ts`).
 */
import type { Logger } from '../../logger.js';
import { onceUntilRejected } from '../../once-until-rejected.js';
import type { ExistingComment, Platform, PullRequestInfo } from '../types.js';
import { platformCall, type RetryPolicy } from '../http/index.js';
import { createGiteaClient, GITEA_HTTP, type GiteaClient } from './client.js';
import { splitUnifiedDiff } from '../../diff/unified.js';
import { toPullRequestFiles } from './diffs.js';
import { giteaListPullRequests } from './list-pull-requests.js';
import { giteaMemoryMethods } from './memory-api.js';
import { giteaProgressMethods } from './progress.js';
import { giteaReactionMethods } from './reactions.js';
import { replyInConversation } from './reply.js';
import type { PullRequest } from './schemas.js';
import type { GiteaSettings } from './settings.js';
import { submitGiteaReview } from './submit-review.js';
import { conversationOf, listCodeComments, placeOf } from './threads.js';
import { createGiteaWebhookHandler } from './webhook.js';
import { renderPlainSuggestion } from '../plain-suggestion.js';

/** Options of `createGiteaPlatform`. */
export interface GiteaPlatformOptions {
  settings: GiteaSettings;
  logger: Logger;
  fetch?: typeof fetch;
  /** Changes to the retry policy of API requests (`../http/retry-policy.ts`). */
  retry?: Partial<RetryPolicy>;
}

/** PullRequestInfo.state: Gitea reports `open`/`closed` plus `merged`. */
function stateOf(pr: PullRequest): PullRequestInfo['state'] {
  if (pr.merged) return 'merged';
  return pr.state === 'closed' ? 'closed' : 'open';
}

/** The secrets of `GITEA_WEBHOOK_SECRET` (a comma-separated list during rotation). */
function splitSecrets(value: string): string[] {
  return value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

/**
 * Creates the Gitea platform for `settings`. Methods throw `AuthError` (401) or `PlatformError`
 * (see `platformCall`); `webhook` is set only when `GITEA_WEBHOOK_SECRET` is.
 */
export function createGiteaPlatform(options: GiteaPlatformOptions): Platform {
  const { settings } = options;
  const client: GiteaClient = createGiteaClient({
    url: settings.url,
    token: settings.token,
    logger: options.logger,
    ...(options.fetch ? { fetch: options.fetch } : {}),
    ...(options.retry ? { retry: options.retry } : {}),
  });
  const call = platformCall(GITEA_HTTP, [settings.token]);
  const login = onceUntilRejected(() =>
    call('identify the bot account (GET /user)', async () => (await client.userGetCurrent()).login),
  );
  const botUsernames = async () => [await login()];
  const ref = (repo: string, index: number) => `${repo}#${index}`;
  const secrets = settings.webhookSecret ? splitSecrets(settings.webhookSecret) : [];

  return {
    name: 'gitea',
    ...(secrets.length > 0 ? { webhook: createGiteaWebhookHandler(secrets) } : {}),

    async getPullRequest(repo, index): Promise<PullRequestInfo> {
      const pr = await call(`fetch pull request ${ref(repo, index)}`, () =>
        client.repoGetPullRequest(repo, index),
      );
      // A deleted fork leaves `head.repo` null: the head is still fetchable from the base repository.
      const headRepo = pr.head.repo ?? pr.base.repo;
      return {
        repoFullName: repo,
        number: pr.number,
        title: pr.title,
        body: pr.body ?? '',
        state: stateOf(pr),
        authorUsername: pr.user?.login ?? '',
        headBranch: pr.head.ref,
        headSha: pr.head.sha,
        baseBranch: pr.base.ref,
        baseSha: pr.base.sha,
        headCloneUrl: headRepo?.clone_url ?? '',
        headRepoFullName: headRepo?.full_name ?? repo,
        isFork: pr.head.repo_id !== pr.base.repo_id,
        htmlUrl: pr.html_url,
      };
    },

    async listPullRequestFiles(repo, index) {
      const files = await call(`list the files of ${ref(repo, index)}`, () =>
        client.repoGetPullRequestFiles(repo, index),
      );
      const diff = await call(`download the diff of ${ref(repo, index)}`, () =>
        client.repoDownloadPullDiff(repo, index),
      );
      return toPullRequestFiles(files, splitUnifiedDiff(diff));
    },

    async listComments(repo, index) {
      const what = `list the comments of ${ref(repo, index)}`;
      const issueComments = await call(what, () => client.issueGetComments(repo, index));
      const reviews = await call(`list the reviews of ${ref(repo, index)}`, () =>
        client.repoListPullReviews(repo, index),
      );
      const out: ExistingComment[] = issueComments.map((c) => ({
        id: String(c.id),
        kind: 'issue_comment',
        authorUsername: c.user?.login ?? '',
        body: c.body,
        createdAt: c.created_at,
      }));
      for (const review of reviews) {
        if (review.state === 'PENDING' || !review.body) continue;
        out.push({
          id: String(review.id),
          kind: 'review',
          authorUsername: review.user?.login ?? '',
          body: review.body,
          createdAt: review.submitted_at ?? '',
        });
      }
      for (const c of await listCodeComments(client, call, repo, index)) {
        const place = placeOf(c);
        out.push({
          id: String(c.id),
          kind: 'review_comment',
          authorUsername: c.user?.login ?? '',
          body: c.body,
          path: c.path,
          ...(place ? { line: place.line, side: place.side } : {}),
          createdAt: c.created_at,
        });
      }
      return out.sort((a, b) => a.createdAt.localeCompare(b.createdAt));
    },

    getBotUsernames: botUsernames,

    async addReaction(target, reaction) {
      const { repoFullName: repo, prNumber: index } = target;
      await call(
        `react ${reaction} to ${target.commentType} ${target.commentId} on ${ref(repo, index)}`,
        () =>
          // Review comments are issue comments in Gitea; a review body has no reactions: the pull request gets it.
          target.commentType === 'review'
            ? client.issuePostIssueReaction(repo, index, reaction)
            : client.issuePostCommentReaction(repo, target.commentId, reaction),
      );
    },

    async locateComment(repo, index, commentId) {
      // Gitea delivers a reply in a code conversation as a plain issue comment: `CreateCodeComment`
      // (services/pull/review.go) notifies `CreateIssueComment` with the code comment itself, so
      // the event (`issue_comment`, type `pull_request_comment`) carries its id and no path or line.
      // Code comments share the issue comments' ids: the conversation is found by that id.
      return conversationOf(await listCodeComments(client, call, repo, index), commentId);
    },

    async postReply(target, body) {
      const { repoFullName: repo, prNumber: index } = target;
      const inThread = target.inReplyToCommentId ?? target.discussionId;
      if (inThread) return replyInConversation(client, call, repo, index, inThread, body);
      const comment = await call(`post a comment on ${ref(repo, index)}`, () =>
        client.issueCreateComment(repo, index, body),
      );
      return { id: String(comment.id), url: comment.html_url };
    },

    submitReview(repo, index, review) {
      return submitGiteaReview(client, call, repo, index, review);
    },

    async getGitCredentials() {
      // CONTRACT §4: Gitea authenticates git over HTTP as the token's own user.
      return { username: await login(), password: settings.token };
    },

    // Gitea renders no suggestion blocks: a plain fenced block that says what it replaces.
    renderSuggestion: renderPlainSuggestion,

    ...giteaMemoryMethods(client, call, botUsernames),
    ...giteaListPullRequests(client, call),
    ...giteaProgressMethods(client, call),
    ...giteaReactionMethods(client, call),
  };
}
