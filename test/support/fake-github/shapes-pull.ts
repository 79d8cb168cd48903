/**
 * GitHub's JSON shapes for pull requests, their files, comments, reviews and reactions (types from
 * `@octokit/rest`; checked against the OpenAPI description at run time as well).
 */
import type { RestEndpointMethodTypes } from '@octokit/rest';
import type { DiffFile } from './diff.js';
import { repoJson, userJson, type ShapeContext } from './shapes-core.js';
import type {
  IssueCommentRecord,
  PullRecord,
  ReactionRecord,
  ReviewCommentRecord,
  ReviewRecord,
} from './state.js';

/** A pull request (`GET /repos/{o}/{r}/pulls/{n}`). */
export type GitHubPullRequest = RestEndpointMethodTypes['pulls']['get']['response']['data'];
/** One file of a pull request (`GET .../pulls/{n}/files`). */
export type GitHubDiffEntry = RestEndpointMethodTypes['pulls']['listFiles']['response']['data'][number];
/** A review. */
export type GitHubReview = RestEndpointMethodTypes['pulls']['createReview']['response']['data'];
/** An inline review comment. */
export type GitHubReviewComment =
  RestEndpointMethodTypes['pulls']['createReplyForReviewComment']['response']['data'];
/** A conversation (issue) comment. */
export type GitHubIssueComment = RestEndpointMethodTypes['issues']['createComment']['response']['data'];
/** A reaction. */
export type GitHubReaction =
  RestEndpointMethodTypes['reactions']['createForIssueComment']['response']['data'];
type ReactionRollup = NonNullable<GitHubIssueComment['reactions']>;

/** Git facts of a pull request computed from its repository. */
export interface PullFacts {
  baseSha: string;
  headSha: string;
  files: DiffFile[];
  commits: number;
}

function repoApi(ctx: ShapeContext, pull: PullRecord): string {
  return `${ctx.baseUrl}/repos/${pull.repo.owner}/${pull.repo.name}`;
}

function pullHtml(ctx: ShapeContext, pull: PullRecord): string {
  return `${ctx.baseUrl}/${pull.repo.owner}/${pull.repo.name}/pull/${pull.number}`;
}

function nodeId(prefix: string, id: number): string {
  return `${prefix}_${Buffer.from(`${prefix}:${id}`).toString('base64url')}`;
}

function association(pull: PullRecord, login: string): 'OWNER' | 'NONE' {
  return login.toLowerCase() === pull.repo.owner.toLowerCase() ? 'OWNER' : 'NONE';
}

/** The pull request JSON; `facts` supplies SHAs and diff statistics. */
export function pullJson(ctx: ShapeContext, pull: PullRecord, facts: PullFacts): GitHubPullRequest {
  const api = repoApi(ctx, pull);
  const html = pullHtml(ctx, pull);
  const self = `${api}/pulls/${pull.number}`;
  const side = (ref: string, sha: string, repo = pull.repo) => ({
    label: `${repo.owner}:${ref}`,
    ref,
    sha,
    user: userJson(ctx, repo.owner),
    repo: repoJson(ctx, repo),
  });
  const st = ctx.state;
  return {
    url: self,
    id: pull.id,
    node_id: nodeId('PR', pull.id),
    html_url: html,
    diff_url: `${html}.diff`,
    patch_url: `${html}.patch`,
    issue_url: `${api}/issues/${pull.number}`,
    commits_url: `${self}/commits`,
    review_comments_url: `${self}/comments`,
    review_comment_url: `${api}/pulls/comments{/number}`,
    comments_url: `${api}/issues/${pull.number}/comments`,
    statuses_url: `${api}/statuses/${facts.headSha}`,
    number: pull.number,
    state: pull.state,
    locked: false,
    title: pull.title,
    user: userJson(ctx, pull.user),
    body: pull.body,
    labels: [],
    milestone: null,
    active_lock_reason: null,
    created_at: pull.createdAt,
    updated_at: pull.updatedAt,
    closed_at: pull.closedAt,
    merged_at: pull.merged ? pull.closedAt : null,
    merge_commit_sha: null,
    assignee: null,
    assignees: [],
    requested_reviewers: [],
    requested_teams: [],
    head: side(pull.head, facts.headSha, pull.headRepo),
    base: side(pull.base, facts.baseSha),
    _links: {
      self: { href: self },
      html: { href: html },
      issue: { href: `${api}/issues/${pull.number}` },
      comments: { href: `${api}/issues/${pull.number}/comments` },
      review_comments: { href: `${self}/comments` },
      review_comment: { href: `${api}/pulls/comments{/number}` },
      commits: { href: `${self}/commits` },
      statuses: { href: `${api}/statuses/${facts.headSha}` },
    },
    author_association: association(pull, pull.user),
    auto_merge: null,
    draft: pull.draft,
    merged: pull.merged,
    mergeable: pull.state === 'open' ? true : null,
    rebaseable: pull.state === 'open' ? true : null,
    mergeable_state: pull.state === 'open' ? 'clean' : 'unknown',
    merged_by: null,
    comments: st.issueComments.filter((c) => c.pull === pull).length,
    review_comments: st.reviewComments.filter((c) => c.pull === pull).length,
    maintainer_can_modify: false,
    commits: facts.commits,
    additions: facts.files.reduce((n, f) => n + f.additions, 0),
    deletions: facts.files.reduce((n, f) => n + f.deletions, 0),
    changed_files: facts.files.length,
  };
}

/** One `diff-entry`; URLs refer to `headSha`. */
export function diffEntryJson(
  ctx: ShapeContext,
  pull: PullRecord,
  headSha: string,
  file: DiffFile,
): GitHubDiffEntry {
  const path = file.filename.split('/').map(encodeURIComponent).join('/');
  const html = `${ctx.baseUrl}/${pull.repo.owner}/${pull.repo.name}`;
  const entry: GitHubDiffEntry = {
    sha: file.sha,
    filename: file.filename,
    status: file.status,
    additions: file.additions,
    deletions: file.deletions,
    changes: file.additions + file.deletions,
    blob_url: `${html}/blob/${headSha}/${path}`,
    raw_url: `${html}/raw/${headSha}/${path}`,
    contents_url: `${repoApi(ctx, pull)}/contents/${path}?ref=${headSha}`,
  };
  if (file.patch !== undefined) entry.patch = file.patch;
  if (file.previousFilename !== undefined) entry.previous_filename = file.previousFilename;
  return entry;
}

function rollup(
  ctx: ShapeContext,
  url: string,
  subject: ReactionRecord['subject'],
  id: number,
): ReactionRollup {
  const mine = ctx.state.reactions.filter((r) => r.subject === subject && r.commentId === id);
  const count = (content: ReactionRecord['content']) => mine.filter((r) => r.content === content).length;
  return {
    url: `${url}/reactions`,
    total_count: mine.length,
    '+1': count('+1'),
    '-1': count('-1'),
    laugh: count('laugh'),
    confused: count('confused'),
    heart: count('heart'),
    hooray: count('hooray'),
    eyes: count('eyes'),
    rocket: count('rocket'),
  };
}

/** An `issue-comment`. */
export function issueCommentJson(ctx: ShapeContext, c: IssueCommentRecord): GitHubIssueComment {
  const url = `${repoApi(ctx, c.pull)}/issues/comments/${c.id}`;
  return {
    id: c.id,
    node_id: nodeId('IC', c.id),
    url,
    html_url: `${pullHtml(ctx, c.pull)}#issuecomment-${c.id}`,
    body: c.body,
    user: userJson(ctx, c.user),
    created_at: c.createdAt,
    updated_at: c.updatedAt,
    issue_url: `${repoApi(ctx, c.pull)}/issues/${c.pull.number}`,
    author_association: association(c.pull, c.user),
    reactions: rollup(ctx, url, 'issue_comment', c.id),
  };
}

/** A `pull-request-review`. */
export function reviewJson(ctx: ShapeContext, r: ReviewRecord): GitHubReview {
  const html = `${pullHtml(ctx, r.pull)}#pullrequestreview-${r.id}`;
  const pullUrl = `${repoApi(ctx, r.pull)}/pulls/${r.pull.number}`;
  const review: GitHubReview = {
    id: r.id,
    node_id: nodeId('PRR', r.id),
    user: userJson(ctx, r.user),
    body: r.body,
    state: r.state,
    html_url: html,
    pull_request_url: pullUrl,
    _links: { html: { href: html }, pull_request: { href: pullUrl } },
    commit_id: r.commitId,
    author_association: association(r.pull, r.user),
  };
  if (r.submittedAt !== null) review.submitted_at = r.submittedAt;
  return review;
}

/** A `pull-request-review-comment`. */
export function reviewCommentJson(ctx: ShapeContext, c: ReviewCommentRecord): GitHubReviewComment {
  const url = `${repoApi(ctx, c.pull)}/pulls/comments/${c.id}`;
  const html = `${pullHtml(ctx, c.pull)}#discussion_r${c.id}`;
  const pullUrl = `${repoApi(ctx, c.pull)}/pulls/${c.pull.number}`;
  const comment: GitHubReviewComment = {
    url,
    pull_request_review_id: c.reviewId,
    id: c.id,
    node_id: nodeId('PRRC', c.id),
    diff_hunk: c.diffHunk,
    path: c.path,
    commit_id: c.commitId,
    original_commit_id: c.commitId,
    user: userJson(ctx, c.user),
    body: c.body,
    created_at: c.createdAt,
    updated_at: c.updatedAt,
    html_url: html,
    pull_request_url: pullUrl,
    author_association: association(c.pull, c.user),
    _links: { self: { href: url }, html: { href: html }, pull_request: { href: pullUrl } },
    start_line: c.startLine,
    original_start_line: c.startLine,
    start_side: c.startSide,
    side: c.side,
    subject_type: 'line',
    reactions: rollup(ctx, url, 'review_comment', c.id),
  };
  if (c.position !== null) {
    comment.position = c.position;
    comment.original_position = c.position;
  }
  if (c.line !== null) {
    comment.line = c.line;
    comment.original_line = c.line;
  }
  if (c.inReplyToId !== undefined) comment.in_reply_to_id = c.inReplyToId;
  return comment;
}

/** A `reaction`. */
export function reactionJson(ctx: ShapeContext, r: ReactionRecord): GitHubReaction {
  return {
    id: r.id,
    node_id: nodeId('REA', r.id),
    user: userJson(ctx, r.user),
    content: r.content,
    created_at: r.createdAt,
  };
}
