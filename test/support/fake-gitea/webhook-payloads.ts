/**
 * Webhook bodies as Gitea (1.22, whose swagger the fake vendors) and Forgejo (≥ 7) send them, built field by field from Gitea's
 * `modules/structs` (`hook.go` `IssueCommentPayload`, `PullRequestPayload`, `ReviewPayload`;
 * `issue.go` `Issue`/`PullRequestMeta`; `issue_comment.go` `Comment`; `pull.go` `PullRequest`/
 * `PRBranchInfo`; `repo.go` `Repository`; `user.go` `User`) and the notifier that fills them
 * (`services/webhook/notifier.go`), with the event headers each delivery carries
 * (`modules/webhook/type.go` `HookEventType` and its `Event()`). Values are plain parameters so a
 * test can describe the same repository and pull request as the fake Gitea's records.
 */

/** Where the hook comes from and who acts. */
export interface GiteaHookContext {
  /** Instance root URL, e.g. `http://127.0.0.1:3000` (`setting.AppURL` without the slash). */
  baseUrl: string;
  owner: string;
  repo: string;
  /** Repository id (default 1). */
  repoId?: number;
  /** Who acted (`sender`). */
  sender: string;
}

/** The pull request a hook is about. */
export interface GiteaHookPullRequest {
  number: number;
  title?: string;
  body?: string;
  /** Author of the pull request (default: the context's sender). */
  author?: string;
  headBranch: string;
  headSha: string;
  baseBranch: string;
  baseSha: string;
  /** Head repository `owner/name` when it is a fork; `null` when the fork was deleted. */
  headRepo?: string | null;
  draft?: boolean;
}

/** The event headers of a delivery (`X-Gitea-Event`, `X-Gitea-Event-Type`). */
export interface GiteaEventNames {
  event: string;
  eventType: string;
}

/** A body and its event headers. */
export interface GiteaHook {
  names: GiteaEventNames;
  payload: Record<string, unknown>;
}

const CREATED = '2026-01-05T10:00:00Z';

/** A stable small id from a name (users, repositories). */
function idOf(name: string): number {
  let hash = 7;
  for (const char of name) hash = (hash * 31 + char.charCodeAt(0)) % 100_000;
  return hash + 1;
}

/** `structs.User` as `convert.ToUser` fills it for a webhook (no e-mail of others: the placeholder). */
export function giteaUser(baseUrl: string, login: string): Record<string, unknown> {
  return {
    id: idOf(login),
    login,
    login_name: '',
    source_id: 0,
    full_name: '',
    email: `${login.toLowerCase()}@noreply.localhost`,
    avatar_url: `${baseUrl}/avatars/${idOf(login).toString(16)}`,
    html_url: `${baseUrl}/${login}`,
    language: '',
    is_admin: false,
    last_login: '0001-01-01T00:00:00Z',
    created: CREATED,
    restricted: false,
    active: false,
    prohibit_login: false,
    location: '',
    website: '',
    description: '',
    visibility: 'public',
    followers_count: 0,
    following_count: 0,
    starred_repos_count: 0,
  };
}

/** `structs.Repository` (`convert.ToRepo`). */
export function giteaRepository(
  baseUrl: string,
  fullName: string,
  id = idOf(fullName),
): Record<string, unknown> {
  const [owner = '', name = ''] = fullName.split('/');
  return {
    id,
    owner: giteaUser(baseUrl, owner),
    name,
    full_name: fullName,
    description: '',
    empty: false,
    private: false,
    fork: false,
    template: false,
    parent: null,
    mirror: false,
    size: 120,
    language: '',
    languages_url: `${baseUrl}/api/v1/repos/${fullName}/languages`,
    html_url: `${baseUrl}/${fullName}`,
    url: `${baseUrl}/api/v1/repos/${fullName}`,
    link: '',
    ssh_url: `git@${new URL(baseUrl).hostname}:${fullName}.git`,
    clone_url: `${baseUrl}/${fullName}.git`,
    original_url: '',
    website: '',
    stars_count: 0,
    forks_count: 0,
    watchers_count: 1,
    open_issues_count: 0,
    open_pr_counter: 1,
    release_counter: 0,
    default_branch: 'main',
    archived: false,
    created_at: CREATED,
    updated_at: CREATED,
    archived_at: '1970-01-01T00:00:00Z',
    permissions: { admin: false, push: false, pull: true },
    has_issues: true,
    internal_tracker: {
      enable_time_tracker: true,
      allow_only_contributors_to_track_time: true,
      enable_issue_dependencies: true,
    },
    has_wiki: true,
    has_pull_requests: true,
    has_projects: true,
    has_releases: true,
    has_packages: true,
    has_actions: true,
    ignore_whitespace_conflicts: false,
    allow_merge_commits: true,
    allow_rebase: true,
    allow_rebase_explicit: true,
    allow_squash_merge: true,
    allow_fast_forward_only_merge: true,
    allow_rebase_update: true,
    default_delete_branch_after_merge: false,
    default_merge_style: 'merge',
    default_allow_maintainer_edit: false,
    avatar_url: '',
    internal: false,
    mirror_interval: '',
    object_format_name: 'sha1',
    mirror_updated: '0001-01-01T00:00:00Z',
    repo_transfer: null,
    projects_mode: 'all',
  };
}

/** `structs.PullRequest` (`convert.ToAPIPullRequest`). */
export function giteaPullRequest(ctx: GiteaHookContext, pr: GiteaHookPullRequest): Record<string, unknown> {
  const full = `${ctx.owner}/${ctx.repo}`;
  const repoId = ctx.repoId ?? 1;
  const base = giteaRepository(ctx.baseUrl, full, repoId);
  const headFull = pr.headRepo === undefined ? full : pr.headRepo;
  const head = headFull === null ? null : headFull === full ? base : giteaRepository(ctx.baseUrl, headFull);
  const html = `${ctx.baseUrl}/${full}/pulls/${pr.number}`;
  const author = pr.author ?? ctx.sender;
  return {
    id: pr.number + 1000,
    url: html,
    number: pr.number,
    user: giteaUser(ctx.baseUrl, author),
    title: pr.title ?? 'Add the parser',
    body: pr.body ?? '',
    labels: [],
    milestone: null,
    assignee: null,
    assignees: null,
    requested_reviewers: null,
    state: 'open',
    draft: pr.draft ?? false,
    is_locked: false,
    comments: 0,
    review_comments: 0,
    additions: 12,
    deletions: 3,
    changed_files: 2,
    html_url: html,
    diff_url: `${html}.diff`,
    patch_url: `${html}.patch`,
    mergeable: true,
    merged: false,
    merged_at: null,
    merge_commit_sha: null,
    merged_by: null,
    allow_maintainer_edit: false,
    base: { label: pr.baseBranch, ref: pr.baseBranch, sha: pr.baseSha, repo_id: repoId, repo: base },
    head: {
      label: pr.headBranch,
      ref: pr.headBranch,
      sha: pr.headSha,
      repo_id: head === null ? 0 : (head.id as number),
      repo: head,
    },
    merge_base: pr.baseSha,
    due_date: null,
    created_at: CREATED,
    updated_at: CREATED,
    closed_at: null,
    pin_order: 0,
  };
}

/** `structs.Issue` of a pull request (`convert.ToAPIIssue`: `pull_request` is `PullRequestMeta`). */
function giteaIssue(ctx: GiteaHookContext, number: number, title: string, isPull: boolean) {
  const full = `${ctx.owner}/${ctx.repo}`;
  const html = `${ctx.baseUrl}/${full}/${isPull ? 'pulls' : 'issues'}/${number}`;
  return {
    id: number + 2000,
    url: `${ctx.baseUrl}/api/v1/repos/${full}/issues/${number}`,
    html_url: html,
    number,
    user: giteaUser(ctx.baseUrl, ctx.sender),
    original_author: '',
    original_author_id: 0,
    title,
    body: '',
    ref: '',
    assets: [],
    labels: [],
    milestone: null,
    assignee: null,
    assignees: null,
    state: 'open',
    is_locked: false,
    comments: 1,
    created_at: CREATED,
    updated_at: CREATED,
    closed_at: null,
    due_date: null,
    pull_request: isPull ? { merged: false, merged_at: null, draft: false, html_url: html } : null,
    repository: { id: ctx.repoId ?? 1, name: ctx.repo, owner: ctx.owner, full_name: full },
    pin_order: 0,
  };
}

/** A new comment. */
export interface GiteaHookComment {
  id: number;
  body: string;
  /** Author (default: the context's sender). */
  author?: string;
}

/**
 * A comment created on a pull request's conversation (or a reply in a code conversation, which
 * Gitea delivers the same way, `CreateCodeComment` notifying `CreateIssueComment`): event
 * `issue_comment`, type `pull_request_comment`. `withPullRequest:
 * false` leaves out `pull_request`, as releases before its addition do.
 */
export function pullRequestCommentHook(
  ctx: GiteaHookContext,
  pr: GiteaHookPullRequest,
  comment: GiteaHookComment,
  options: { withPullRequest?: boolean } = {},
): GiteaHook {
  const full = `${ctx.owner}/${ctx.repo}`;
  const author = comment.author ?? ctx.sender;
  const payload: Record<string, unknown> = {
    action: 'created',
    issue: giteaIssue(ctx, pr.number, pr.title ?? 'Add the parser', true),
    comment: {
      id: comment.id,
      html_url: `${ctx.baseUrl}/${full}/pulls/${pr.number}#issuecomment-${comment.id}`,
      pull_request_url: `${ctx.baseUrl}/${full}/pulls/${pr.number}`,
      issue_url: '',
      user: giteaUser(ctx.baseUrl, author),
      original_author: '',
      original_author_id: 0,
      body: comment.body,
      assets: [],
      created_at: CREATED,
      updated_at: CREATED,
    },
    repository: giteaRepository(ctx.baseUrl, full, ctx.repoId ?? 1),
    sender: giteaUser(ctx.baseUrl, author),
    is_pull: true,
  };
  if (options.withPullRequest !== false) payload.pull_request = giteaPullRequest(ctx, pr);
  return { names: { event: 'issue_comment', eventType: 'pull_request_comment' }, payload };
}

/** A comment on a plain issue: event `issue_comment`, type `issue_comment`. */
export function issueCommentHook(
  ctx: GiteaHookContext,
  number: number,
  comment: GiteaHookComment,
): GiteaHook {
  const hook = pullRequestCommentHook(
    ctx,
    { number, headBranch: 'x', headSha: '0'.repeat(40), baseBranch: 'main', baseSha: '0'.repeat(40) },
    comment,
    { withPullRequest: false },
  );
  hook.payload.issue = giteaIssue(ctx, number, 'A bug', false);
  hook.payload.is_pull = false;
  return { names: { event: 'issue_comment', eventType: 'issue_comment' }, payload: hook.payload };
}

/** `pull_request` actions (`HookIssueAction`) and their event types. */
export type GiteaPullRequestAction = 'opened' | 'reopened' | 'synchronized' | 'closed' | 'edited';

/** A pull request event: `opened`, `reopened`, `closed`, `edited` (type `pull_request`), `synchronized` (type `pull_request_sync`). */
export function pullRequestHook(
  ctx: GiteaHookContext,
  pr: GiteaHookPullRequest,
  action: GiteaPullRequestAction,
): GiteaHook {
  const payload = {
    action,
    number: pr.number,
    pull_request: giteaPullRequest(ctx, pr),
    requested_reviewer: null,
    repository: giteaRepository(ctx.baseUrl, `${ctx.owner}/${ctx.repo}`, ctx.repoId ?? 1),
    sender: giteaUser(ctx.baseUrl, ctx.sender),
    commit_id: '',
    review: null,
  };
  const eventType = action === 'synchronized' ? 'pull_request_sync' : 'pull_request';
  return { names: { event: 'pull_request', eventType }, payload };
}

/** A submitted review's kind (`ReviewTypeComment`, `ReviewTypeApprove`, `ReviewTypeReject`). */
export type GiteaReviewKind = 'comment' | 'approved' | 'rejected';

/**
 * A submitted review (`notifier.PullRequestReview`): action `reviewed`, `review` = {type, content};
 * event `pull_request_comment` / `pull_request_approved` / `pull_request_rejected`, type
 * `pull_request_review_comment` / `_approved` / `_rejected`; the sender is the reviewer.
 */
export function reviewHook(
  ctx: GiteaHookContext,
  pr: GiteaHookPullRequest,
  content: string,
  kind: GiteaReviewKind = 'comment',
): GiteaHook {
  const eventType = `pull_request_review_${kind}`;
  const event = kind === 'comment' ? 'pull_request_comment' : `pull_request_${kind}`;
  const payload = {
    ...pullRequestHook(ctx, pr, 'opened').payload,
    action: 'reviewed',
    requested_reviewer: giteaUser(ctx.baseUrl, ctx.sender),
    review: { type: eventType, content },
  };
  return { names: { event, eventType }, payload };
}
