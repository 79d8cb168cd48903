/**
 * The fake Gitea's commit operations, as Gitea 1.22 answers them:
 * - `repoCreateStatus` (`POST /repos/{owner}/{repo}/statuses/{sha}`, `routers/api/v1/repo/status.go`
 *   `NewCommitStatus`): only an account with write access to the code may post one
 *   (`reqRepoWriter(unit.TypeCode)`: 403 otherwise); the commit must exist (`GetCommit` fails: 500), `state` is a
 *   `CommitStatusState` (`pending`, `success`, `error`, `failure`, `warning`; the column is
 *   `VARCHAR(7)`, so anything else is a violation and 500 here); every status is kept (201);
 * - `repoGetPullRequestCommits` (`GET .../pulls/{index}/commits`): the commits from the merge base
 *   to head, newest first, paged with `page`/`limit` and `x-total-count`.
 */
import { gitOutput } from '../fake-github/diff.js';
import { pullShas, revParse } from './git.js';
import { errorBody, notFound, page, pullOf, repoOf, type Handler } from './handler-kit.js';
import { userJson } from './shapes.js';
import type { StoredStatus } from './types.js';

/** `CommitStatusState` values (`modules/structs/commit_status.go`). */
export const COMMIT_STATUS_STATES = ['pending', 'success', 'error', 'failure', 'warning'];

function text(body: unknown, key: string): string {
  const value = (body as Record<string, unknown> | undefined)?.[key];
  return typeof value === 'string' ? value : '';
}

/** Handlers of the commit operations. */
export const commitHandlers: Record<string, Handler> = {
  async repoCreateStatus(ctx) {
    const repo = repoOf(ctx);
    if (!repo) return notFound(ctx);
    if (!ctx.state.codeWrite) {
      return { status: 403, body: errorBody(ctx, 'user should have a permission to write to a repo') };
    }
    const sha = ctx.params.sha ?? '';
    const state = text(ctx.body, 'state');
    if (!COMMIT_STATUS_STATES.includes(state)) {
      ctx.violation(`repoCreateStatus: '${state}' is not a CommitStatusState`);
      return { status: 500, body: errorBody(ctx, `invalid commit status state: ${state}`) };
    }
    const full = /^[0-9a-f]{4,64}$/i.test(sha) ? await revParse(repo.bareRepoPath, sha) : undefined;
    if (!full) {
      return { status: 500, body: errorBody(ctx, `GetCommit[${sha}]: object does not exist [id: ${sha}]`) };
    }
    const stored: StoredStatus = {
      id: ctx.state.nextId('status'),
      repo: repo.fullName,
      sha: full,
      state,
      context: text(ctx.body, 'context'),
      description: text(ctx.body, 'description'),
      targetUrl: text(ctx.body, 'target_url'),
      creator: ctx.user.login,
      createdAt: ctx.state.now(),
    };
    ctx.state.statuses.push(stored);
    return {
      status: 201,
      body: {
        id: stored.id,
        status: stored.state,
        target_url: stored.targetUrl,
        description: stored.description,
        url: `${ctx.shape.baseUrl}/api/v1/repos/${repo.fullName}/statuses/${full}`,
        context: stored.context,
        creator: userJson(ctx.shape, ctx.user),
        created_at: stored.createdAt,
        updated_at: stored.createdAt,
      },
    };
  },

  async repoGetPullRequestCommits(ctx) {
    const pull = pullOf(ctx);
    if (!pull) return notFound(ctx);
    const { head, mergeBase } = await pullShas(pull);
    const repo = pull.repo.fullName;
    const lines = (
      await gitOutput(pull.repo.bareRepoPath, ['rev-list', '--parents', `${mergeBase}..${head}`])
    )
      .split('\n')
      .filter((l) => l !== '');
    const url = (sha: string) => `${ctx.shape.baseUrl}/api/v1/repos/${repo}/git/commits/${sha}`;
    const commits = lines.map((line) => {
      const [sha = '', ...parents] = line.split(' ');
      return {
        url: url(sha),
        sha,
        created: '2026-01-01T00:00:00Z',
        html_url: `${ctx.shape.baseUrl}/${repo}/commit/${sha}`,
        commit: { url: url(sha), message: '' },
        author: null,
        committer: null,
        parents: parents.map((p) => ({ url: url(p), sha: p, created: '2026-01-01T00:00:00Z' })),
        files: null,
        stats: null,
      };
    });
    return page(ctx, commits);
  },
};
