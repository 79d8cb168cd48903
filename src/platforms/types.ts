/**
 * The one contract every code-hosting platform implements (GitHub, GitLab, Gitea/Forgejo, Bitbucket
 * Cloud and Data Center, Azure DevOps). Everything downstream (review, jobs, CLI, server) talks to a
 * platform only through this interface. Its records, progress and event types live in
 * `records.ts`, `progress-types.ts` and `events.ts`, re-exported here.
 */

export * from './records.js';
export * from './progress-types.js';
export * from './events.js';

import type {
  CommentReaction,
  CommentTarget,
  CommitComparison,
  ExistingComment,
  GitCredentials,
  MarkedThread,
  PlatformName,
  Posted,
  PullRequestFile,
  PullRequestInfo,
  PullRequestListing,
  ReplyTarget,
  ReviewSubmission,
  ReviewThread,
} from './records.js';
import type {
  GateReport,
  ProgressHandle,
  ProgressLimits,
  ProgressReport,
  ProgressTarget,
} from './progress-types.js';
import type { LocatedComment, WebhookHandler } from './events.js';

/**
 * A code-hosting platform. Methods throw `AuthError` on rejected credentials and `PlatformError`
 * on other API failures (after the HTTP layer's retries, `src/platforms/http/`).
 */
export interface Platform {
  readonly name: PlatformName;
  /** Webhook verification and parsing; undefined when the platform's webhook secret is not set. */
  readonly webhook?: WebhookHandler;
  /** Pull request details: branch, SHAs, state, clone URL. */
  getPullRequest(repoFullName: string, prNumber: number): Promise<PullRequestInfo>;
  /** Every changed file with its patch (all pages). */
  listPullRequestFiles(repoFullName: string, prNumber: number): Promise<PullRequestFile[]>;
  /** Every existing comment: conversation, inline and review bodies (all pages). */
  listComments(repoFullName: string, prNumber: number): Promise<ExistingComment[]>;
  /** Logins that identify the bot itself (authenticated account; App: `<slug>[bot]`). */
  getBotUsernames(): Promise<string[]>;
  /**
   * Optional (CONTRACT §6): names that mention the bot on this platform besides the configured bot
   * usernames, as a comment's body writes them after the `@` (Bitbucket Cloud: `{<account id>}`
   * of the token's account, what the editor's mention picker stores). Empty when the platform
   * cannot tell who the bot is; then only the configured usernames mention it.
   */
  getBotMentionNames?(): Promise<string[]>;
  /** Adds a reaction (e.g. `eyes`) to a comment. */
  addReaction(target: CommentTarget, reaction: 'eyes'): Promise<void>;
  /** Posts a reply in the thread of `target`, or as a PR comment. */
  postReply(target: ReplyTarget, body: string): Promise<Posted>;
  /** Submits one review with inline comments (GitHub event `COMMENT`). */
  submitReview(repoFullName: string, prNumber: number, review: ReviewSubmission): Promise<Posted>;
  /** Credentials for git over HTTP, fresh enough for the next git command. */
  getGitCredentials(): Promise<GitCredentials>;
  /**
   * Optional (CONTRACT §16): this platform for one job, whose API calls and git credentials carry
   * only the rights of `botType` on `repoFullName` (GitHub App: a scoped installation token).
   * Platforms without finer tokens leave it out (or return themselves).
   */
  forJob?(repoFullName: string, botType: 'reviewer' | 'worker'): Platform;
  /** Renders a suggested replacement for lines `startLine..line` in this platform's syntax. */
  renderSuggestion(suggestion: string, lineCount: number): string;
  /**
   * Text of file `path` at commit/branch `ref` (GitHub contents API, GitLab repository files raw),
   * or null when the file does not exist there. Used to read repository rules from the base (§14).
   */
  getFileContent?(repoFullName: string, path: string, ref: string): Promise<string | null>;
  /**
   * How `head` relates to `base` and the files changed since their merge base (GitHub compare,
   * GitLab merge base + compare); null when either commit is unknown (e.g. gone after a force-push).
   */
  compareCommits?(repoFullName: string, base: string, head: string): Promise<CommitComparison | null>;
  /**
   * SHAs of the pull request's commits (those its head has and its base has not), or `null` when
   * the platform may have listed only part of them. GitHub `GET /pulls/{n}/commits` lists at most
   * 250 (REST docs, "List commits on a pull request"); GitLab `GET .../merge_requests/:iid/commits`
   * lists all. Review memory continues incrementally only from one of these (§13, issue 27).
   */
  listCommitShas?(repoFullName: string, prNumber: number): Promise<string[] | null>;
  /**
   * Optional (CONTRACT §23): the repository's pull requests (open, closed and merged) updated at or
   * after `updatedSince`, most recent first, at most `max`: one listing call sorted by update time,
   * paginated (GitHub `GET /repos/{o}/{r}/pulls?state=all&sort=updated&direction=desc`; GitLab
   * `GET /projects/:id/merge_requests?state=all&updated_after=&order_by=updated_at`; Gitea
   * `GET /repos/{o}/{r}/pulls?state=all&sort=recentupdate`; Bitbucket Cloud `…/pullrequests` with
   * `q=updated_on >= …&sort=-updated_on`; Data Center `…/pull-requests?state=ALL&order=NEWEST`).
   * Azure DevOps has no update time: its open pull requests, then those closed since the date.
   */
  listPullRequests?(
    repoFullName: string,
    options: { updatedSince: Date; max: number },
  ): Promise<PullRequestListing>;
  /** Every inline review thread of the pull request with its resolved/outdated state (all pages). */
  listReviewThreads?(repoFullName: string, prNumber: number): Promise<ReviewThread[]>;
  /**
   * Optional: the inline thread comment `commentId` belongs to, for platforms whose comment events
   * do not name it (Gitea delivers a reply in a code conversation as a plain `issue_comment`;
   * Bitbucket Cloud names only the immediate parent of a reply). `discussionId` is the thread's
   * first comment (a `ReviewThread`'s `commentId`, and what `postReply` replies in as
   * `discussionId`), `path` its file, `line`/`side` the thread's line where the platform says, and
   * `diffHunk` the diff around it. Undefined when the comment is in no inline thread.
   */
  locateComment?(
    repoFullName: string,
    prNumber: number,
    commentId: string,
  ): Promise<LocatedComment | undefined>;
  /**
   * Resolves thread `threadId` (GitHub GraphQL `resolveReviewThread`, GitLab `PUT .../discussions/:id`
   * with `resolved=true`). Callers resolve only threads the bot started (§13). Resolves to nothing
   * when the platform resolved it; to a `MarkedThread` when the platform would not and the thread
   * was marked addressed another way (Gitea before 1.26 and Forgejo: a marked reply).
   * @throws AuthError / PlatformError when the platform refuses and nothing was marked.
   */
  resolveThread?(repoFullName: string, prNumber: number, threadId: string): Promise<void | MarkedThread>;
  /**
   * Optional (CONTRACT §20): every reaction on comment `target` (all pages), e.g. to find the
   * thumbs-down that dismisses a bot finding. GitHub: `GET /repos/{o}/{r}/pulls/comments/{id}/reactions`
   * (review comments) or `.../issues/comments/{id}/reactions`; GitLab: `GET /projects/:id/merge_requests/
   * :iid/notes/:note_id/award_emoji`; Gitea: `GET /repos/{o}/{r}/issues/comments/{id}/reactions`.
   */
  listReactions?(target: CommentTarget): Promise<CommentReaction[]>;
  /** Set with `startProgress`: how long a report's texts may be. */
  readonly progressLimits?: ProgressLimits;
  /**
   * Shows that a job works on `target`'s head commit under the name `reviewbot` (CONTRACT §18):
   * GitHub App a check run `in_progress`, GitHub token and GitLab a commit status
   * `pending`/`running`. Drive it through `src/jobs/progress.ts`, never directly.
   * @throws AuthError / PlatformError like any other call.
   */
  startProgress?(target: ProgressTarget, report: ProgressReport): Promise<ProgressHandle>;
  /**
   * Optional (CONTRACT §21): sets the verdict gate, a status named `reviewbot/verdict` on `target`'s
   * head commit beside the progress status (GitHub App a completed check run, GitHub token, GitLab
   * and Gitea a commit status, Bitbucket a build status keyed `reviewbot-verdict`, Azure DevOps a
   * pull request status `{genre: "reviewbot", name: "verdict"}`); a later call replaces what it
   * shows. Drive it through `src/jobs/gate.ts`, never directly.
   * @throws AuthError / PlatformError like any other call.
   */
  setGateStatus?(target: ProgressTarget, report: GateReport): Promise<void>;
}
