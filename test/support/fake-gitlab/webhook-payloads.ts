/**
 * Webhook bodies as GitLab sends them for the fake's records (GitLab docs, "Webhook events":
 * "Comment on a merge request" — `X-Gitlab-Event: Note Hook` — and "Merge request events" —
 * `Merge Request Hook`), so end-to-end tests deliver payloads consistent with the fake's API.
 */
import { createHash } from 'node:crypto';
import { currentVersion } from './diff.js';
import type { ShapeContext } from './shapes.js';
import type {
  DiscussionRecord,
  FakeState,
  MergeRequestRecord,
  NoteRecord,
  ProjectRecord,
  UserRecord,
} from './state.js';

/** `2026-01-05 10:00:01 UTC`: the timestamp format of note hooks. */
function hookTime(iso: string): string {
  return `${iso.replace('T', ' ').replace(/\.\d{3}Z$/, '')} UTC`;
}

function hookUser(user: UserRecord): Record<string, unknown> {
  return {
    id: user.id,
    name: user.username,
    username: user.username,
    avatar_url: `https://www.gravatar.com/avatar/${user.id}?s=80&d=identicon`,
    email: '[REDACTED]',
  };
}

function hookProject(ctx: ShapeContext, project: ProjectRecord): Record<string, unknown> {
  const web = `${ctx.baseUrl}/${project.path}`;
  return {
    id: project.id,
    name: project.path.split('/').at(-1),
    description: '',
    web_url: web,
    avatar_url: null,
    git_ssh_url: `git@127.0.0.1:${project.path}.git`,
    git_http_url: `${web}.git`,
    namespace: project.path.split('/').slice(0, -1).join(' / '),
    visibility_level: 0,
    path_with_namespace: project.path,
    default_branch: project.defaultBranch,
    ci_config_path: null,
    homepage: web,
    url: `git@127.0.0.1:${project.path}.git`,
    ssh_url: `git@127.0.0.1:${project.path}.git`,
    http_url: `${web}.git`,
  };
}

async function hookMergeRequest(ctx: ShapeContext, state: FakeState, mr: MergeRequestRecord) {
  const version = await currentVersion(state, mr);
  return {
    id: mr.id,
    iid: mr.iid,
    target_branch: mr.targetBranch,
    source_branch: mr.sourceBranch,
    source_project_id: mr.sourceProject.id,
    author_id: mr.author.id,
    title: mr.draft ? `Draft: ${mr.title}` : mr.title,
    created_at: mr.createdAt,
    updated_at: mr.createdAt,
    state: mr.state,
    merge_status: 'can_be_merged',
    detailed_merge_status: 'mergeable',
    target_project_id: mr.project.id,
    description: mr.description,
    url: `${ctx.baseUrl}/${mr.project.path}/-/merge_requests/${mr.iid}`,
    source: hookProject(ctx, mr.sourceProject),
    target: hookProject(ctx, mr.project),
    last_commit: {
      id: version.headSha,
      message: 'feature work\n',
      title: 'feature work',
      timestamp: version.createdAt,
      url: `${ctx.baseUrl}/${mr.sourceProject.path}/-/commit/${version.headSha}`,
      author: { name: 'Fixture Author', email: 'fixture@example.invalid' },
    },
    work_in_progress: mr.draft,
    draft: mr.draft,
    labels: [],
  };
}

function lineCodeOf(mr: MergeRequestRecord, note: NoteRecord): string | null {
  const p = note.position;
  if (!p) return null;
  const version = mr.versions.find((v) => v.headSha === p.head_sha);
  const file = version?.files.find((f) => f.new_path === p.new_path);
  const line = file?.lines.find(
    (l) =>
      (l.kind === 'add' ? null : l.oldPos) === (p.old_line ?? null) &&
      (l.kind === 'del' ? null : l.newPos) === (p.new_line ?? null),
  );
  if (!line) return null;
  return `${createHash('sha1').update(String(p.new_path)).digest('hex')}_${line.oldPos}_${line.newPos}`;
}

/** The `Note Hook` body for `note` of `discussion`. */
export async function noteHookPayload(
  ctx: ShapeContext,
  state: FakeState,
  discussion: DiscussionRecord,
  note: NoteRecord,
): Promise<Record<string, unknown>> {
  const { mr } = discussion;
  const url = `${ctx.baseUrl}/${mr.project.path}/-/merge_requests/${mr.iid}#note_${note.id}`;
  return {
    object_kind: 'note',
    event_type: 'note',
    user: hookUser(note.author),
    project_id: mr.project.id,
    project: hookProject(ctx, mr.project),
    repository: {
      name: mr.project.path.split('/').at(-1),
      url: `git@127.0.0.1:${mr.project.path}.git`,
      description: '',
      homepage: `${ctx.baseUrl}/${mr.project.path}`,
    },
    object_attributes: {
      id: note.id,
      note: note.body,
      noteable_type: 'MergeRequest',
      author_id: note.author.id,
      created_at: hookTime(note.createdAt),
      updated_at: hookTime(note.createdAt),
      project_id: mr.project.id,
      attachment: null,
      line_code: lineCodeOf(mr, note),
      commit_id: note.commitId ?? '',
      noteable_id: mr.id,
      system: note.system,
      st_diff: null,
      updated_by_id: null,
      type: note.type,
      position: note.position ?? null,
      original_position: note.position ?? null,
      resolved_at: null,
      resolved_by_id: null,
      resolved_by_push: null,
      change_position: null,
      discussion_id: discussion.id,
      description: note.body,
      url,
      action: 'create',
    },
    merge_request: await hookMergeRequest(ctx, state, mr),
  };
}

/** The `Merge Request Hook` body for `action`; `oldrev` marks an update that brought new commits. */
export async function mergeRequestHookPayload(
  ctx: ShapeContext,
  state: FakeState,
  mr: MergeRequestRecord,
  action: string,
  oldrev?: string,
): Promise<Record<string, unknown>> {
  const attributes = await hookMergeRequest(ctx, state, mr);
  return {
    object_kind: 'merge_request',
    event_type: 'merge_request',
    user: hookUser(mr.author),
    project: hookProject(ctx, mr.project),
    repository: {
      name: mr.project.path.split('/').at(-1),
      url: `${ctx.baseUrl}/${mr.project.path}.git`,
      description: '',
      homepage: `${ctx.baseUrl}/${mr.project.path}`,
    },
    object_attributes: { ...attributes, action, ...(oldrev ? { oldrev } : {}) },
    labels: [],
    changes: {},
  };
}
