/**
 * The GitLab implementation of `Platform` on `@gitbeaker/rest` (REST v4). Repository full names are
 * project paths (`group/subgroup/project`), sent URL-encoded as the project id; pull request numbers
 * are merge request IIDs.
 */
import type { Logger } from '../../logger.js';
import type { ExistingComment, Platform, PullRequestInfo } from '../types.js';
import { platformCall, PlatformHttpError, type RetryPolicy } from '../http/index.js';
import { createGitLabClient, GITLAB_HTTP, type GitLabClient } from './client.js';
import { toPullRequestFile } from './diffs.js';
import { gitLabListPullRequests } from './list-pull-requests.js';
import { gitLabMemoryMethods } from './memory-api.js';
import { gitLabProgressMethods } from './progress.js';
import { gitLabReactionMethods } from './reactions.js';
import { Discussion, GitLabUser, MergeRequest, MergeRequestDiff, Note, Project } from './schemas.js';
import type { GitLabSettings } from './settings.js';
import { submitGitLabReview } from './submit-review.js';
import { createGitLabWebhookHandler, splitGitLabSecrets } from './webhook.js';
import { onceUntilRejected } from '../../once-until-rejected.js';
import { neutraliseQuickActions } from './quick-actions.js';

/** Options of `createGitLabPlatform`. */
export interface GitLabPlatformOptions {
  settings: GitLabSettings;
  logger: Logger;
  fetch?: typeof fetch;
  /** Changes to the retry policy of API requests (`../http/retry-policy.ts`). */
  retry?: Partial<RetryPolicy>;
}

/** PullRequestInfo.state of a GitLab merge request state (`locked` = a merge in progress: still open). */
function stateOf(state: string): PullRequestInfo['state'] {
  if (state === 'merged') return 'merged';
  if (state === 'closed') return 'closed';
  return 'open';
}

/** Existing comments of the discussions: system notes dropped, notes of resolved threads marked. */
function commentsOf(discussions: Discussion[]): ExistingComment[] {
  const out: ExistingComment[] = [];
  for (const discussion of discussions) {
    const resolvable = discussion.notes.filter((n) => n.resolvable);
    const resolved = resolvable.length > 0 && resolvable.every((n) => n.resolved);
    for (const note of discussion.notes) {
      if (note.system) continue;
      const comment: ExistingComment = {
        id: String(note.id),
        kind: note.type === 'DiffNote' ? 'review_comment' : 'issue_comment',
        authorUsername: note.author.username,
        body: note.body,
        createdAt: note.created_at,
        ...(resolved ? { resolved: true } : {}),
      };
      const position = note.position;
      const path = position?.new_path ?? position?.old_path;
      if (note.type === 'DiffNote' && position && path) {
        comment.path = path;
        // GitLab positions an unchanged line by both numbers; the new one is what a RIGHT comment uses.
        if (position.new_line) {
          comment.line = position.new_line;
          comment.side = 'RIGHT';
        } else if (position.old_line) {
          comment.line = position.old_line;
          comment.side = 'LEFT';
        }
      }
      out.push(comment);
    }
  }
  return out.sort((a, b) => a.createdAt.localeCompare(b.createdAt));
}

/**
 * Creates the GitLab platform for `settings`. Methods throw `AuthError` (401) or `PlatformError`
 * (see `platformCall`); `webhook` is set only when `GITLAB_WEBHOOK_SECRET` is.
 * @throws ConfigError when `GITLAB_WEBHOOK_SECRET` holds no secret.
 */
export function createGitLabPlatform(options: GitLabPlatformOptions): Platform {
  const { settings, logger } = options;
  const client: GitLabClient = createGitLabClient({
    settings,
    logger,
    ...(options.fetch ? { fetch: options.fetch } : {}),
    ...(options.retry ? { retry: options.retry } : {}),
  });
  const call = platformCall(GITLAB_HTTP, [settings.token]);
  const botUsernames = onceUntilRejected(() =>
    call('identify the bot account (GET /user)', async () => [
      GitLabUser.parse(await client.users.showCurrentUser()).username,
    ]),
  );

  const ref = (project: string, iid: number) => `${project}!${iid}`;
  const mrUrl = (project: string, iid: number) => `${settings.url}/${project}/-/merge_requests/${iid}`;
  const noteUrl = (mrWebUrl: string, noteId: number) => `${mrWebUrl}#note_${noteId}`;

  return {
    name: 'gitlab',
    ...(settings.webhookSecret
      ? { webhook: createGitLabWebhookHandler(splitGitLabSecrets(settings.webhookSecret)) }
      : {}),

    async getPullRequest(project, iid): Promise<PullRequestInfo> {
      const what = `fetch merge request ${ref(project, iid)}`;
      const mr = MergeRequest.parse(await call(what, () => client.mergeRequests.show(project, iid)));
      // The merge request does not carry clone URLs: ask for the project holding the source branch.
      const source = Project.parse(
        await call(`fetch the source project of ${ref(project, iid)}`, () =>
          client.projects.show(mr.source_project_id),
        ),
      );
      return {
        repoFullName: project,
        number: mr.iid,
        title: mr.title,
        body: mr.description ?? '',
        state: stateOf(mr.state),
        authorUsername: mr.author?.username ?? '',
        headBranch: mr.source_branch,
        headSha: mr.sha ?? mr.diff_refs?.head_sha ?? '',
        baseBranch: mr.target_branch,
        baseSha: mr.diff_refs?.start_sha ?? '',
        headCloneUrl: source.http_url_to_repo,
        headRepoFullName: source.path_with_namespace,
        isFork: mr.source_project_id !== mr.target_project_id,
        htmlUrl: mr.web_url,
      };
    },

    async listPullRequestFiles(project, iid) {
      const entries = await call(`list the diffs of ${ref(project, iid)}`, () =>
        client.mergeRequests.allDiffs(project, iid, { perPage: 100 }),
      );
      return MergeRequestDiff.array().parse(entries).map(toPullRequestFile);
    },

    async listComments(project, iid) {
      const discussions = await call(`list the discussions of ${ref(project, iid)}`, () =>
        client.discussions.all(project, iid, { perPage: 100 }),
      );
      return commentsOf(Discussion.array().parse(discussions));
    },

    getBotUsernames() {
      return botUsernames();
    },

    async addReaction(target, reaction) {
      const { repoFullName: project, prNumber: iid } = target;
      await call(`award ${reaction} to note ${target.commentId} on ${ref(project, iid)}`, async () => {
        try {
          await client.noteAwardEmojis.award(project, iid, Number(target.commentId), reaction);
        } catch (error) {
          // GitLab answers 404 "Award Emoji Name has already been taken" for a repeat award.
          if (error instanceof PlatformHttpError && /already been taken/i.test(error.message)) return;
          throw error;
        }
      });
    },

    async postReply(target, text) {
      const { repoFullName: project, prNumber: iid } = target;
      const body = neutraliseQuickActions(text);
      const { discussionId } = target;
      const posted: unknown = await call(
        `post a reply on ${ref(project, iid)}`,
        async (): Promise<unknown> =>
          discussionId
            ? await client.discussions.addNote(project, iid, discussionId, body)
            : await client.notes.create(project, iid, body),
      );
      const note = Note.parse(posted);
      return { id: String(note.id), url: noteUrl(mrUrl(project, iid), note.id) };
    },

    submitReview(project, iid, review) {
      return submitGitLabReview({ client, logger, call, noteUrl }, project, iid, review);
    },

    getGitCredentials() {
      return Promise.resolve({ username: 'oauth2', password: settings.token });
    },

    renderSuggestion(suggestion, lineCount) {
      const body = suggestion.endsWith('\n') ? suggestion : `${suggestion}\n`;
      const fence = body.includes('```') ? '````' : '```';
      // GitLab's syntax: `-N+0` replaces the commented line and the N lines above it.
      const above = Math.max(0, Math.floor(lineCount) - 1);
      return `${fence}suggestion:-${above}+0\n${body}${fence}`;
    },

    ...gitLabMemoryMethods(client, call),
    ...gitLabListPullRequests(client, call),
    ...gitLabProgressMethods(client, call),
    ...gitLabReactionMethods(client, call),
  };
}
