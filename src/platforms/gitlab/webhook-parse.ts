/**
 * GitLab webhook payload → ReviewComment (CONTRACT §6–§7). Pure: a function of the event name
 * (`X-Gitlab-Event`), the delivery id and the JSON-parsed body. What it does not handle comes back
 * as `{ kind: 'ignored', reason }`; it never throws.
 */
import type { EventType, ReviewComment, WebhookParseResult } from '../types.js';
import { MergeRequestEvent, NoteEvent } from './webhook-schema.js';
import { checkPayload, ignored } from '../webhook-parse-helpers.js';

function parseNote(body: Record<string, unknown>, deliveryId: string): WebhookParseResult {
  const checked = checkPayload(NoteEvent, 'Note Hook', body);
  if (!checked.ok) return checked.result;
  const { user, project, object_attributes: note, merge_request: mr } = checked.data;
  if (note.noteable_type !== 'MergeRequest')
    return ignored(`note on ${note.noteable_type}, not a merge request`);
  if (!mr) return ignored('malformed Note Hook payload: merge_request is missing');
  if (note.system) return ignored('system note');
  if (note.action && note.action !== 'create') return ignored(`note action "${note.action}" not handled`);
  const isDiffNote = note.type === 'DiffNote';
  const line = note.position?.new_line ?? note.position?.old_line ?? undefined;
  const path = note.position?.new_path ?? note.position?.old_path ?? undefined;
  const comment: ReviewComment = {
    platform: 'gitlab',
    repoFullName: project.path_with_namespace,
    prNumber: mr.iid,
    prBranch: mr.source_branch,
    baseBranch: mr.target_branch,
    headSha: mr.last_commit?.id ?? '',
    prTitle: mr.title ?? '',
    commentId: note.id,
    commentType: isDiffNote ? 'review_comment' : 'issue_comment',
    authorUsername: user.username,
    body: note.note ?? '',
    ...(isDiffNote && path ? { filePath: path } : {}),
    ...(isDiffNote && line !== undefined ? { line, side: note.position?.new_line ? 'RIGHT' : 'LEFT' } : {}),
    ...(note.discussion_id ? { discussionId: note.discussion_id } : {}),
    cloneUrl: mr.source?.git_http_url ?? project.git_http_url ?? '',
    deliveryId,
    eventType: 'comment',
  };
  return { kind: 'event', comment };
}

/** The lifecycle event of a `Merge Request Hook`, or why it is none. */
function lifecycleOf(data: MergeRequestEvent): EventType | string {
  const { action, oldrev } = data.object_attributes;
  if (action === 'open') return 'pr_opened';
  if (action === 'reopen') return 'pr_reopened';
  if (action === 'update') {
    if (oldrev) return 'pr_push';
    const draft = data.changes?.draft;
    if (draft?.previous === true && draft.current === false) return 'pr_ready_for_review';
    return 'update without new commits';
  }
  return `action "${action ?? '(none)'}" not handled`;
}

function parseMergeRequest(body: Record<string, unknown>, deliveryId: string): WebhookParseResult {
  const checked = checkPayload(MergeRequestEvent, 'Merge Request Hook', body);
  if (!checked.ok) return checked.result;
  const data = checked.data;
  const eventType = lifecycleOf(data);
  if (!eventType.startsWith('pr_')) return ignored(`Merge Request Hook ${eventType}`);
  const mr = data.object_attributes;
  return {
    kind: 'event',
    comment: {
      platform: 'gitlab',
      repoFullName: data.project.path_with_namespace,
      prNumber: mr.iid,
      prBranch: mr.source_branch,
      baseBranch: mr.target_branch,
      headSha: mr.last_commit?.id ?? '',
      prTitle: mr.title ?? '',
      commentId: '',
      commentType: 'lifecycle',
      authorUsername: data.user.username,
      body: '',
      cloneUrl: mr.source?.git_http_url ?? data.project.git_http_url ?? '',
      deliveryId,
      eventType: eventType as EventType,
    },
  };
}

/**
 * Parses one GitLab webhook delivery into a ReviewComment:
 * - `Note Hook` on a merge request (`noteable_type` `MergeRequest`), created (not edited), not a
 *   system note → a DiffNote becomes a `review_comment` with `filePath`/`line` from its position
 *   (`new_line` → side RIGHT, else `old_line` → LEFT: a removed line), any other note an `issue_comment`; both carry `discussionId`
 *   so a reply lands in the note's discussion;
 * - `Merge Request Hook` action `open` → `pr_opened`, `reopen` → `pr_reopened`, `update` with
 *   `oldrev` (new commits) → `pr_push`, `update` turning a draft ready → `pr_ready_for_review`.
 * `event` falls back to the body's `object_kind` when the header is missing. Everything else
 * (issues, pushes, pipelines, approvals, merges, closes, edits) is ignored with a reason.
 */
export function parseGitLabWebhook(
  event: string | undefined,
  deliveryId: string,
  body: Record<string, unknown>,
): WebhookParseResult {
  const kind = event ?? (typeof body.object_kind === 'string' ? body.object_kind : undefined);
  if (kind === 'Note Hook' || kind === 'note') return parseNote(body, deliveryId);
  if (kind === 'Merge Request Hook' || kind === 'merge_request') return parseMergeRequest(body, deliveryId);
  if (!kind) return ignored('missing X-Gitlab-Event header');
  return ignored(`event "${kind}" not handled`);
}
