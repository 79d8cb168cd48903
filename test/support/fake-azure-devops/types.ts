/** Public types of the fake Azure DevOps. */

/** Options of `startFakeAzureDevOps`. */
export interface FakeAzureOptions {
  /** The personal access token every API and git request must carry (Basic, empty user). */
  token: string;
  /**
   * `basic` (default): `token` is a PAT, accepted only as `Basic base64(":" + token)`. `bearer`:
   * `token` is a pipeline's job access token (`System.AccessToken`), accepted only as `Bearer
   * <token>`, the form Microsoft documents for it (scripts' REST calls, the agent's git checkout).
   */
  scheme?: 'basic' | 'bearer';
  /** The bot identity (`connectionData.authenticatedUser`). */
  botId?: string;
  botUniqueName?: string;
  /** Collection path, e.g. `/acme` (Services' organization) or `/tfs/DefaultCollection`. */
  collection?: string;
}

/** A pull request the fake serves. */
export interface AddPullRequest {
  project: string;
  repo: string;
  id: number;
  bareRepoPath: string;
  headBranch: string;
  baseBranch: string;
  title?: string;
  description?: string;
  author?: string;
}

/** One comment of a stored thread. */
export interface StoredComment {
  id: number;
  parentCommentId: number;
  content: string;
  author: string;
  authorId: string;
  publishedDate: string;
}

/** A thread as stored (wire shape of `GitPullRequestCommentThread`, enums as strings). */
export interface StoredThread {
  id: number;
  status: string;
  threadContext?: Record<string, unknown>;
  pullRequestThreadContext?: Record<string, unknown>;
  comments: StoredComment[];
}

/** A pull request status as posted. */
export interface StoredStatus {
  state: string;
  description?: string;
  context: { genre?: string; name?: string };
  targetUrl?: string;
  iterationId?: number;
}

/** A request that broke Azure DevOps' rules. */
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
  /** True when the Authorization header came without a 401 challenge first (`http.extraHeader`). */
  preemptive: boolean;
}

/**
 * One item content download (`GET …/items?path=…`). A body over `STREAMED_ITEM_BYTES` goes out in
 * chunks, one per timer tick, as a remote service's would arrive, so a client that stops reading
 * (and closes the connection) is seen not to have taken it whole.
 */
export interface ItemRead {
  /** The file's path, without the leading `/`. */
  path: string;
  /** `versionDescriptor.version` (the commit). */
  version: string;
  /** The file's size, bytes. */
  size: number;
  /** Bytes written to the connection before it ended. */
  sent: number;
  /** True once the whole body went out; false when the client closed the connection first. */
  complete: boolean;
}
