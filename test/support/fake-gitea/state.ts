/** The fake Gitea's in-memory state: users, repositories, pull requests and what was posted. */
import type {
  StoredCodeComment,
  StoredComment,
  StoredReaction,
  StoredReview,
  StoredStatus,
} from './types.js';

/** A user (`User`). */
export interface UserRecord {
  id: number;
  login: string;
}

/** A repository served over git HTTP from a bare repository. */
export interface RepoRecord {
  id: number;
  owner: UserRecord;
  name: string;
  fullName: string;
  bareRepoPath: string;
  defaultBranch: string;
}

/** A pull request (`PullRequest`): its head branch lives in the same repository. */
export interface PullRecord {
  id: number;
  index: number;
  repo: RepoRecord;
  headBranch: string;
  baseBranch: string;
  title: string;
  body: string;
  author: UserRecord;
  state: 'open' | 'closed' | 'merged';
  createdAt: string;
  /** Time of the last state change (merge, close), when there was one. */
  updatedAt?: string;
}

/** The whole state. */
export interface FakeState {
  users: Map<string, UserRecord>;
  repos: RepoRecord[];
  pulls: PullRecord[];
  comments: StoredComment[];
  reviews: StoredReview[];
  codeComments: StoredCodeComment[];
  reactions: StoredReaction[];
  statuses: StoredStatus[];
  resolveEndpoint: boolean;
  /** The bot's account may write to the code (commit statuses need it); default true. */
  codeWrite: boolean;
  user(login: string): UserRecord;
  findRepo(owner: string, name: string): RepoRecord | undefined;
  findPull(repo: RepoRecord, index: number): PullRecord | undefined;
  /** Ids shared by conversation and code comments (one comment table in Gitea). */
  nextCommentId(): number;
  nextId(kind: 'user' | 'repo' | 'pull' | 'review' | 'status'): number;
  /** A strictly increasing timestamp (RFC 3339, second precision): now, or a second after the last. */
  now(): string;
}

/** Creates an empty state. */
export function createState(resolveEndpoint: boolean): FakeState {
  const counters = { user: 0, repo: 0, pull: 0, review: 0, status: 0, comment: 0 };
  let clock = 0;
  const state: FakeState = {
    users: new Map(),
    repos: [],
    pulls: [],
    comments: [],
    reviews: [],
    codeComments: [],
    reactions: [],
    statuses: [],
    resolveEndpoint,
    codeWrite: true,
    user(login) {
      const key = login.toLowerCase();
      let found = state.users.get(key);
      if (!found) {
        found = { id: state.nextId('user'), login };
        state.users.set(key, found);
      }
      return found;
    },
    findRepo: (owner, name) =>
      state.repos.find((r) => r.fullName.toLowerCase() === `${owner}/${name}`.toLowerCase()),
    findPull: (repo, index) => state.pulls.find((p) => p.repo === repo && p.index === index),
    nextCommentId: () => ++counters.comment,
    nextId: (kind) => ++counters[kind],
    now() {
      // The real time (Gitea stamps with its own clock; review markers dated after it are not
      // believed), at least a second after the previous stamp so order survives second precision.
      clock = Math.max(clock + 1000, Math.floor(Date.now() / 1000) * 1000);
      return new Date(clock).toISOString().replace(/\.\d{3}Z$/, 'Z');
    },
  };
  return state;
}
