/** JSON shapes of the fake Gitea's answers, after Gitea's `services/convert` (API v1). */
import type { PullRecord, RepoRecord, UserRecord } from './state.js';
import type { StoredCodeComment, StoredComment, StoredReview } from './types.js';

/** Where the fake runs, for URLs in answers. */
export interface ShapeContext {
  baseUrl: string;
}

/** `User`. */
export function userJson(ctx: ShapeContext, u: UserRecord): Record<string, unknown> {
  return {
    id: u.id,
    login: u.login,
    login_name: '',
    source_id: 0,
    full_name: '',
    email: `${u.login.toLowerCase()}@noreply.localhost`,
    avatar_url: `${ctx.baseUrl}/avatars/${u.id}`,
    html_url: `${ctx.baseUrl}/${u.login}`,
    language: '',
    is_admin: false,
    last_login: '2026-01-01T00:00:00Z',
    created: '2026-01-01T00:00:00Z',
    restricted: false,
    active: true,
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

/** `Repository` (the fields a pull request's branch info carries). */
export function repoJson(ctx: ShapeContext, r: RepoRecord): Record<string, unknown> {
  return {
    id: r.id,
    owner: userJson(ctx, r.owner),
    name: r.name,
    full_name: r.fullName,
    description: '',
    empty: false,
    private: false,
    fork: false,
    template: false,
    mirror: false,
    html_url: `${ctx.baseUrl}/${r.fullName}`,
    clone_url: `${ctx.baseUrl}/${r.fullName}.git`,
    ssh_url: `git@127.0.0.1:${r.fullName}.git`,
    default_branch: r.defaultBranch,
    archived: false,
  };
}

/** Web URL of a pull request. */
export function pullUrl(ctx: ShapeContext, p: PullRecord): string {
  return `${ctx.baseUrl}/${p.repo.fullName}/pulls/${p.index}`;
}

/** `PullRequest`, with the SHAs of now. */
export function pullJson(
  ctx: ShapeContext,
  p: PullRecord,
  shas: { head: string; base: string; mergeBase: string },
  counts: { additions: number; deletions: number; changedFiles: number },
): Record<string, unknown> {
  const branch = (ref: string, sha: string) => ({
    label: ref,
    ref,
    sha,
    repo_id: p.repo.id,
    repo: repoJson(ctx, p.repo),
  });
  const html = pullUrl(ctx, p);
  return {
    id: p.id,
    url: html,
    number: p.index,
    user: userJson(ctx, p.author),
    title: p.title,
    body: p.body,
    labels: [],
    milestone: null,
    assignee: null,
    assignees: null,
    requested_reviewers: null,
    state: p.state === 'open' ? 'open' : 'closed',
    draft: false,
    is_locked: false,
    comments: 0,
    review_comments: 0,
    additions: counts.additions,
    deletions: counts.deletions,
    changed_files: counts.changedFiles,
    html_url: html,
    diff_url: `${html}.diff`,
    patch_url: `${html}.patch`,
    mergeable: true,
    merged: p.state === 'merged',
    merged_at: null,
    merge_commit_sha: null,
    merged_by: null,
    allow_maintainer_edit: false,
    base: branch(p.baseBranch, shas.base),
    head: branch(p.headBranch, shas.head),
    merge_base: shas.mergeBase,
    due_date: null,
    created_at: p.createdAt,
    updated_at: p.createdAt,
    closed_at: null,
    pin_order: 0,
  };
}

/** `Comment`. */
export function commentJson(ctx: ShapeContext, p: PullRecord, c: StoredComment, author: UserRecord) {
  return {
    id: c.id,
    html_url: `${pullUrl(ctx, p)}#issuecomment-${c.id}`,
    pull_request_url: pullUrl(ctx, p),
    issue_url: '',
    user: userJson(ctx, author),
    original_author: '',
    original_author_id: 0,
    body: c.body,
    assets: [],
    created_at: c.createdAt,
    updated_at: c.createdAt,
  };
}

/** `PullReview`. */
export function reviewJson(
  ctx: ShapeContext,
  p: PullRecord,
  r: StoredReview,
  author: UserRecord,
  count: number,
) {
  return {
    id: r.id,
    user: userJson(ctx, author),
    team: null,
    state: r.state,
    body: r.body,
    commit_id: r.commitId,
    stale: false,
    official: false,
    dismissed: false,
    comments_count: count,
    submitted_at: r.submittedAt,
    updated_at: r.submittedAt,
    html_url: `${pullUrl(ctx, p)}#issuecomment-${r.id}`,
    pull_request_url: pullUrl(ctx, p),
  };
}

/** `PullReviewComment`: `position` = new line, `original_position` = old line (signed line split). */
export function codeCommentJson(
  ctx: ShapeContext,
  p: PullRecord,
  c: StoredCodeComment,
  author: UserRecord,
  resolver: UserRecord | undefined,
) {
  return {
    id: c.id,
    body: c.body,
    user: userJson(ctx, author),
    resolver: resolver ? userJson(ctx, resolver) : null,
    pull_request_review_id: c.reviewId,
    created_at: c.createdAt,
    updated_at: c.createdAt,
    path: c.path,
    commit_id: c.commitId,
    original_commit_id: c.commitId,
    diff_hunk: c.diffHunk,
    position: c.line > 0 ? c.line : 0,
    original_position: c.line < 0 ? -c.line : 0,
    html_url: `${pullUrl(ctx, p)}/files#issuecomment-${c.id}`,
    pull_request_url: pullUrl(ctx, p),
  };
}
