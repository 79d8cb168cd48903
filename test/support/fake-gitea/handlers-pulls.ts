/**
 * The fake Gitea's pull request, conversation and review operations, with Gitea's rules: a `COMMENT`
 * review needs a body or a comment (422), a review on a closed pull request is refused (422), an
 * unknown event leaves the review pending (`preparePullReviewType`), lists are paged with
 * `page`/`limit` (default 30, at most 50) and `x-total-count`. A code comment whose line is in no hunk of the diff is stored with an empty
 * hunk as Gitea does (`services/pull/review.go`), and reported as a violation: it shows in no diff.
 */
import { hunkAround, pullDiff, pullFiles, pullShas } from './git.js';
import { EVENTS, errorBody, notFound, page, pullOf, userBy, type Handler } from './handler-kit.js';
import { codeCommentJson, commentJson, pullJson, reviewJson, userJson } from './shapes.js';

/** Handlers of the pull request, conversation and review operations. */
export const pullHandlers: Record<string, Handler> = {
  async userGetCurrent(ctx) {
    return { status: 200, body: userJson(ctx.shape, ctx.user) };
  },

  async repoGetPullRequest(ctx) {
    const pull = pullOf(ctx);
    if (!pull) return notFound(ctx);
    const files = await pullFiles(pull);
    const counts = {
      additions: files.reduce((n, f) => n + f.additions, 0),
      deletions: files.reduce((n, f) => n + f.deletions, 0),
      changedFiles: files.length,
    };
    return { status: 200, body: pullJson(ctx.shape, pull, await pullShas(pull), counts) };
  },

  async repoGetPullRequestFiles(ctx) {
    const pull = pullOf(ctx);
    if (!pull) return notFound(ctx);
    const files = (await pullFiles(pull)).map((f) => ({
      filename: f.filename,
      ...(f.previousFilename ? { previous_filename: f.previousFilename } : {}),
      // services/convert ToChangedFile: a plain modification is "changed".
      status: f.status === 'removed' ? 'deleted' : f.status === 'modified' ? 'changed' : f.status,
      additions: f.additions,
      deletions: f.deletions,
      changes: f.additions + f.deletions,
      html_url: `${ctx.shape.baseUrl}/${pull.repo.fullName}/src/commit/${f.sha}/${f.filename}`,
      contents_url: '',
      raw_url: `${ctx.shape.baseUrl}/${pull.repo.fullName}/raw/commit/${f.sha}/${f.filename}`,
    }));
    return page(ctx, files);
  },

  async repoDownloadPullDiffOrPatch(ctx) {
    const pull = pullOf(ctx);
    if (!pull) return notFound(ctx);
    if (ctx.params.diffType !== 'diff') {
      ctx.violation(`the fake serves only .diff, not .${ctx.params.diffType ?? ''}`);
      return notFound(ctx);
    }
    return { status: 200, text: await pullDiff(pull) };
  },

  async issueGetComments(ctx) {
    const pull = pullOf(ctx);
    if (!pull) return notFound(ctx);
    const list = ctx.state.comments
      .filter((c) => c.repo === pull.repo.fullName && c.index === pull.index)
      .map((c) => commentJson(ctx.shape, pull, c, userBy(ctx, c.author)));
    return { status: 200, body: list };
  },

  async issueCreateComment(ctx) {
    const pull = pullOf(ctx);
    if (!pull) return notFound(ctx);
    const text = (ctx.body as { body?: unknown } | undefined)?.body;
    if (typeof text !== 'string' || text === '') {
      return { status: 422, body: errorBody(ctx, 'body is required') };
    }
    const stored = {
      id: ctx.state.nextCommentId(),
      repo: pull.repo.fullName,
      index: pull.index,
      author: ctx.user.login,
      body: text,
      createdAt: ctx.state.now(),
    };
    ctx.state.comments.push(stored);
    return { status: 201, body: commentJson(ctx.shape, pull, stored, ctx.user) };
  },

  async repoListPullReviews(ctx) {
    const pull = pullOf(ctx);
    if (!pull) return notFound(ctx);
    const reviews = ctx.state.reviews
      .filter((r) => r.repo === pull.repo.fullName && r.index === pull.index)
      // Another user's pending review is invisible.
      .filter((r) => r.state !== 'PENDING' || r.author.toLowerCase() === ctx.user.login.toLowerCase())
      .map((r) => {
        const count = ctx.state.codeComments.filter((c) => c.reviewId === r.id).length;
        return reviewJson(ctx.shape, pull, r, userBy(ctx, r.author), count);
      });
    return page(ctx, reviews);
  },

  async repoGetPullReviewComments(ctx) {
    const pull = pullOf(ctx);
    const review = ctx.state.reviews.find((r) => r.id === Number(ctx.params.id));
    if (!pull || !review || review.repo !== pull.repo.fullName || review.index !== pull.index)
      return notFound(ctx);
    const list = ctx.state.codeComments
      .filter((c) => c.reviewId === review.id)
      .map((c) =>
        codeCommentJson(
          ctx.shape,
          pull,
          c,
          userBy(ctx, c.author),
          c.resolver ? userBy(ctx, c.resolver) : undefined,
        ),
      );
    return { status: 200, body: list };
  },

  async repoCreatePullReview(ctx) {
    const pull = pullOf(ctx);
    if (!pull) return notFound(ctx);
    const opts = (ctx.body ?? {}) as {
      body?: string;
      event?: string;
      commit_id?: string;
      comments?: Array<{ path?: string; body?: string; new_position?: number; old_position?: number }>;
    };
    const comments = opts.comments ?? [];
    const hasBody = (opts.body ?? '').trim() !== '';
    const state = EVENTS[opts.event ?? ''] ?? 'PENDING';
    if (state === 'PENDING')
      ctx.violation(`review event ${JSON.stringify(opts.event)} leaves the review pending (invisible)`);
    if (state === 'COMMENT' && !hasBody && comments.length === 0) {
      return { status: 422, body: errorBody(ctx, `review event ${opts.event} requires a body or a comment`) };
    }
    if (state === 'REQUEST_CHANGES' && !hasBody) {
      return { status: 422, body: errorBody(ctx, `review event ${opts.event} requires a body`) };
    }
    if (pull.state !== 'open') {
      return { status: 422, body: errorBody(ctx, 'cannot submit review for a closed or merged PR') };
    }
    const shas = await pullShas(pull);
    const commitId = opts.commit_id || shas.head;
    const review = {
      id: ctx.state.nextId('review'),
      repo: pull.repo.fullName,
      index: pull.index,
      author: ctx.user.login,
      body: opts.body ?? '',
      state,
      commitId,
      submittedAt: ctx.state.now(),
    };
    for (const c of comments) {
      const line = (c.old_position ?? 0) > 0 ? -(c.old_position ?? 0) : (c.new_position ?? 0);
      const path = c.path ?? '';
      const diffHunk = line === 0 ? '' : await hunkAround(pull, path, line);
      if (line === 0) ctx.violation(`comment on ${path} has no line (new_position and old_position are 0)`);
      else if (diffHunk === '') {
        ctx.violation(
          `comment on ${path} line ${line} is off the diff: Gitea stores it with no hunk, shown in no diff`,
        );
      }
      ctx.state.codeComments.push({
        id: ctx.state.nextCommentId(),
        reviewId: review.id,
        repo: pull.repo.fullName,
        index: pull.index,
        author: ctx.user.login,
        body: c.body ?? '',
        path,
        line,
        commitId,
        diffHunk,
        resolver: null,
        createdAt: ctx.state.now(),
      });
    }
    ctx.state.reviews.push(review);
    return { status: 200, body: reviewJson(ctx.shape, pull, review, ctx.user, comments.length) };
  },
};
