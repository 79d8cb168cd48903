/**
 * Public types of the fake GitLab: options, the handle tests get, seeds, and the records it keeps.
 * Response shapes follow GitLab's REST v4 documentation.
 */
import type { GitHttpRequest } from '../git-http-server.js';

/** Options of `startFakeGitLab`. */
export interface FakeGitLabOptions {
  /** The access token API requests (`PRIVATE-TOKEN`) and git requests (password) must carry. */
  token: string;
  /** Username of the token's user (`GET /user`). Default `reviewbot-bot`. */
  username?: string;
  /**
   * The token user's role on every project (GitLab, "Roles and permissions"). Default `developer`.
   * Below Developer, GitLab answers 403 to resolving a thread (`resolve_note`; the merge request's
   * author excepted) and to setting a commit status (`create_commit_status`). Those are the only
   * rules the fake applies by role.
   */
  role?: GitLabRole;
}

/** A project member's role, lowest first (GitLab's access levels 10, 20, 30, 40, 50). */
export type GitLabRole = 'guest' | 'reporter' | 'developer' | 'maintainer' | 'owner';

/** One API request as the fake saw it (git requests are in `gitRequests`). */
export interface RecordedRequest {
  method: string;
  /** Path without query as sent (project ids stay URL-encoded), e.g. `/api/v4/projects/g%2Fp`. */
  path: string;
  query: Record<string, string>;
  /** Lower-cased header names; `private-token` and `authorization` are never recorded. */
  headers: Record<string, string>;
  /** Parsed body: JSON, or form fields as a nested object (`a[b]=c` → `{a:{b:'c'}}`). */
  body: unknown;
  /** Whether the request carried the right token. */
  authorized: boolean;
  /** Status the fake answered with (0 until answered). */
  status: number;
}

/** A request the fake could not route, or a problem inside the fake: tests expect none. */
export interface Violation {
  method: string;
  path: string;
  message: string;
}

/** Arguments of `addProject`. */
export interface AddProjectOptions {
  /** Full path, e.g. `group/sub/project`. */
  path: string;
  /** Bare repository served for this project. */
  bareRepoPath: string;
  defaultBranch?: string;
}

/** Arguments of `addMergeRequest`. */
export interface AddMergeRequestOptions {
  /** Target project path (registered, or registered now with `bareRepoPath`). */
  project: string;
  iid: number;
  bareRepoPath?: string;
  sourceBranch: string;
  targetBranch: string;
  title: string;
  description?: string;
  /** Author username. Default `alice`. */
  author?: string;
  state?: 'opened' | 'closed' | 'merged' | 'locked';
  draft?: boolean;
  /** The source branch lives in this project (a fork); registered when `bareRepoPath` is given. */
  sourceProject?: { path: string; bareRepoPath?: string };
  /** Paths whose diff GitLab withholds (`too_large: true`, `diff: ""`). */
  tooLarge?: string[];
}

/** A position of a seeded diff note (lines as GitLab stores them: added = new only, removed = old only). */
export interface SeedPosition {
  newPath: string;
  oldPath?: string;
  newLine?: number;
  oldLine?: number;
}

/** Arguments of `addNote`: a note as if written on GitLab. */
export interface SeedNote {
  project: string;
  iid: number;
  body: string;
  author: string;
  /** A system note ("added 1 commit", …). */
  system?: boolean;
  /** Reply in this discussion instead of starting one. */
  discussionId?: string;
  /** Start a diff discussion at this position (not validated: seeds may be outdated notes). */
  position?: SeedPosition;
  /** Start a (non-diff) thread rather than an individual note. */
  thread?: boolean;
  /** Mark the new discussion resolved. */
  resolved?: boolean;
  /** With `resolved`: who resolved it (its notes' `resolved_by`; default none, `null`). */
  resolvedBy?: string;
}

/** What `addNote` created. */
export interface SeededNote {
  noteId: number;
  discussionId: string;
}

/** A stored note as GitLab lists it, plus the discussion it belongs to. */
export interface StoredNote {
  id: number;
  discussion_id: string;
  type: 'DiffNote' | 'DiscussionNote' | null;
  body: string;
  author: string;
  system: boolean;
  project: string;
  iid: number;
  position?: Record<string, unknown>;
  created_at: string;
}

/** A stored discussion with its notes, oldest first. */
export interface StoredDiscussion {
  id: string;
  individual_note: boolean;
  resolved: boolean;
  project: string;
  iid: number;
  notes: StoredNote[];
}

/** A stored award emoji. */
export interface StoredAward {
  id: number;
  name: string;
  user: string;
  noteId: number;
  project: string;
  iid: number;
}

/** The running fake. */
export interface FakeGitLab {
  /** Instance URL (`http://127.0.0.1:<port>`): `GITLAB_URL`. The API is at `<url>/api/v4`. */
  readonly url: string;
  /** `http_url_to_repo` of a project: `<url>/<path>.git`. */
  gitUrl(path: string): string;
  readonly requests: RecordedRequest[];
  readonly gitRequests: GitHttpRequest[];
  readonly violations: Violation[];
  /** Quick actions found in posted notes (GitLab would have run them as the note's author). */
  readonly quickActions: ReadonlyArray<{ author: string; command: string; line: string }>;
  /** Every discussion (individual notes included), oldest first. */
  readonly discussions: StoredDiscussion[];
  /** Every note (notes of discussions included), oldest first. */
  readonly notes: StoredNote[];
  /** Diff notes only (the inline discussions' first notes and their replies). */
  readonly diffNotes: StoredNote[];
  readonly awards: StoredAward[];
  /** Commit statuses ("Set the pipeline status of a commit"), in GitLab's shape plus `project`. */
  readonly statuses: Array<{
    id: number;
    sha: string;
    name: string;
    status: string;
    description: string | null;
    target_url: string | null;
    project: string;
  }>;
  /** Requests other than GET/HEAD. */
  writeRequests(): RecordedRequest[];
  addProject(options: AddProjectOptions): { id: number };
  /** Registers a merge request (its first diff version is computed from git). Throws on a missing branch. */
  addMergeRequest(options: AddMergeRequestOptions): Promise<{ id: number; iid: number }>;
  setMergeRequestState(project: string, iid: number, state: 'opened' | 'closed' | 'merged' | 'locked'): void;
  addNote(seed: SeedNote): SeededNote;
  /** Resolves discussion `discussionId` as user `username` would on GitLab (its `resolved_by`). */
  resolveDiscussion(discussionId: string, username: string): void;
  /** Awards emoji `name` (e.g. `thumbsdown`) on note `noteId` as `username`, as GitLab would. */
  awardEmoji(noteId: number, name: string, username: string): void;
  /** The `diff_refs` of the merge request's current version (syncs with git first). */
  diffRefs(project: string, iid: number): Promise<{ base_sha: string; start_sha: string; head_sha: string }>;
  /** A `Note Hook` payload for a stored note, as GitLab sends it. */
  noteHook(noteId: number): Promise<Record<string, unknown>>;
  /** A `Merge Request Hook` payload for `action` (`update` with `oldrev` when given). */
  mergeRequestHook(
    project: string,
    iid: number,
    action: string,
    oldrev?: string,
  ): Promise<Record<string, unknown>>;
  /**
   * Answers the next request with `method` (`*` = any) whose path matches `path` with `status` and
   * `body` (default GitLab's `{"message": "<status> ..."}`), instead of handling it. Used once.
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
