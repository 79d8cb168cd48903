/**
 * Routes for conversation comments, inline-comment threads and reactions. GitHub rules kept: a
 * blank body or one over 65536 characters is 422 `Validation Failed`; a reply joins the thread of
 * the top-level comment and creates a review of its own (state COMMENTED, empty body); posting a
 * reaction that exists already answers 200 with it instead of 201.
 */
import { findPull } from './handlers-pulls.js';
import { paginate } from './pagination.js';
import { errorResult, notFound, type Route, type RouteContext, type RouteResult } from './route-types.js';
import { issueCommentJson, reactionJson, reviewCommentJson } from './shapes-pull.js';
import type { PullRecord, ReactionContent, ReactionRecord, ReviewCommentRecord } from './state.js';

/** GitHub's limit on comment and review bodies, in characters. */
export const MAX_BODY_CHARS = 65_536;

/** 422 when `body` is blank or too long for `resource`; undefined when it is fine. */
export function checkBody(body: unknown, resource: string, allowBlank = false): RouteResult | undefined {
  const text = typeof body === 'string' ? body : '';
  if (!allowBlank && text.trim() === '') {
    return errorResult(422, 'Validation Failed', [{ resource, code: 'missing_field', field: 'body' }]);
  }
  if (text.length > MAX_BODY_CHARS) {
    const message = `body is too long (maximum is ${MAX_BODY_CHARS} characters)`;
    return errorResult(422, 'Validation Failed', [{ resource, code: 'custom', field: 'body', message }]);
  }
  return undefined;
}

function bodyField(ctx: RouteContext, name: string): unknown {
  return (ctx.body as Record<string, unknown> | undefined)?.[name];
}

function inRepo(ctx: RouteContext, pull: PullRecord): boolean {
  return (
    `${pull.repo.owner}/${pull.repo.name}`.toLowerCase() ===
    `${ctx.params.owner}/${ctx.params.repo}`.toLowerCase()
  );
}

const listIssueComments: Route = {
  auth: 'user',
  handle(ctx) {
    const pull = findPull(ctx);
    if (!pull) return notFound();
    const since = ctx.url.searchParams.get('since');
    const all = ctx.state.issueComments.filter((c) => c.pull === pull && (!since || c.updatedAt >= since));
    const page = paginate(all, ctx.url);
    return {
      status: 200,
      body: page.items.map((c) => issueCommentJson(ctx.shape, c)),
      headers: page.headers,
    };
  },
};

const createIssueComment: Route = {
  auth: 'user',
  handle(ctx) {
    const pull = findPull(ctx);
    if (!pull) return notFound();
    const body = bodyField(ctx, 'body');
    const invalid = checkBody(body, 'IssueComment');
    if (invalid) return invalid;
    const now = ctx.state.now();
    const record = {
      id: ctx.state.nextId(),
      pull,
      body: String(body),
      user: ctx.identity.login,
      createdAt: now,
      updatedAt: now,
    };
    ctx.state.issueComments.push(record);
    return { status: 201, body: issueCommentJson(ctx.shape, record) };
  },
};

const getIssueComment: Route = {
  auth: 'user',
  handle(ctx) {
    const c = ctx.state.issueComments.find(
      (x) => x.id === Number(ctx.params.comment_id) && inRepo(ctx, x.pull),
    );
    return c ? { status: 200, body: issueCommentJson(ctx.shape, c) } : notFound();
  },
};

const listReviewComments: Route = {
  auth: 'user',
  handle(ctx) {
    const pull = findPull(ctx);
    if (!pull) return notFound();
    const page = paginate(
      ctx.state.reviewComments.filter((c) => c.pull === pull),
      ctx.url,
    );
    return {
      status: 200,
      body: page.items.map((c) => reviewCommentJson(ctx.shape, c)),
      headers: page.headers,
    };
  },
};

const getReviewComment: Route = {
  auth: 'user',
  handle(ctx) {
    const c = ctx.state.reviewComments.find(
      (x) => x.id === Number(ctx.params.comment_id) && inRepo(ctx, x.pull),
    );
    return c ? { status: 200, body: reviewCommentJson(ctx.shape, c) } : notFound();
  },
};

/** Stores a reply in the thread of `target` (plus its own COMMENTED review) and returns it. */
export function storeReply(
  ctx: RouteContext,
  pull: PullRecord,
  target: ReviewCommentRecord,
  body: string,
): ReviewCommentRecord {
  const { state } = ctx;
  const now = state.now();
  const user = ctx.identity.login;
  const reviewId = state.nextId();
  state.reviews.push({
    id: reviewId,
    pull,
    body: '',
    state: 'COMMENTED',
    user,
    commitId: target.commitId,
    submittedAt: now,
  });
  const reply = { ...target, id: state.nextId(), reviewId, body, user, createdAt: now, updatedAt: now };
  reply.inReplyToId = target.inReplyToId ?? target.id;
  state.reviewComments.push(reply);
  return reply;
}

const createReply: Route = {
  auth: 'user',
  handle(ctx) {
    const pull = findPull(ctx);
    const target = ctx.state.reviewComments.find(
      (c) => c.id === Number(ctx.params.comment_id) && c.pull === pull,
    );
    if (!pull || !target) return notFound();
    const body = bodyField(ctx, 'body');
    const invalid = checkBody(body, 'PullRequestReviewComment');
    if (invalid) return invalid;
    return { status: 201, body: reviewCommentJson(ctx.shape, storeReply(ctx, pull, target, String(body))) };
  },
};

function reactionRoute(subject: ReactionRecord['subject']): Route {
  return {
    auth: 'user',
    handle(ctx) {
      const id = Number(ctx.params.comment_id);
      const list = subject === 'issue_comment' ? ctx.state.issueComments : ctx.state.reviewComments;
      if (!list.some((c) => c.id === id && inRepo(ctx, c.pull))) return notFound();
      const content = bodyField(ctx, 'content') as ReactionContent;
      const user = ctx.identity.login;
      const existing = ctx.state.reactions.find(
        (r) => r.subject === subject && r.commentId === id && r.content === content && r.user === user,
      );
      if (existing) return { status: 200, body: reactionJson(ctx.shape, existing) };
      const record = {
        id: ctx.state.nextId(),
        subject,
        commentId: id,
        content,
        user,
        createdAt: ctx.state.now(),
      };
      ctx.state.reactions.push(record);
      return { status: 201, body: reactionJson(ctx.shape, record) };
    },
  };
}

function listReactionsRoute(subject: ReactionRecord['subject']): Route {
  return {
    auth: 'user',
    handle(ctx) {
      const id = Number(ctx.params.comment_id);
      const list = subject === 'issue_comment' ? ctx.state.issueComments : ctx.state.reviewComments;
      if (!list.some((c) => c.id === id && inRepo(ctx, c.pull))) return notFound();
      const all = ctx.state.reactions.filter((r) => r.subject === subject && r.commentId === id);
      const page = paginate(all, ctx.url);
      return { status: 200, body: page.items.map((r) => reactionJson(ctx.shape, r)), headers: page.headers };
    },
  };
}

/** Routes of this module by OpenAPI operation id. */
export const commentRoutes: Record<string, Route> = {
  'issues/list-comments': listIssueComments,
  'issues/create-comment': createIssueComment,
  'issues/get-comment': getIssueComment,
  'pulls/list-review-comments': listReviewComments,
  'pulls/get-review-comment': getReviewComment,
  'pulls/create-reply-for-review-comment': createReply,
  'reactions/create-for-issue-comment': reactionRoute('issue_comment'),
  'reactions/create-for-pull-request-review-comment': reactionRoute('review_comment'),
  'reactions/list-for-issue-comment': listReactionsRoute('issue_comment'),
  'reactions/list-for-pull-request-review-comment': listReactionsRoute('review_comment'),
};
