/**
 * Routes for reviews: list, create (with inline comments, all validated before anything is
 * stored) and single review comments. GitHub rules kept: an omitted `event` leaves the review
 * PENDING (one per user and pull request, visible only to its author); APPROVE or REQUEST_CHANGES
 * on one's own pull request is refused; REQUEST_CHANGES needs a body, COMMENT needs a body or
 * comments; `commit_id` must name a commit; every comment must resolve in the diff at that commit.
 */
import { checkBody, storeReply } from './handlers-comments.js';
import { findPull } from './handlers-pulls.js';
import { paginate } from './pagination.js';
import { resolveCommentLocation, type CommentDraft, type ResolvedLocation } from './review-validation.js';
import {
  errorResult,
  notFound,
  unprocessable,
  type Route,
  type RouteContext,
  type RouteResult,
} from './route-types.js';
import { reviewCommentJson, reviewJson } from './shapes-pull.js';
import type { PullRecord, ReviewCommentRecord, ReviewState } from './state.js';

interface ReviewBody {
  commit_id?: string;
  body?: string;
  event?: 'APPROVE' | 'REQUEST_CHANGES' | 'COMMENT';
  comments?: Array<CommentDraft & { body: string }>;
}

const STATES: Record<string, ReviewState> = {
  APPROVE: 'APPROVED',
  REQUEST_CHANGES: 'CHANGES_REQUESTED',
  COMMENT: 'COMMENTED',
};

async function commitFor(
  ctx: RouteContext,
  pull: PullRecord,
  sha: string | undefined,
): Promise<string | RouteResult> {
  if (sha === undefined) return (await ctx.pullFacts(pull)).headSha;
  if (!/^[0-9a-f]{7,40}$/i.test(sha) || !(await ctx.hasCommit(pull, sha))) {
    return unprocessable(`No commit found for SHA: ${sha}`);
  }
  return sha;
}

function reviewRule(ctx: RouteContext, pull: PullRecord, req: ReviewBody): RouteResult | undefined {
  const own = ctx.identity.login.toLowerCase() === pull.user.toLowerCase();
  if (own && req.event === 'APPROVE') return unprocessable('Can not approve your own pull request');
  if (own && req.event === 'REQUEST_CHANGES')
    return unprocessable('Can not request changes on your own pull request');
  const blank = (req.body ?? '').trim() === '';
  if (blank && req.event === 'REQUEST_CHANGES') return unprocessable("Body can't be blank");
  if (blank && req.event === 'COMMENT' && (req.comments ?? []).length === 0)
    return unprocessable("Body can't be blank");
  const pending = ctx.state.reviews.some(
    (r) => r.pull === pull && r.state === 'PENDING' && r.user === ctx.identity.login,
  );
  if (pending && req.event === undefined)
    return unprocessable('User can only have one pending review per pull request');
  return checkBody(req.body, 'PullRequestReview', true);
}

function commentRecord(
  ctx: RouteContext,
  pull: PullRecord,
  reviewId: number,
  commitId: string,
  location: ResolvedLocation,
  body: string,
): ReviewCommentRecord {
  const now = ctx.state.now();
  return {
    id: ctx.state.nextId(),
    pull,
    reviewId,
    commitId,
    ...location,
    body,
    user: ctx.identity.login,
    createdAt: now,
    updatedAt: now,
  };
}

const createReview: Route = {
  auth: 'user',
  async handle(ctx) {
    const pull = findPull(ctx);
    if (!pull) return notFound();
    const req = (ctx.body ?? {}) as ReviewBody;
    const rule = reviewRule(ctx, pull, req);
    if (rule) return rule;
    const commitId = await commitFor(ctx, pull, req.commit_id);
    if (typeof commitId !== 'string') return commitId;
    const files = (await ctx.pullFacts(pull, commitId)).files;
    const errors: string[] = [];
    const resolved: Array<{ location: ResolvedLocation; body: string }> = [];
    for (const comment of req.comments ?? []) {
      const r = resolveCommentLocation(files, comment);
      if (r.ok) resolved.push({ location: r.location, body: comment.body });
      else errors.push(r.error);
    }
    if (errors.length > 0) return unprocessable(...errors);
    const state: ReviewState = req.event ? (STATES[req.event] ?? 'COMMENTED') : 'PENDING';
    const review = {
      id: ctx.state.nextId(),
      pull,
      body: req.body ?? '',
      state,
      user: ctx.identity.login,
      commitId,
      submittedAt: state === 'PENDING' ? null : ctx.state.now(),
    };
    ctx.state.reviews.push(review);
    for (const { location, body } of resolved) {
      ctx.state.reviewComments.push(commentRecord(ctx, pull, review.id, commitId, location, body));
    }
    return { status: 200, body: reviewJson(ctx.shape, review) };
  },
};

const listReviews: Route = {
  auth: 'user',
  handle(ctx) {
    const pull = findPull(ctx);
    if (!pull) return notFound();
    const visible = ctx.state.reviews.filter(
      (r) => r.pull === pull && (r.state !== 'PENDING' || r.user === ctx.identity.login),
    );
    const page = paginate(visible, ctx.url);
    return { status: 200, body: page.items.map((r) => reviewJson(ctx.shape, r)), headers: page.headers };
  },
};

const FIELD: Record<string, string> = {
  'Path could not be resolved': 'path',
  'Start line could not be resolved': 'start_line',
  'Start line must precede the end line': 'start_line',
  'Start line must be part of the same hunk as the line': 'start_line',
};

const createReviewComment: Route = {
  auth: 'user',
  async handle(ctx) {
    const pull = findPull(ctx);
    if (!pull) return notFound();
    const req = (ctx.body ?? {}) as CommentDraft & {
      body?: string;
      commit_id?: string;
      in_reply_to?: number;
    };
    const invalid = checkBody(req.body, 'PullRequestReviewComment');
    if (invalid) return invalid;
    if (req.in_reply_to !== undefined) {
      const target = ctx.state.reviewComments.find((c) => c.id === req.in_reply_to && c.pull === pull);
      if (!target) return notFound();
      return {
        status: 201,
        body: reviewCommentJson(ctx.shape, storeReply(ctx, pull, target, String(req.body))),
      };
    }
    const commitId = await commitFor(ctx, pull, req.commit_id);
    if (typeof commitId !== 'string') return commitId;
    const r = resolveCommentLocation((await ctx.pullFacts(pull, commitId)).files, req);
    if (!r.ok) {
      const field = `pull_request_review_thread.${FIELD[r.error] ?? 'line'}`;
      return errorResult(422, 'Validation Failed', [
        { resource: 'PullRequestReviewComment', code: 'custom', field, message: `${field} ${r.error}` },
      ]);
    }
    const reviewId = ctx.state.nextId();
    const review = {
      id: reviewId,
      pull,
      body: '',
      user: ctx.identity.login,
      commitId,
      submittedAt: ctx.state.now(),
    };
    ctx.state.reviews.push({ ...review, state: 'COMMENTED' });
    const record = commentRecord(ctx, pull, reviewId, commitId, r.location, String(req.body));
    ctx.state.reviewComments.push(record);
    return { status: 201, body: reviewCommentJson(ctx.shape, record) };
  },
};

/** Routes of this module by OpenAPI operation id. */
export const reviewRoutes: Record<string, Route> = {
  'pulls/create-review': createReview,
  'pulls/list-reviews': listReviews,
  'pulls/create-review-comment': createReviewComment,
};
