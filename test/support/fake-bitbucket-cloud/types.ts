/** Public types of the fake Bitbucket Cloud. */

/** Options of `startFakeBitbucketCloud`. */
export interface FakeBitbucketOptions {
  /** The access token every API and git request must carry. */
  token: string;
  /** The bot account (`GET /user`): nickname and account id. */
  nickname?: string;
  accountId?: string;
  /** Answer `GET /user` with 403, as for credentials without the account scope. */
  userForbidden?: boolean;
  /**
   * Answer `GET /user` as Bitbucket answers a repository, project or workspace access token: 401
   * "Token is invalid or not supported for this endpoint." (Atlassian's suggestion BCLOUD-23528:
   * access tokens cannot read the current user). Other operations work as usual.
   */
  accessToken?: boolean;
  /** Page size of paginated answers when the request sets no `pagelen` (default 2, to page). */
  pageSize?: number;
  /**
   * Repositories (`workspace/slug`) the token may not read: every API request under them is
   * answered 403, as for a fork outside an access token's repository, project or workspace.
   */
  forbiddenRepos?: string[];
}

/** A pull request the fake serves. */
export interface AddPullRequest {
  /** `workspace/slug`. */
  repo: string;
  id: number;
  bareRepoPath: string;
  headBranch: string;
  baseBranch: string;
  title?: string;
  description?: string;
  author?: string;
  /** The fork the pull request comes from (`workspace/slug`); its git data is `bareRepoPath`. */
  sourceRepo?: string;
}

/** A comment as stored. */
export interface StoredComment {
  id: number;
  raw: string;
  /** The author's nickname (not unique on Bitbucket Cloud). */
  author: string;
  /** The author's account id; default: the bot's for the bot's nickname, else `557058:<nickname>`. */
  authorAccountId?: string;
  createdOn: string;
  inline?: { path: string; from?: number; to?: number; start_from?: number; start_to?: number };
  parentId?: number;
  resolved: boolean;
  /** Nickname of who resolved it (`resolution.user`); default the bot. */
  resolvedBy?: string;
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
  username: string;
}

/** The running fake. */
export interface FakeBitbucketCloud {
  /** Web and git base, e.g. `http://127.0.0.1:1234`; the API is at `apiUrl`. */
  url: string;
  /** `BITBUCKET_API_URL`: `<url>/2.0`. */
  apiUrl: string;
  addPullRequest(pr: AddPullRequest): void;
  comments(repo: string, id: number): StoredComment[];
  /** Adds a comment by another user (or the bot), as the web UI would. */
  addComment(
    repo: string,
    id: number,
    comment: Omit<StoredComment, 'id' | 'createdOn' | 'resolved'>,
  ): StoredComment;
  /** Merges, declines or supersedes a pull request (its `state` and `updated_on`). */
  setPullRequestState(repo: string, id: number, state: 'OPEN' | 'MERGED' | 'DECLINED' | 'SUPERSEDED'): void;
  /** Resolves top-level inline comment `commentId` as user `login` would in the web UI. */
  resolveComment(repo: string, id: number, commentId: number, login: string): void;
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
