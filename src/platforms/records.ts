/**
 * The records platforms exchange with the rest of the product (CONTRACT §4, §7, §13, §20, §23):
 * pull requests, comments, review threads, listings and reactions. The `Platform` interface that
 * returns them is in `types.ts`, which re-exports everything here.
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
