/**
 * Public types of the fake GitHub: options, the handle tests get, and the records it keeps.
 */
import type { GitHttpRequest } from '../git-http-server.js';
import type { FakeReviewThread } from './graphql.js';
import type {
  GitHubIssueComment,
  GitHubPullRequest,
  GitHubReaction,
  GitHubReview,
  GitHubReviewComment,
} from './shapes-pull.js';

/** GitHub App settings; give the public key, or the private key (its public part is used). */
export interface FakeAppOptions {
  appId: number;
  installationId: number;
  /** App slug; the App acts as `<slug>[bot]`. Default `reviewbot-app`. */
  slug?: string;
  /** PEM of the App's public key, or of its private key. */
  privateKeyPem?: string;
  publicKeyPem?: string;
  /** Login of the App's owner (`GET /app`). Default `reviewbot-org`. */
  owner?: string;
  /**
   * Permissions the installation was granted; a token request asking for more is answered 422, as
   * GitHub does. Default: contents, issues, pull requests and checks write.
   */
  installationPermissions?: Record<string, 'read' | 'write'>;
}

/** Options of `startFakeGitHub`. */
export interface FakeGitHubOptions {
  /** The personal access token API and git requests must carry. */
  token: string;
  /** Login of the token's user (`GET /user`). Default `reviewbot-test`. */
  login?: string;
  app?: FakeAppOptions;
}

/** One API request as the fake saw it (git requests are in `gitRequests`). */
export interface RecordedRequest {
  method: string;
  /** Path without query, e.g. `/repos/acme/widgets/pulls/1`. */
  path: string;
  query: Record<string, string>;
  /** Lower-cased header names; `authorization` is never recorded. */
  headers: Record<string, string>;
  /** Parsed JSON body (raw text when not JSON; undefined when empty). */
  body: unknown;
  /** OpenAPI operation id when the request matched one, e.g. `pulls/create-review`. */
  operationId?: string;
  /** How the request authenticated: a PAT, an installation token, an App JWT, or not at all. */
  auth: 'token' | 'installation' | 'app' | 'none';
  /** Status the fake answered with (0 until answered). */
  status: number;
}

/** Why a request (or a response of the fake) does not conform to GitHub's API description. */
export type ViolationKind =
  'unknown-operation' | 'unimplemented' | 'parameters' | 'body' | 'response' | 'fake-error';

/** A conformance problem; tests assert `expect(fake.violations).toEqual([])`. */
export interface Violation {
  kind: ViolationKind;
  method: string;
  path: string;
  operationId?: string;
  message: string;
}

/** Arguments of `addPullRequest`. */
export interface AddPullRequestOptions {
  owner: string;
  repo: string;
  number: number;
  /** Bare repository holding `base` and (unless `headRepo` is given) `head`. */
  bareRepoPath: string;
  /** Base branch name. */
  base: string;
  /** Head branch name. */
  head: string;
  title: string;
  body?: string | null;
  /** Author login. Default `octocat`. */
  user?: string;
  state?: 'open' | 'closed' | 'merged';
  draft?: boolean;
  /** The head branch lives in this repository (a fork); its commits are fetched to `refs/pull/N/head`. */
  headRepo?: { owner: string; repo: string; bareRepoPath: string };
}

/** Arguments of `addIssueComment`. */
export interface SeedIssueComment {
  owner: string;
  repo: string;
  number: number;
  body: string;
  user: string;
}

/** Arguments of `addReviewComment`: a comment as if posted on GitHub (the location must be in the diff). */
export interface SeedReviewComment {
  owner: string;
  repo: string;
  number: number;
  body: string;
  user: string;
  path: string;
  line: number;
  side?: 'LEFT' | 'RIGHT';
  startLine?: number;
  /** Id of the top-level comment this one replies to. */
  inReplyTo?: number;
}

/** Arguments of `addReview`. */
export interface SeedReview {
  owner: string;
  repo: string;
  number: number;
  body: string;
  user: string;
  state?: 'COMMENTED' | 'APPROVED' | 'CHANGES_REQUESTED';
}

/** A stored reaction plus what it is on (GitHub's reaction JSON does not say). */
export type FakeReaction = GitHubReaction & {
  subject_type: 'issue_comment' | 'review_comment';
  subject_id: number;
};

/** The running fake. */
export interface FakeGitHub {
  /** API base URL (`http://127.0.0.1:<port>`): Octokit's `baseUrl`. */
  readonly url: string;
  /** Clone URL of a repository: `<url>/git/<owner>/<repo>.git`. */
  gitUrl(owner: string, repo: string): string;
  readonly requests: RecordedRequest[];
  readonly gitRequests: GitHttpRequest[];
  readonly violations: Violation[];
  /** Everything stored, in GitHub's response shapes (fresh copies on each read). */
  readonly reviews: GitHubReview[];
  readonly issueComments: GitHubIssueComment[];
  readonly reviewComments: GitHubReviewComment[];
  readonly reactions: FakeReaction[];
  /** Review threads (top-level review comments with their replies) and who resolved them. */
  readonly reviewThreads: FakeReviewThread[];
  /** Check runs created (GitHub App auth), in GitHub's response shape, oldest first. */
  readonly checkRuns: Array<
    Record<string, unknown> & {
      name: string;
      status: string;
      conclusion: string | null;
      head_sha: string;
      output: { title: string | null; summary: string | null };
    }
  >;
  /** Commit statuses created, in GitHub's response shape, oldest first. */
  readonly statuses: Array<
    Record<string, unknown> & {
      state: string;
      context: string;
      description: string | null;
      target_url: string | null;
    }
  >;
  /** Installation tokens minted so far (to check none leaks). */
  readonly installationTokens: string[];
  /** Requests other than GET/HEAD, leaving out minting installation tokens and GraphQL queries. */
  writeRequests(): RecordedRequest[];
  /** Registers a repository (done by `addPullRequest` too); serves it over git HTTP. */
  addRepository(owner: string, repo: string, bareRepoPath: string, defaultBranch?: string): void;
  /** Registers a pull request; returns its JSON. Throws when a branch does not exist. */
  addPullRequest(options: AddPullRequestOptions): Promise<GitHubPullRequest>;
  /** Closes, merges or reopens a pull request. */
  setPullRequestState(owner: string, repo: string, number: number, state: 'open' | 'closed' | 'merged'): void;
  addIssueComment(seed: SeedIssueComment): GitHubIssueComment;
  /** Throws when the location is not in the diff. */
  addReviewComment(seed: SeedReviewComment): Promise<GitHubReviewComment>;
  addReview(seed: SeedReview): GitHubReview;
  /** Stores a reaction by `user` (e.g. an allowed user's `-1` on a bot finding), as GitHub would. */
  addReaction(seed: {
    subject: 'issue_comment' | 'review_comment';
    commentId: number;
    content: '+1' | '-1' | 'laugh' | 'confused' | 'heart' | 'hooray' | 'rocket' | 'eyes';
    user: string;
  }): void;
  /**
   * Delays answers by `ms` for requests whose `"METHOD /path"` matches `match` (all when omitted).
   * A later call with the same `match` replaces the earlier one; `setLatency(0)` clears all delays.
   */
  setLatency(ms: number, match?: RegExp): void;
  /**
   * Answers the next request with `method` (`*` = any) whose path matches `path` with `status` and
   * `body` (default GitHub's error JSON for the status) and extra `headers`, instead of handling it.
   * Calls queue up; each is used once. Applies to git requests too.
   */
  failNext(
    method: string,
    path: RegExp,
    status: number,
    body?: unknown,
    headers?: Record<string, string>,
  ): void;
  close(): Promise<void>;
}
