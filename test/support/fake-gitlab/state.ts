/** The fake GitLab's in-memory records (the JSON shapes are built from them in `shapes.ts`). */
import { randomBytes } from 'node:crypto';

/** A user; created on first mention of its username. */
export interface UserRecord {
  id: number;
  username: string;
}

/** A project and the bare repository serving it. */
export interface ProjectRecord {
  id: number;
  path: string;
  bareRepoPath: string;
  defaultBranch: string;
}

/** One diff line with GitLab's diff-parser counters (see `diff.ts`). */
export interface DiffLineRecord {
  kind: 'add' | 'del' | 'context';
  oldPos: number;
  newPos: number;
}

/** One file of a diff version, in GitLab's `diffs` shape plus the fake's parsed lines. */
export interface DiffFileRecord {
  old_path: string;
  new_path: string;
  a_mode: string;
  b_mode: string;
  new_file: boolean;
  renamed_file: boolean;
  deleted_file: boolean;
  generated_file: boolean;
  too_large: boolean;
  collapsed: boolean;
  diff: string;
  lines: DiffLineRecord[];
}

/** A diff version: GitLab creates one per push to the source branch. */
export interface VersionRecord {
  id: number;
  headSha: string;
  baseSha: string;
  startSha: string;
  createdAt: string;
  files: DiffFileRecord[];
}

/** A merge request. */
export interface MergeRequestRecord {
  id: number;
  iid: number;
  project: ProjectRecord;
  sourceProject: ProjectRecord;
  sourceBranch: string;
  targetBranch: string;
  title: string;
  description: string;
  author: UserRecord;
  state: 'opened' | 'closed' | 'merged' | 'locked';
  draft: boolean;
  tooLarge: Set<string>;
  /** Oldest first; the last one is current. */
  versions: VersionRecord[];
  createdAt: string;
  /** Time of the last state change (merge, close), when there was one. */
  updatedAt?: string;
}

/** A note (the first of a discussion, or a reply). */
export interface NoteRecord {
  id: number;
  type: 'DiffNote' | 'DiscussionNote' | null;
  body: string;
  author: UserRecord;
  system: boolean;
  resolvable: boolean;
  createdAt: string;
  position?: Record<string, unknown>;
  /** Head SHA of the version a diff note was made on. */
  commitId?: string;
}

/** A discussion: an individual note or a thread. */
export interface DiscussionRecord {
  id: string;
  mr: MergeRequestRecord;
  individualNote: boolean;
  resolved: boolean;
  resolvedBy?: UserRecord;
  notes: NoteRecord[];
}

/** An award emoji on a note. */
export interface AwardRecord {
  id: number;
  name: string;
  user: UserRecord;
  note: NoteRecord;
  mr: MergeRequestRecord;
  createdAt: string;
}

/** A commit status ("Set the pipeline status of a commit"), one per job of an external stage. */
export interface CommitStatusRecord {
  id: number;
  project: ProjectRecord;
  sha: string;
  ref: string | null;
  name: string;
  status: 'pending' | 'running' | 'success' | 'failed' | 'canceled';
  description: string | null;
  targetUrl: string | null;
  author: UserRecord;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
}

/** Everything the fake stores. */
/** A quick action found in a posted note: GitLab runs it as the note's author. */
export interface QuickActionRecord {
  author: string;
  /** The command without its `/`, e.g. `merge`. */
  command: string;
  line: string;
}

export interface FakeState {
  users: Map<string, UserRecord>;
  projects: ProjectRecord[];
  mergeRequests: MergeRequestRecord[];
  discussions: DiscussionRecord[];
  awards: AwardRecord[];
  statuses: CommitStatusRecord[];
  /** Quick actions GitLab would have run from notes as they were posted (author, command, line). */
  quickActions: QuickActionRecord[];
  nextId(kind: 'user' | 'project' | 'mr' | 'note' | 'version' | 'award' | 'status'): number;
  /** A monotonically increasing ISO timestamp (so creation order sorts). */
  now(): string;
  user(username: string): UserRecord;
  /** By numeric id or full path (case-insensitive, as GitLab resolves paths). */
  findProject(idOrPath: string): ProjectRecord | undefined;
  findMergeRequest(project: ProjectRecord, iid: number): MergeRequestRecord | undefined;
  newDiscussionId(): string;
}

/** Creates empty state. */
export function createState(): FakeState {
  const counters = new Map<string, number>();
  let clock = Date.parse('2026-01-05T10:00:00.000Z');
  const users = new Map<string, UserRecord>();
  const state: FakeState = {
    users,
    projects: [],
    mergeRequests: [],
    discussions: [],
    awards: [],
    statuses: [],
    quickActions: [],
    nextId(kind) {
      const start = { user: 1, project: 101, mr: 5001, note: 90001, version: 701, award: 301, status: 40001 }[
        kind
      ];
      const next = counters.get(kind) ?? start;
      counters.set(kind, next + 1);
      return next;
    },
    // Real time, as GitLab stamps notes (review memory checks a marker's time against it), but
    // strictly increasing by at least a second so the order of notes stays unambiguous.
    now() {
      clock = Math.max(clock + 1000, Date.now());
      return new Date(clock).toISOString();
    },
    user(username) {
      let found = users.get(username.toLowerCase());
      if (!found) {
        found = { id: state.nextId('user'), username };
        users.set(username.toLowerCase(), found);
      }
      return found;
    },
    findProject(idOrPath) {
      if (/^\d+$/.test(idOrPath)) return state.projects.find((p) => p.id === Number(idOrPath));
      return state.projects.find((p) => p.path.toLowerCase() === idOrPath.toLowerCase());
    },
    findMergeRequest(project, iid) {
      return state.mergeRequests.find((m) => m.project === project && m.iid === iid);
    },
    newDiscussionId() {
      return randomBytes(20).toString('hex');
    },
  };
  return state;
}
