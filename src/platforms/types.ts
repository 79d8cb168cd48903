/**
 * The one contract every code-hosting platform implements (GitHub, GitLab). Everything downstream
 * (review, jobs, CLI, server) talks to a platform only through this interface.
 */

import type { DiffSide, FileStatus, PullRequestFile } from '../diff/types.js';

export type { DiffSide, FileStatus, PullRequestFile };

/**
 * Registered platform names (CONTRACT §4); each is also a first-level directory of the workspace
 * layout (§11), which the cleaner scans.
 */
export const PLATFORM_NAMES = [
  'github',
  'gitlab',
  'gitea',
  'bitbucket',
  'bitbucket-server',
  'azure-devops',
] as const;

/** A registered platform name (CONTRACT §4). */
export type PlatformName = (typeof PLATFORM_NAMES)[number];

/** A pull/merge request as reported by the platform API. */
export interface PullRequestInfo {
  /** Full name of the base repository, e.g. `acme/widgets` (GitLab: the full project path). */
  repoFullName: string;
  number: number;
  title: string;
  /** Description of the pull request (may be empty). */
  body: string;
  state: 'open' | 'closed' | 'merged';
  authorUsername: string;
  headBranch: string;
  headSha: string;
  baseBranch: string;
  baseSha: string;
  /** Clone URL of the repository holding the head branch (`clone_url` / `http_url_to_repo`). */
  headCloneUrl: string;
  /** Full name of the repository holding the head branch. */
  headRepoFullName: string;
  /** True when the head branch lives in another repository (a fork). */
  isFork: boolean;
  htmlUrl: string;
}

/** A comment already present on the pull request (conversation or inline). */
export interface ExistingComment {
  id: string;
  kind: 'issue_comment' | 'review_comment' | 'review';
  authorUsername: string;
  body: string;
  /** Inline comments only. */
  path?: string;
  line?: number;
  side?: DiffSide;
  createdAt: string;
  /** GitLab discussions only: true when the thread is resolved. */
  resolved?: boolean;
}

/** One inline comment of a review as submitted to the platform. */
export interface InlineComment {
  path: string;
  /** Last line of the commented range, numbered in the file on `side`. */
  line: number;
  side: DiffSide;
  /** First line of a multi-line range (same side), when the range has more than one line. */
  startLine?: number;
  /** Markdown body, already including any rendered suggestion block. */
  body: string;
}

/** A review to submit: one body plus inline comments, pinned to the head commit it was made on. */
export interface ReviewSubmission {
  body: string;
  comments: InlineComment[];
  /** Head SHA the line numbers refer to. */
  commitSha: string;
}

/** Where a reply goes: a review-comment thread, a GitLab discussion, or the PR conversation. */
export interface ReplyTarget {
  repoFullName: string;
  prNumber: number;
  /** Reply in the thread of this inline review comment (GitHub) when set. */
  inReplyToCommentId?: string;
  /** Reply in this discussion (GitLab) when set. */
  discussionId?: string;
}

/** A comment the bot can react to. */
export interface CommentTarget {
  repoFullName: string;
  prNumber: number;
  commentId: string;
  commentType: 'issue_comment' | 'review_comment' | 'review';
}

/** Something the platform created, e.g. a review or a comment. */
export interface Posted {
  id: string;
  url: string;
}

/** Username/password pair for git over HTTP (CONTRACT §4: `x-access-token`/`oauth2` + token). */
export interface GitCredentials {
  username: string;
  password: string;
  /**
   * When set, git sends this `Authorization` header value (`http.extraHeader`, scoped to the clone
   * URL's origin, through the environment only) instead of answering a challenge with
   * username/password (Azure DevOps: `Basic base64(":" + PAT)`; Bitbucket Data Center: `Bearer <token>`).
   */
  authorization?: string;
}

/** How a head relates to an earlier commit (GitHub compare `status`). */
export type CompareStatus = 'ahead' | 'identical' | 'behind' | 'diverged';

/** `compareCommits` answer: the relation and the files changed from the merge base to `head`. */
export interface CommitComparison {
  /** `ahead` = `base` is an ancestor of `head` (the changes are `base..head`). */
  status: CompareStatus;
  files: PullRequestFile[];
  /** True when the platform listed only part of the changed files (then no incremental review). */
  truncated?: boolean;
}

/** One inline review thread of a pull request (GitHub review thread, GitLab diff discussion). */
export interface ReviewThread {
  /** Id to resolve it with: GitHub thread node id, GitLab discussion id. */
  id: string;
  path: string;
  /** Line of the thread's first comment on `side`, when the platform still places it. */
  line?: number;
  /**
   * First line of a multi-line thread (same side, below `line`), when the platform says (GitHub
   * GraphQL `startLine`); absent for a one-line thread.
   */
  startLine?: number;
  side?: DiffSide;
  resolved: boolean;
  /** True when the platform says the code under the thread changed since it was written. */
  outdated: boolean;
  /** Author of the thread's first comment (who started it). */
  authorUsername: string;
  /** Body of the thread's first comment (holds the bot's finding marker, §13). */
  body: string;
  /**
   * Id of the thread's first comment (GitHub review comment id, GitLab note id), for reading its
   * reactions (§20 dismissals); absent when the platform did not report it.
   */
  commentId?: string;
  /**
   * Login of whoever resolved the thread, when it is resolved and the platform says who (GitHub
   * GraphQL `resolvedBy`, GitLab notes' `resolved_by`, Gitea `resolver`, Bitbucket Cloud
   * `resolution.user`, Data Center `threadResolver`); tells a thread the bot resolved as addressed
   * from one a person resolved.
   */
  resolvedBy?: string;
  /**
   * For a resolved thread on a platform that does not say who resolved it but whose resolution
   * kinds tell (Azure DevOps): true when it was resolved the way the bot resolves (`fixed`), false
   * when with a status only a person sets (won't fix, closed, by design).
   */
  resolvedAsFixed?: boolean;
}

/**
 * What `Platform.resolveThread` did when the platform would not resolve the thread but the bot marked
 * it addressed another way: the bot's memory and `stats` read it as resolved by the bot, the
 * platform's page shows it open.
 */
export interface MarkedThread {
  resolved: false;
  /** Why the platform did not resolve it, for people (no secret, no server text), e.g. "this server has no API to resolve conversations". */
  reason: string;
}

/** One pull request of a repository listing (`Platform.listPullRequests`). */
export interface PullRequestSummary {
  number: number;
  state: 'open' | 'closed' | 'merged';
  /** ISO time of the pull request's last update. */
  updatedAt: string;
}

/** What `Platform.listPullRequests` found. */
export interface PullRequestListing {
  /** Most recently updated first. */
  pullRequests: PullRequestSummary[];
  /** True when `max` stopped the listing before `updatedSince` did. */
  truncated: boolean;
}

/**
 * One reaction on a comment (CONTRACT §20), named in GitHub's vocabulary whatever the platform:
 * `+1`, `-1`, `eyes`, … (GitLab's `thumbsdown` is `-1`, `thumbsup` is `+1`; Gitea uses GitHub's).
 */
export interface CommentReaction {
  content: string;
  /** Login of the user who reacted. */
  username: string;
}

/** How a job ended, as its progress report shows it (CONTRACT §18). */
export type ProgressConclusion = 'neutral' | 'success' | 'failure';

/** What a progress report says: a short line next to the commit, and optional Markdown details. */
export interface ProgressReport {
  /**
   * One line (commit status `description`, check run `output.title`); the caller cuts it to the
   * platform's `progressLimits.description` and masks secrets in it.
   */
  description: string;
  /** Markdown details (check run `output.summary`: the receipt); platforms without a place drop it. */
  summary?: string;
  /** A web page about the job's result (e.g. the posted review), as the status' link. */
  url?: string;
}

/** The commit a progress report is shown on. */
export interface ProgressTarget {
  repoFullName: string;
  prNumber: number;
  /** Full head SHA of the pull request when the job started. */
  headSha: string;
  /** The pull request's web page (Bitbucket's build status needs a `url`). */
  prUrl?: string;
}

/** A started progress report; `finish` completes it once. */
export interface ProgressHandle {
  /**
   * Marks the report done with `conclusion` (check run: the conclusion itself; commit statuses:
   * `neutral` and `success` → success, `failure` → failure/failed).
   * @throws AuthError / PlatformError like any other call.
   */
  finish(conclusion: ProgressConclusion, report: ProgressReport): Promise<void>;
}

/** Lengths a platform accepts in a progress report, characters (from its API documentation). */
export interface ProgressLimits {
  description: number;
  summary: number;
}

/** Name of the verdict gate's status next to the head commit (CONTRACT §21). */
export const GATE_STATUS_NAME = 'reviewbot/verdict';

/**
 * Bitbucket's key of the verdict gate's build status (CONTRACT §21): build status keys are
 * identifiers, so `reviewbot-verdict` (its `name` is {@link GATE_STATUS_NAME}).
 */
export const GATE_BUILD_KEY = 'reviewbot-verdict';

/** What the verdict gate shows (CONTRACT §21): red while the verdict blocks, green otherwise. */
export interface GateReport {
  /** `failure` (failure/failed/FAILED) when blocking; `success` (success/SUCCESSFUL/succeeded) otherwise. */
  state: 'success' | 'failure';
  /**
   * One line: the verdict's counts, or who overrode it and why; the caller cuts it to the
   * platform's `progressLimits.description` and masks secrets in it.
   */
  description: string;
  /** Markdown details (GitHub check run `output.summary`); platforms without a place drop it. */
  summary?: string;
  /** A web page about the verdict (the posted review), as the status' link. */
  url?: string;
}

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
  /**
   * Optional (CONTRACT §20): every reaction on comment `target` (all pages), e.g. to find the
   * thumbs-down that dismisses a bot finding. GitHub: `GET /repos/{o}/{r}/pulls/comments/{id}/reactions`
   * (review comments) or `.../issues/comments/{id}/reactions`; GitLab: `GET /projects/:id/merge_requests/
   * :iid/notes/:note_id/award_emoji`; Gitea: `GET /repos/{o}/{r}/issues/comments/{id}/reactions`.
   */
  listReactions?(target: CommentTarget): Promise<CommentReaction[]>;
}

/** Kinds of incoming events that may start a job (CONTRACT §7 `eventType`). */
export type EventType = 'comment' | 'pr_opened' | 'pr_push' | 'pr_reopened' | 'pr_ready_for_review';

/**
 * A platform webhook normalized (CONTRACT §7 "ReviewComment"). Produced only by a platform's webhook
 * parser; nothing downstream reads raw payloads. Fields the event does not carry are empty strings
 * (e.g. an `issue_comment` has no head SHA: jobs fetch the pull request anyway).
 */
export interface ReviewComment {
  platform: PlatformName;
  repoFullName: string;
  prNumber: number;
  prBranch: string;
  baseBranch: string;
  headSha: string;
  prTitle: string;
  /** Id of the comment (or review / note); empty for lifecycle events. */
  commentId: string;
  commentType: 'issue_comment' | 'review_comment' | 'review' | 'lifecycle';
  authorUsername: string;
  /**
   * A human-readable name of the author for text people read (commit messages), when it differs
   * from `authorUsername`, which is an identity (Bitbucket Cloud: `{<account id>}`). Never compared.
   */
  authorName?: string;
  body: string;
  /** Inline comments only. */
  filePath?: string;
  line?: number;
  /**
   * The side of the diff `line` is numbered on, when the platform says: LEFT = the old (base) file,
   * e.g. a comment on a removed line; RIGHT = the new file. Absent: not reported (read as RIGHT).
   */
  side?: DiffSide;
  diffHunk?: string;
  /** GitLab discussion of the note; GitHub: id of the review comment a reply belongs to. */
  discussionId?: string;
  cloneUrl: string;
  deliveryId: string;
  eventType: EventType;
}

/** Where `Platform.locateComment` found a comment: its inline thread. */
export interface LocatedComment {
  /** The thread's first comment: what `postReply` answers in as `discussionId`. */
  discussionId: string;
  path: string;
  /** The thread's line on `side` (RIGHT = new file, LEFT = old file), when the platform says. */
  line?: number;
  side?: DiffSide;
  /** The diff around the line, when the platform keeps it. */
  diffHunk?: string;
}

/** A webhook request as received: headers lower-cased, the exact raw body bytes. */
export interface WebhookRequest {
  headers: Record<string, string | undefined>;
  rawBody: Buffer;
}

/** What a platform made of a verified webhook. */
export type WebhookParseResult =
  { kind: 'event'; comment: ReviewComment } | { kind: 'ignored'; reason: string };

/** A platform's webhook verification and parsing (only present when its webhook secret is set). */
export interface WebhookHandler {
  /** Checks the signature/token on the raw body, timing-safe. Never throws. */
  verify(request: WebhookRequest): boolean;
  /** Delivery id for de-duplication (`X-GitHub-Delivery`, `X-Gitlab-Event-UUID`), when present. */
  deliveryId(request: WebhookRequest): string | undefined;
  /**
   * Turns a verified, JSON-parsed body into a ReviewComment, or says why it is ignored (event kind
   * not handled, action not `created`, not a pull request, ...). Never throws on odd payloads.
   */
  parse(request: WebhookRequest, body: Record<string, unknown>): WebhookParseResult;
}
