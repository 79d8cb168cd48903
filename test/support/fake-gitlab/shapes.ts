/**
 * GitLab REST v4 JSON of the fake's records (GitLab docs: `users.md`, `projects.md`,
 * `merge_requests.md`, `discussions.md`, `notes.md`, `award_emoji.md`). Fields the platform does not
 * read are included where cheap, so the shapes look like the real thing.
 */
import type {
  AwardRecord,
  DiffFileRecord,
  DiscussionRecord,
  MergeRequestRecord,
  NoteRecord,
  ProjectRecord,
  UserRecord,
  VersionRecord,
} from './state.js';

/** What the shapes need besides a record. */
export interface ShapeContext {
  /** Instance URL, e.g. `http://127.0.0.1:1234`. */
  baseUrl: string;
}

/** A user as embedded in other objects (`author`, `user`). */
export function userJson(ctx: ShapeContext, user: UserRecord): Record<string, unknown> {
  return {
    id: user.id,
    username: user.username,
    name: user.username.replace(/[-_.]/g, ' '),
    state: 'active',
    locked: false,
    avatar_url: `https://www.gravatar.com/avatar/${user.id}?s=80&d=identicon`,
    web_url: `${ctx.baseUrl}/${user.username}`,
  };
}

function namespaceOf(ctx: ShapeContext, path: string): Record<string, unknown> {
  const parts = path.split('/');
  const full = parts.slice(0, -1).join('/');
  return {
    id: 10 + full.length,
    name: parts.at(-2) ?? '',
    path: parts.at(-2) ?? '',
    kind: 'group',
    full_path: full,
    parent_id: null,
    web_url: `${ctx.baseUrl}/groups/${full}`,
  };
}

/** `GET /projects/:id`. */
export function projectJson(ctx: ShapeContext, project: ProjectRecord): Record<string, unknown> {
  const name = project.path.split('/').at(-1) ?? project.path;
  return {
    id: project.id,
    description: null,
    name,
    name_with_namespace: project.path.split('/').join(' / '),
    path: name,
    path_with_namespace: project.path,
    created_at: '2026-01-01T09:00:00.000Z',
    default_branch: project.defaultBranch,
    tag_list: [],
    topics: [],
    ssh_url_to_repo: `git@127.0.0.1:${project.path}.git`,
    http_url_to_repo: `${ctx.baseUrl}/${project.path}.git`,
    web_url: `${ctx.baseUrl}/${project.path}`,
    readme_url: null,
    forks_count: 0,
    star_count: 0,
    last_activity_at: '2026-01-05T10:00:00.000Z',
    namespace: namespaceOf(ctx, project.path),
    visibility: 'private',
    archived: false,
  };
}

/** `diff_refs` of a version. */
export function diffRefsJson(version: VersionRecord): Record<string, string> {
  return { base_sha: version.baseSha, head_sha: version.headSha, start_sha: version.startSha };
}

/** `GET /projects/:id/merge_requests/:iid` (the single-MR shape, with `diff_refs`). */
export function mergeRequestJson(ctx: ShapeContext, mr: MergeRequestRecord): Record<string, unknown> {
  const version = mr.versions.at(-1);
  const webUrl = `${ctx.baseUrl}/${mr.project.path}/-/merge_requests/${mr.iid}`;
  return {
    id: mr.id,
    iid: mr.iid,
    project_id: mr.project.id,
    title: mr.draft ? `Draft: ${mr.title}` : mr.title,
    description: mr.description,
    state: mr.state,
    created_at: mr.createdAt,
    updated_at: mr.createdAt,
    merged_at: mr.state === 'merged' ? mr.createdAt : null,
    closed_at: mr.state === 'closed' ? mr.createdAt : null,
    target_branch: mr.targetBranch,
    source_branch: mr.sourceBranch,
    user_notes_count: 0,
    upvotes: 0,
    downvotes: 0,
    author: userJson(ctx, mr.author),
    assignees: [],
    reviewers: [],
    source_project_id: mr.sourceProject.id,
    target_project_id: mr.project.id,
    labels: [],
    draft: mr.draft,
    work_in_progress: mr.draft,
    milestone: null,
    merge_when_pipeline_succeeds: false,
    merge_status: 'can_be_merged',
    detailed_merge_status: mr.draft ? 'draft_status' : 'mergeable',
    sha: version?.headSha ?? null,
    merge_commit_sha: null,
    squash_commit_sha: null,
    discussion_locked: null,
    should_remove_source_branch: null,
    force_remove_source_branch: true,
    reference: `!${mr.iid}`,
    references: { short: `!${mr.iid}`, relative: `!${mr.iid}`, full: `${mr.project.path}!${mr.iid}` },
    web_url: webUrl,
    squash: false,
    has_conflicts: false,
    blocking_discussions_resolved: true,
    subscribed: true,
    changes_count: String(version?.files.length ?? 0),
    diff_refs: version ? diffRefsJson(version) : null,
    merge_error: null,
    user: { can_merge: true },
  };
}

/** One entry of `GET .../diffs` and of a version's `diffs`. */
export function diffJson(file: DiffFileRecord): Record<string, unknown> {
  const { lines: _lines, ...json } = file;
  return json;
}

/** One entry of `GET .../versions`. */
export function versionJson(mr: MergeRequestRecord, version: VersionRecord): Record<string, unknown> {
  return {
    id: version.id,
    head_commit_sha: version.headSha,
    base_commit_sha: version.baseSha,
    start_commit_sha: version.startSha,
    created_at: version.createdAt,
    merge_request_id: mr.id,
    state: 'collected',
    real_size: String(version.files.length),
    patch_id_sha: null,
  };
}

/** A note as listed in discussions, and as answered by the note-creating endpoints. */
export function noteJson(
  ctx: ShapeContext,
  discussion: DiscussionRecord,
  note: NoteRecord,
): Record<string, unknown> {
  const json: Record<string, unknown> = {
    id: note.id,
    type: note.type,
    body: note.body,
    attachment: null,
    author: userJson(ctx, note.author),
    created_at: note.createdAt,
    updated_at: note.createdAt,
    system: note.system,
    noteable_id: discussion.mr.id,
    noteable_type: 'MergeRequest',
    project_id: discussion.mr.project.id,
    noteable_iid: discussion.mr.iid,
    resolvable: note.resolvable,
    confidential: false,
    internal: false,
    imported: false,
    imported_from: 'none',
  };
  if (note.resolvable) {
    json.resolved = discussion.resolved;
    json.resolved_by =
      discussion.resolved && discussion.resolvedBy ? userJson(ctx, discussion.resolvedBy) : null;
    json.resolved_at = discussion.resolved ? note.createdAt : null;
  }
  if (note.position) {
    json.position = note.position;
    json.commit_id = note.commitId ?? null;
  }
  return json;
}

/** A discussion (`GET/POST .../discussions`). */
export function discussionJson(ctx: ShapeContext, discussion: DiscussionRecord): Record<string, unknown> {
  return {
    id: discussion.id,
    individual_note: discussion.individualNote,
    notes: discussion.notes.map((n) => noteJson(ctx, discussion, n)),
  };
}

/** `POST .../notes/:note_id/award_emoji`. */
export function awardJson(ctx: ShapeContext, award: AwardRecord): Record<string, unknown> {
  return {
    id: award.id,
    name: award.name,
    user: userJson(ctx, award.user),
    created_at: award.createdAt,
    updated_at: award.createdAt,
    awardable_id: award.note.id,
    awardable_type: 'Note',
  };
}
