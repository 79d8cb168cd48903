/** The GitHub implementation of `Platform` on Octokit (REST v3). */
import type { Logger } from '../../logger.js';
import type {
  CommentTarget,
  DiffSide,
  ExistingComment,
  GitCredentials,
  Platform,
  Posted,
  PullRequestFile,
  PullRequestInfo,
  ReplyTarget,
  ReviewSubmission,
} from '../types.js';
import { platformCall } from '../http/index.js';
import { createGitHubClient, GITHUB_HTTP, type GitHubClient } from './client.js';
import type { GitHubSettings } from './credentials.js';
import {
  OPTIONAL_PERMISSIONS,
  scopedInstallationOptions,
  withoutOptionalPermissions,
  type TokenScope,
} from './scoped-token.js';
import { gitHubListPullRequests } from './list-pulls.js';
import { gitHubMemoryMethods } from './memory-api.js';
import { gitHubProgressMethods } from './progress.js';
import { gitHubReactionMethods } from './reactions.js';
import { createGitHubWebhookHandler, splitWebhookSecrets } from './webhook.js';
import { renderGitHubSuggestion } from './suggestion.js';
import { onceUntilRejected } from '../../once-until-rejected.js';

function splitRepo(fullName: string): { owner: string; repo: string } {
  const [owner, repo, ...rest] = fullName.split('/');
  if (!owner || !repo || rest.length > 0) throw new Error(`not a GitHub repository name: ${fullName}`);
  return { owner, repo };
}

function side(value: string | null | undefined): DiffSide | undefined {
  return value === 'LEFT' || value === 'RIGHT' ? value : undefined;
}

/** Options of `createGitHubPlatform`. */
export interface GitHubPlatformOptions {
  settings: GitHubSettings;
  logger: Logger;
  fetch?: typeof fetch;
  /**
   * Set by `forJob` (App auth): every API call and git credential of this platform uses an
   * installation token minted by `appAuth` for `scope` only (CONTRACT §16).
   */
  scope?: TokenScope & { appAuth: InstallationAuth };
}

/** `@octokit/auth-app`'s auth function (the client's `auth`), shared so its token cache is too. */
type InstallationAuth = (options: ReturnType<typeof scopedInstallationOptions>) => Promise<unknown>;

/** Creates the GitHub platform for `settings`. Methods throw `AuthError`/`PlatformError` (see `platformCall`). */
export function createGitHubPlatform(options: GitHubPlatformOptions): Platform {
  const { settings, scope } = options;
  const call = platformCall(GITHUB_HTTP, [settings.auth.kind === 'token' ? settings.auth.token : undefined]);
  // A 422 means the installation lacks a permission we asked for: ask again without the optional
  // ones (the check run, §18) rather than fail every job of an App installed without Checks.
  let optionalDenied = false;
  const mintScoped = scope
    ? async () => {
        const wanted = scopedInstallationOptions(scope);
        if (!optionalDenied) {
          try {
            return ((await scope.appAuth(wanted)) as { token: string }).token;
          } catch (error) {
            if ((error as { status?: number }).status !== 422) throw error;
            optionalDenied = true;
            options.logger.warn(
              { optional: OPTIONAL_PERMISSIONS },
              'the GitHub App installation does not grant Checks: read & write; jobs run without the reviewbot check run',
            );
          }
        }
        return ((await scope.appAuth(withoutOptionalPermissions(wanted))) as { token: string }).token;
      }
    : undefined;
  const client: GitHubClient = createGitHubClient({
    ...options,
    ...(mintScoped ? { installationToken: () => call('mint an installation token', mintScoped) } : {}),
  });
  const botUsernames = onceUntilRejected(() =>
    call('identify the bot account', async () => {
      if (settings.auth.kind === 'app') {
        const { data } = await client.rest.apps.getAuthenticated();
        const slug = data && 'slug' in data && typeof data.slug === 'string' ? data.slug : undefined;
        return slug ? [`${slug}[bot]`] : [];
      }
      const { data } = await client.rest.users.getAuthenticated();
      return [data.login];
    }),
  );

  return {
    name: 'github',
    ...(settings.webhookSecret
      ? { webhook: createGitHubWebhookHandler(splitWebhookSecrets(settings.webhookSecret)) }
      : {}),

    getPullRequest(repoFullName, prNumber) {
      return call(`fetch pull request ${repoFullName}#${prNumber}`, async (): Promise<PullRequestInfo> => {
        const { data } = await client.rest.pulls.get({ ...splitRepo(repoFullName), pull_number: prNumber });
        const headRepo = data.head.repo;
        return {
          repoFullName,
          number: data.number,
          title: data.title,
          body: data.body ?? '',
          state: data.merged_at ? 'merged' : data.state === 'open' ? 'open' : 'closed',
          authorUsername: data.user?.login ?? '',
          headBranch: data.head.ref,
          headSha: data.head.sha,
          baseBranch: data.base.ref,
          baseSha: data.base.sha,
          headCloneUrl: headRepo?.clone_url ?? data.base.repo.clone_url,
          headRepoFullName: headRepo?.full_name ?? repoFullName,
          isFork: headRepo ? headRepo.full_name !== data.base.repo.full_name : true,
          htmlUrl: data.html_url,
        };
      });
    },

    listPullRequestFiles(repoFullName, prNumber) {
      return call(`list the files of ${repoFullName}#${prNumber}`, async (): Promise<PullRequestFile[]> => {
        const files = await client.paginate(client.rest.pulls.listFiles, {
          ...splitRepo(repoFullName),
          pull_number: prNumber,
          per_page: 100,
        });
        return files.map((f) => ({
          path: f.filename,
          ...(f.previous_filename ? { previousPath: f.previous_filename } : {}),
          status: f.status,
          additions: f.additions,
          deletions: f.deletions,
          ...(f.patch !== undefined ? { patch: f.patch } : {}),
        }));
      });
    },

    listComments(repoFullName, prNumber) {
      return call(
        `list the comments of ${repoFullName}#${prNumber}`,
        async (): Promise<ExistingComment[]> => {
          const params = { ...splitRepo(repoFullName), per_page: 100 };
          const [issueComments, reviewComments, reviews] = await Promise.all([
            client.paginate(client.rest.issues.listComments, { ...params, issue_number: prNumber }),
            client.paginate(client.rest.pulls.listReviewComments, { ...params, pull_number: prNumber }),
            client.paginate(client.rest.pulls.listReviews, { ...params, pull_number: prNumber }),
          ]);
          const out: ExistingComment[] = [];
          for (const c of issueComments) {
            out.push({
              id: String(c.id),
              kind: 'issue_comment',
              authorUsername: c.user?.login ?? '',
              body: c.body ?? '',
              createdAt: c.created_at,
            });
          }
          for (const c of reviewComments) {
            const line = c.line ?? c.original_line ?? undefined;
            const s = side(c.side);
            out.push({
              id: String(c.id),
              kind: 'review_comment',
              authorUsername: c.user?.login ?? '',
              body: c.body,
              path: c.path,
              ...(line ? { line } : {}),
              ...(s ? { side: s } : {}),
              createdAt: c.created_at,
            });
          }
          for (const r of reviews) {
            if (!r.body) continue;
            out.push({
              id: String(r.id),
              kind: 'review',
              authorUsername: r.user?.login ?? '',
              body: r.body,
              createdAt: r.submitted_at ?? '',
            });
          }
          return out.sort((a, b) => a.createdAt.localeCompare(b.createdAt));
        },
      );
    },

    getBotUsernames() {
      return botUsernames();
    },

    async addReaction(target: CommentTarget, reaction) {
      const params = {
        ...splitRepo(target.repoFullName),
        comment_id: Number(target.commentId),
        content: reaction,
      };
      await call(`add a reaction to comment ${target.commentId}`, async () => {
        if (target.commentType === 'review_comment') {
          await client.rest.reactions.createForPullRequestReviewComment(params);
        } else if (target.commentType === 'issue_comment') {
          await client.rest.reactions.createForIssueComment(params);
        }
        // Review bodies cannot carry reactions on GitHub; nothing to do.
      });
    },

    postReply(target: ReplyTarget, body) {
      return call(`post a reply on ${target.repoFullName}#${target.prNumber}`, async (): Promise<Posted> => {
        const repo = splitRepo(target.repoFullName);
        if (target.inReplyToCommentId) {
          const { data } = await client.rest.pulls.createReplyForReviewComment({
            ...repo,
            pull_number: target.prNumber,
            comment_id: Number(target.inReplyToCommentId),
            body,
          });
          return { id: String(data.id), url: data.html_url };
        }
        const { data } = await client.rest.issues.createComment({
          ...repo,
          issue_number: target.prNumber,
          body,
        });
        return { id: String(data.id), url: data.html_url };
      });
    },

    submitReview(repoFullName, prNumber, review: ReviewSubmission) {
      return call(`submit a review on ${repoFullName}#${prNumber}`, async (): Promise<Posted> => {
        const { data } = await client.rest.pulls.createReview({
          ...splitRepo(repoFullName),
          pull_number: prNumber,
          commit_id: review.commitSha,
          event: 'COMMENT',
          body: review.body,
          comments: review.comments.map((c) => ({
            path: c.path,
            line: c.line,
            side: c.side,
            ...(c.startLine !== undefined && c.startLine < c.line
              ? { start_line: c.startLine, start_side: c.side }
              : {}),
            body: c.body,
          })),
        });
        return { id: String(data.id), url: data.html_url };
      });
    },

    forJob(repoFullName, botType) {
      if (settings.auth.kind === 'token') return this;
      const appAuth = scope?.appAuth ?? (client.auth as InstallationAuth);
      const scoped = createGitHubPlatform({ ...options, scope: { repoFullName, botType, appAuth } });
      // The bot's identity needs the App's JWT (`GET /app`), which a scoped token cannot replace.
      return { ...scoped, getBotUsernames: botUsernames };
    },

    async getGitCredentials(): Promise<GitCredentials> {
      if (settings.auth.kind === 'token')
        return { username: 'x-access-token', password: settings.auth.token };
      if (mintScoped) {
        return { username: 'x-access-token', password: await call('mint an installation token', mintScoped) };
      }
      const auth = (await call('mint an installation token', () =>
        client.auth({ type: 'installation' }),
      )) as {
        token: string;
      };
      return { username: 'x-access-token', password: auth.token };
    },

    renderSuggestion: renderGitHubSuggestion,

    ...gitHubMemoryMethods(client, call),
    ...gitHubListPullRequests(client, call),
    ...gitHubProgressMethods(client, call, settings.auth.kind === 'app'),
    ...gitHubReactionMethods(client, call),
  };
}
