/**
 * The fake Gitea's operations, keyed by swagger `operationId`, with Gitea's rules: a `COMMENT`
 * review needs a body or a comment (422), a review on a closed pull request is refused (422), an
 * unknown event leaves the review pending (`preparePullReviewType`), reactions outside Gitea's
 * default `ui.REACTIONS` are refused (403), lists are paged with `page`/`limit` (default 30, at most
 * 50) and `x-total-count`. A code comment whose line is in no hunk of the diff is stored with an empty
 * hunk as Gitea does (`services/pull/review.go`), and reported as a violation: it shows in no diff.
 */
import { compareCommits, fileAt, hunkAround, pullDiff, pullFiles, pullShas } from './git.js';
import { codeCommentJson, commentJson, pullJson, reviewJson, userJson, type ShapeContext } from './shapes.js';
import type { FakeState, PullRecord, RepoRecord, UserRecord } from './state.js';
import type { Violation } from './types.js';

/** What a handler answers. */
export interface Answer {
  status: number;
  body?: unknown;
  text?: string;
  headers?: Record<string, string>;
}

/** What a handler gets. */
export interface HandlerContext {
  state: FakeState;
  shape: ShapeContext;
  params: Record<string, string>;
  url: URL;
  body: unknown;
  user: UserRecord;
  violation(message: string): void;
}

type Handler = (ctx: HandlerContext) => Promise<Answer>;

/** Gitea's default `[ui] REACTIONS`. */
const REACTIONS = ['+1', '-1', 'laugh', 'hooray', 'confused', 'heart', 'rocket', 'eyes'];
const EVENTS: Record<string, string> = {
  APPROVED: 'APPROVED',
  REQUEST_CHANGES: 'REQUEST_CHANGES',
  COMMENT: 'COMMENT',
};

/** Gitea's error body. */
export function errorBody(ctx: { url: URL }, message: string): Record<string, unknown> {
  return { message, url: `${ctx.url.origin}/api/swagger` };
}

const notFound = (ctx: HandlerContext): Answer => ({
  status: 404,
  body: errorBody(ctx, "The target couldn't be found."),
});

function repoOf(ctx: HandlerContext): RepoRecord | undefined {
  return ctx.state.findRepo(ctx.params.owner ?? '', ctx.params.repo ?? '');
}

function pullOf(ctx: HandlerContext): PullRecord | undefined {
  const repo = repoOf(ctx);
  return repo ? ctx.state.findPull(repo, Number(ctx.params.index)) : undefined;
}

function page<T>(ctx: HandlerContext, all: T[]): Answer & { body: T[] } {
  const limitRaw = Number(ctx.url.searchParams.get('limit') ?? '30');
  const limit = Math.min(limitRaw > 0 ? limitRaw : 30, 50);
  const pageRaw = Number(ctx.url.searchParams.get('page') ?? '1');
  const n = pageRaw > 0 ? pageRaw : 1;
  return {
    status: 200,
    body: all.slice((n - 1) * limit, n * limit),
    headers: { 'x-total-count': String(all.length) },
  };
}

function userBy(ctx: HandlerContext, login: string): UserRecord {
  return ctx.state.user(login);
}

const handlers: Record<string, Handler> = {
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

  async issuePostCommentReaction(ctx) {
    const repo = repoOf(ctx);
    const id = Number(ctx.params.id);
    const onComment =
      ctx.state.comments.some((c) => c.id === id && c.repo === repo?.fullName) ||
      ctx.state.codeComments.some((c) => c.id === id && c.repo === repo?.fullName);
    if (!repo || !onComment) return notFound(ctx);
    return react(ctx, { repo: repo.fullName, commentId: id });
  },

  async issuePostIssueReaction(ctx) {
    const pull = pullOf(ctx);
    if (!pull) return notFound(ctx);
    return react(ctx, { repo: pull.repo.fullName, index: pull.index });
  },

  async repoGetRawFile(ctx) {
    const repo = repoOf(ctx);
    if (!repo) return notFound(ctx);
    const ref = ctx.url.searchParams.get('ref') || repo.defaultBranch;
    const content = await fileAt(repo.bareRepoPath, ref, ctx.params.filepath ?? '');
    if (content === undefined) return notFound(ctx);
    return {
      status: 200,
      text: content.toString('utf8'),
      headers: { 'content-type': 'text/plain; charset=utf-8' },
    };
  },

  async repoCompareDiff(ctx) {
    const repo = repoOf(ctx);
    const [base = '', head = ''] = (ctx.params.basehead ?? '').split('...');
    if (!repo || !base || !head) return notFound(ctx);
    const commits = await compareCommits(repo.bareRepoPath, base, head);
    if (!commits) return notFound(ctx);
    const url = (sha: string) => `${ctx.shape.baseUrl}/api/v1/repos/${repo.fullName}/git/commits/${sha}`;
    return {
      status: 200,
      body: {
        total_commits: commits.length,
        commits: commits.map((c) => ({
          url: url(c.sha),
          sha: c.sha,
          created: '2026-01-01T00:00:00Z',
          html_url: `${ctx.shape.baseUrl}/${repo.fullName}/commit/${c.sha}`,
          commit: { url: url(c.sha), message: '' },
          author: null,
          committer: null,
          parents: c.parents.map((sha) => ({ url: url(sha), sha, created: '2026-01-01T00:00:00Z' })),
          files: c.files,
          stats: null,
        })),
      },
    };
  },

  async repoResolvePullReviewComment(ctx) {
    const pull = pullOf(ctx);
    if (!ctx.state.resolveEndpoint) return { status: 404, body: errorBody(ctx, 'not found') };
    const comment = ctx.state.codeComments.find(
      (c) => c.id === Number(ctx.params.id) && c.repo === pull?.repo.fullName && c.index === pull.index,
    );
    if (!pull || !comment) return notFound(ctx);
    comment.resolver = ctx.user.login;
    return { status: 204 };
  },
};

async function react(
  ctx: HandlerContext,
  target: { repo: string; index?: number; commentId?: number },
): Promise<Answer> {
  const content = (ctx.body as { content?: unknown } | undefined)?.content;
  if (typeof content !== 'string' || !REACTIONS.includes(content)) {
    return { status: 403, body: errorBody(ctx, `'${String(content)}' is not an allowed reaction`) };
  }
  const same = ctx.state.reactions.find(
    (r) =>
      r.repo === target.repo &&
      r.index === target.index &&
      r.commentId === target.commentId &&
      r.user === ctx.user.login &&
      r.content === content,
  );
  const body = { user: userJson(ctx.shape, ctx.user), content, created_at: ctx.state.now() };
  if (same) return { status: 200, body };
  ctx.state.reactions.push({ ...target, user: ctx.user.login, content });
  return { status: 201, body };
}

/** The handler of `operationId`, if the fake implements it. */
export function handlerFor(operationId: string): Handler | undefined {
  return handlers[operationId];
}

export type { Violation };
