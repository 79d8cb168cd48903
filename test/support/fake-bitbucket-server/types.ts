/** Public types of the fake Bitbucket Data Center. */

/** Options of `startFakeBitbucketServer`. */
export interface FakeBitbucketServerOptions {
  /** The HTTP access token every API and git request must carry as Bearer. */
  token: string;
  /** The token's user (`X-AUSERNAME`). */
  username?: string;
  /** Page size of paged answers when the request sets no `limit`, and its cap (default 2, to page). */
  pageSize?: number;
}

/** A pull request the fake serves. */
export interface AddPullRequest {
  /** `KEY/slug`. */
  repo: string;
  id: number;
  bareRepoPath: string;
  headBranch: string;
  baseBranch: string;
  title?: string;
  description?: string;
  author?: string;
}

/** A comment as stored (replies under `replies`). */
export interface StoredComment {
  id: number;
  version: number;
  text: string;
  author: string;
  createdDate: number;
  anchor?: {
    path: string;
    /** The path before a move or copy (required by Data Center for a moved file). */
    srcPath?: string;
    line?: number;
    lineType?: string;
    fileType?: string;
    diffType?: string;
  };
  parentId?: number;
  threadResolved: boolean;
  /** Who resolved the thread and when (epoch ms), while resolved. */
  threadResolver?: string;
  threadResolvedDate?: number;
  replies: StoredComment[];
}

/** A build status as posted. */
export interface StoredStatus {
  commit: string;
  key: string;
  state: string;
  url: string;
  description?: string;
}

/** A request that broke the API description or Bitbucket's rules. */
export interface Violation {
  method: string;
  path: string;
  message: string;
}

/** One API request as seen. */
export interface RecordedRequest {
  method: string;
  path: string;
  status: number;
  body: unknown;
}

/** One git smart-HTTP request. */
export interface GitRequest {
  path: string;
  authorized: boolean;
  service: string | undefined;
}

/** The running fake. */
export interface FakeBitbucketServer {
  /** `BITBUCKET_SERVER_URL`, e.g. `http://127.0.0.1:1234` (REST at `/rest/api/1.0`, git at `/scm`). */
  url: string;
  addPullRequest(pr: AddPullRequest): void;
  /** Every comment of a pull request, replies included, in creation order. */
  comments(repo: string, id: number): StoredComment[];
  /** Adds a comment by another user (or the bot), as the web UI would; `parentId` makes a reply. */
  addComment(
    repo: string,
    id: number,
    comment: { text: string; author: string; anchor?: StoredComment['anchor']; parentId?: number },
  ): StoredComment;
  /** Merges or declines a pull request (its `state` and `updatedDate`). */
  setPullRequestState(repo: string, id: number, state: 'OPEN' | 'DECLINED' | 'MERGED'): void;
  /** Resolves the thread of root comment `commentId` as user `login` would in the web UI. */
  resolveThread(repo: string, id: number, commentId: number, login: string): void;
  statuses: StoredStatus[];
  requests: RecordedRequest[];
  gitRequests: GitRequest[];
  violations: Violation[];
  /**
   * The next request matching `method` and `path` answers `status` (once), with extra `headers`
   * (e.g. `Retry-After`).
   */
  failNext(method: string, path: RegExp, status: number, headers?: Record<string, string>): void;
  /** Requests that change something (POST, PUT, DELETE). */
  writeRequests(): RecordedRequest[];
  close(): Promise<void>;
}
