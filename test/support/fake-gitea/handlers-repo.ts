/**
 * The fake Gitea's repository-level operations: reactions (Gitea's default `[ui] REACTIONS` only,
 * 403 otherwise; 200 for a repeat, 201 for a new one; a comment's list, unpaged, 404 for a comment
 * of another repository), raw files at a ref, the compare API, and
 * resolving a conversation (Gitea 1.26+, served only when enabled: 404 otherwise, as older servers).
 */
import { gitOutput } from '../fake-github/diff.js';
import { compareCommits, fileAt, revParse } from './git.js';
import {
  errorBody,
  notFound,
  pullOf,
  REACTIONS,
  repoOf,
  type Answer,
  type Handler,
  type HandlerContext,
} from './handler-kit.js';
import { userJson } from './shapes.js';

/** Handlers of the repository-level operations. */
export const repoHandlers: Record<string, Handler> = {
  async issuePostCommentReaction(ctx) {
    const repo = repoOf(ctx);
    const id = Number(ctx.params.id);
    const onComment =
      ctx.state.comments.some((c) => c.id === id && c.repo === repo?.fullName) ||
      ctx.state.codeComments.some((c) => c.id === id && c.repo === repo?.fullName);
    if (!repo || !onComment) return notFound(ctx);
    return react(ctx, { repo: repo.fullName, commentId: id });
  },

  async issueGetCommentReactions(ctx) {
    const repo = repoOf(ctx);
    const id = Number(ctx.params.id);
    const onComment =
      ctx.state.comments.some((c) => c.id === id && c.repo === repo?.fullName) ||
      ctx.state.codeComments.some((c) => c.id === id && c.repo === repo?.fullName);
    if (!repo || !onComment) return notFound(ctx);
    const reactions = ctx.state.reactions.filter((r) => r.repo === repo.fullName && r.commentId === id);
    return {
      status: 200,
      body: reactions.map((r) => ({
        user: userJson(ctx.shape, ctx.state.user(r.user)),
        content: r.content,
        created_at: '2026-01-01T00:00:00Z',
      })),
    };
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

  async repoGetSingleCommit(ctx) {
    const repo = repoOf(ctx);
    const sha = repo ? await revParse(repo.bareRepoPath, ctx.params.sha ?? '') : undefined;
    if (!repo || !sha) return notFound(ctx);
    const url = `${ctx.shape.baseUrl}/api/v1/repos/${repo.fullName}/git/commits/${sha}`;
    const parents = (await gitOutput(repo.bareRepoPath, ['rev-list', '--parents', '-n', '1', sha]))
      .trim()
      .split(' ')
      .slice(1);
    return {
      status: 200,
      body: {
        url,
        sha,
        created: '2026-01-01T00:00:00Z',
        html_url: `${ctx.shape.baseUrl}/${repo.fullName}/commit/${sha}`,
        commit: { url, message: '' },
        author: null,
        committer: null,
        parents: parents.map((p) => ({
          url: `${ctx.shape.baseUrl}/api/v1/repos/${repo.fullName}/git/commits/${p}`,
          sha: p,
          created: '2026-01-01T00:00:00Z',
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
