/**
 * The fake's in-memory data: repositories, pull requests, comments, reviews and reactions as
 * plain records (GitHub's JSON shapes are built from them in `shapes-*.ts`). One state per fake.
 */
import type { Side } from './patch.js';

/** A repository the fake knows, backed by a bare git repository on disk. */
export interface RepoRecord {
  id: number;
  owner: string;
  name: string;
  bareRepoPath: string;
  defaultBranch: string;
}

/** A pull request. `head` lives in `headRepo` (a fork when it differs from `repo`). */
export interface PullRecord {
  id: number;
  number: number;
  repo: RepoRecord;
  headRepo: RepoRecord;
  base: string;
  head: string;
  title: string;
  body: string | null;
  user: string;
  state: 'open' | 'closed';
  merged: boolean;
  draft: boolean;
  createdAt: string;
  updatedAt: string;
  closedAt: string | null;
  /** Head SHA when last read from git. */
  lastHeadSha: string;
}

/** A conversation comment on a pull request. */
export interface IssueCommentRecord {
  id: number;
  pull: PullRecord;
  body: string;
  user: string;
  createdAt: string;
  updatedAt: string;
}

/** GitHub's review states. */
export type ReviewState = 'COMMENTED' | 'APPROVED' | 'CHANGES_REQUESTED' | 'PENDING' | 'DISMISSED';

/** A pull-request review (a reply to an inline comment creates one with an empty body, as on GitHub). */
export interface ReviewRecord {
  id: number;
  pull: PullRecord;
  body: string;
  state: ReviewState;
  user: string;
  commitId: string;
  submittedAt: string | null;
}

/** An inline review comment. */
export interface ReviewCommentRecord {
  id: number;
  pull: PullRecord;
  reviewId: number;
  path: string;
  line: number | null;
  side: Side;
  startLine: number | null;
  startSide: Side | null;
  position: number | null;
  diffHunk: string;
  body: string;
  user: string;
  commitId: string;
  inReplyToId?: number;
  createdAt: string;
  updatedAt: string;
  /** Top-level comments only: who resolved the thread it starts (GraphQL `resolveReviewThread`). */
  resolvedBy?: string;
}

/** Reaction contents GitHub accepts. */
export type ReactionContent = '+1' | '-1' | 'laugh' | 'confused' | 'heart' | 'hooray' | 'rocket' | 'eyes';

/** A reaction on a comment. */
export interface ReactionRecord {
  id: number;
  subject: 'issue_comment' | 'review_comment';
  commentId: number;
  content: ReactionContent;
  user: string;
  createdAt: string;
}

/** A check run (Checks API; only GitHub Apps create them). */
export interface CheckRunRecord {
  id: number;
  repo: RepoRecord;
  name: string;
  headSha: string;
  status: 'queued' | 'in_progress' | 'completed';
  conclusion: string | null;
  startedAt: string | null;
  completedAt: string | null;
  detailsUrl: string | null;
  externalId: string | null;
  output: { title: string | null; summary: string | null; text: string | null };
  /** Login of the App's bot that created it. */
  user: string;
}

/** A commit status. */
export interface StatusRecord {
  id: number;
  repo: RepoRecord;
  sha: string;
  state: 'error' | 'failure' | 'pending' | 'success';
  description: string | null;
  targetUrl: string | null;
  context: string;
  user: string;
  createdAt: string;
}

/** Everything one fake holds. */
export interface FakeState {
  repos: Map<string, RepoRecord>;
  /** Keyed `owner/repo#number` (lower-cased owner/repo). */
  pulls: Map<string, PullRecord>;
  issueComments: IssueCommentRecord[];
  reviews: ReviewRecord[];
  reviewComments: ReviewCommentRecord[];
  reactions: ReactionRecord[];
  checkRuns: CheckRunRecord[];
  statuses: StatusRecord[];
  /** Login → numeric id. */
  users: Map<string, number>;
  /** Next id for a created object (ids are unique across kinds). */
  nextId(): number;
  /** Current time as GitHub formats it (`2024-01-01T00:00:00Z`). */
  now(): string;
}

/** Creates an empty state; ids start at `firstId`. */
export function createState(firstId = 1000): FakeState {
  let id = firstId;
  return {
    repos: new Map(),
    pulls: new Map(),
    issueComments: [],
    reviews: [],
    reviewComments: [],
    reactions: [],
    checkRuns: [],
    statuses: [],
    users: new Map(),
    nextId: () => (id += 1),
    now: () => new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
  };
}

/** Key of a repository in `FakeState.repos` (GitHub names are case-insensitive). */
export function repoKey(owner: string, repo: string): string {
  return `${owner}/${repo}`.toLowerCase();
}

/** Key of a pull request in `FakeState.pulls`. */
export function pullKey(owner: string, repo: string, number: number): string {
  return `${repoKey(owner, repo)}#${number}`;
}

/** Numeric id of `login`, assigned on first sight. */
export function userId(state: FakeState, login: string): number {
  let id = state.users.get(login);
  if (id === undefined) {
    id = 5000 + state.users.size + 1;
    state.users.set(login, id);
  }
  return id;
}
