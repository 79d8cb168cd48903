/**
 * Public types of the fake Gitea: options, the handle tests get, seeds, and the records it keeps.
 * Shapes follow Gitea's API v1 (swagger of Gitea 1.22).
 */
import type { GitHttpRequest } from '../git-http-server.js';

/** Options of `startFakeGitea`. */
export interface FakeGiteaOptions {
  /** The access token API requests (`Authorization: token …`) and git requests (password) carry. */
  token: string;
  /** Login of the token's user (`GET /user`). Default `reviewbot-bot`. */
  username?: string;
  /**
   * Serve `POST .../pulls/{index}/comments/{id}/resolve` (Gitea 1.26+). Default false: the server
   * answers 404 there, as Gitea before 1.26 and Forgejo do.
   */
  resolveEndpoint?: boolean;
}

/** One API request as the fake saw it. */
export interface RecordedRequest {
  method: string;
  /** Path below the host, e.g. `/api/v1/repos/o/r/pulls/1`. */
  path: string;
  query: Record<string, string>;
  /** Lower-cased headers; `authorization` is never recorded. */
  headers: Record<string, string>;
  body: unknown;
  authorized: boolean;
  /** swagger `operationId`, when the request matched one. */
  operationId?: string;
  status: number;
}

/** A request Gitea would refuse or misread, or a problem inside the fake: tests expect none. */
export interface Violation {
  method: string;
  path: string;
  message: string;
}

/** A git HTTP request plus the Basic user name it carried. */
export interface GiteaGitRequest extends GitHttpRequest {
  username: string;
}

/** Arguments of `addPullRequest`. */
export interface AddPullRequestOptions {
  /** `owner/repo`; registered now when `bareRepoPath` is given. */
  repo: string;
  bareRepoPath?: string;
  index: number;
  headBranch: string;
  baseBranch: string;
  title: string;
  body?: string;
  /** Author login. Default `alice`. */
  author?: string;
}

/** A code comment seeded as if written on Gitea (not checked against the diff). */
export interface SeedCodeComment {
  repo: string;
  index: number;
  author: string;
  body: string;
  path: string;
  /** Signed line: positive = new-file line, negative = old-file line. */
  line: number;
  resolved?: boolean;
  /** With `resolved`: who resolved it (default the author). */
  resolvedBy?: string;
  /**
   * A reply in the conversation of this code comment, as Gitea's web UI writes one (`reply` = the
   * conversation's review): the new comment joins that review, at its path and line (`path` and
   * `line` are then taken from it).
   */
  inReplyTo?: number;
}

/** A stored code (inline review) comment. */
export interface StoredCodeComment {
  id: number;
  reviewId: number;
  repo: string;
  index: number;
  author: string;
  body: string;
  path: string;
  /** Signed line as Gitea stores it (negative = old side). */
  line: number;
  commitId: string;
  /** The hunk Gitea cut around the line; empty when the line is in no hunk. */
  diffHunk: string;
  resolver: string | null;
  createdAt: string;
}

/** A stored review. */
export interface StoredReview {
  id: number;
  repo: string;
  index: number;
  author: string;
  body: string;
  state: string;
  commitId: string;
  submittedAt: string;
}

/** A stored conversation comment. */
export interface StoredComment {
  id: number;
  repo: string;
  index: number;
  author: string;
  body: string;
  createdAt: string;
}

/** A stored reaction: on a comment (`commentId`) or on the pull request itself. */
export interface StoredReaction {
  repo: string;
  index?: number;
  commentId?: number;
  user: string;
  content: string;
}

/** A stored commit status (`CommitStatus`); Gitea keeps every one, the newest per context shows. */
export interface StoredStatus {
  id: number;
  repo: string;
  sha: string;
  state: string;
  context: string;
  description: string;
  targetUrl: string;
  creator: string;
  createdAt: string;
}

/** The running fake. */
export interface FakeGitea {
  /** Instance URL (`GITEA_URL`); the API is at `<url>/api/v1`. */
  readonly url: string;
  /** `clone_url` of a repository: `<url>/<owner>/<repo>.git`. */
  gitUrl(repo: string): string;
  readonly requests: RecordedRequest[];
  readonly gitRequests: GiteaGitRequest[];
  readonly violations: Violation[];
  readonly comments: StoredComment[];
  readonly reviews: StoredReview[];
  readonly codeComments: StoredCodeComment[];
  readonly reactions: StoredReaction[];
  /** Commit statuses in the order they were created. */
  readonly statuses: StoredStatus[];
  /** Requests other than GET/HEAD. */
  writeRequests(): RecordedRequest[];
  addRepo(fullName: string, bareRepoPath: string): void;
  addPullRequest(options: AddPullRequestOptions): void;
  setPullRequestState(repo: string, index: number, state: 'open' | 'closed' | 'merged'): void;
  addComment(repo: string, index: number, author: string, body: string): StoredComment;
  /** Seeds a submitted review with one code comment, or a reply in a conversation (`inReplyTo`). */
  addCodeComment(seed: SeedCodeComment): StoredCodeComment;
  /** Head SHA of the pull request now (its head branch). */
  headSha(repo: string, index: number): Promise<string>;
  /**
   * Gives the bot's account write access to the code or takes it away (default: write). Without it
   * Gitea refuses a commit status with 403 (`reqRepoWriter(unit.TypeCode)`).
   */
  setCodeWrite(enabled: boolean): void;
  /** Turns the resolve endpoint on or off. */
  setResolveEndpoint(enabled: boolean): void;
  /** Answers the next request matching `method` (`*` = any) and `path` with `status` and `body`. */
  failNext(
    method: string,
    path: RegExp,
    status: number,
    body?: unknown,
    /** Extra headers of the answer, e.g. `Retry-After`. */
    headers?: Record<string, string>,
  ): void;
  close(): Promise<void>;
}
