/**
 * The thin typed Gitea API v1 client (see the README, "Gitea and Forgejo", for why not `gitea-js`):
 * one method per operation reviewbot uses, named after the swagger `operationId`, each returning
 * the zod-validated response. Paths follow `templates/swagger/v1_json.tmpl`; owner, repository and
 * file paths are URL-encoded segment by segment.
 */
import { z } from 'zod';
import { PlatformError } from '../../errors.js';
import type { PlatformHttpNames } from '../http/index.js';
import { createGiteaHttp, type GiteaHttp, type GiteaHttpOptions } from './http.js';
import {
  ChangedFile,
  Comment,
  Commit,
  Compare,
  PullRequest,
  PullReview,
  PullReviewComment,
  Reaction,
  User,
} from './schemas.js';

/**
 * How Gitea failures read (`platformCall`): a missing, expired or revoked token is a 401
 * (`{"message":"token is required"}` or `"user does not exist"`).
 */
export const GITEA_HTTP: PlatformHttpNames = {
  platform: 'Gitea',
  urlVariable: 'GITEA_URL',
  credentialsHint: 'GITEA_TOKEN (expired or revoked?) and GITEA_URL',
  forbiddenHint: 'forbidden: see docs/gitea.md for the token scopes each bot needs',
};

/** `CreatePullReviewComment`: one inline comment; exactly one of the positions is non-zero. */
export interface CreatePullReviewComment {
  path: string;
  body: string;
  /** New-file line (added or unchanged line), or 0. */
  new_position: number;
  /** Old-file line (removed line), or 0. */
  old_position: number;
}

/** `CreateStatusOption`: a commit status (`CommitStatusState`; reviewbot uses three of them). */
export interface CreateStatusOption {
  state: 'pending' | 'success' | 'failure';
  context: string;
  description: string;
  target_url?: string;
}

/** `CreatePullReviewOptions` (event `COMMENT`: Gitea's default would leave the review pending). */
export interface CreatePullReviewOptions {
  body: string;
  event: 'COMMENT';
  commit_id?: string;
  comments: CreatePullReviewComment[];
}

/** `owner/repo` split and encoded for a path: `/repos/<owner>/<repo>`. */
export function repoPath(fullName: string): string {
  const [owner = '', repo = ''] = fullName.split('/');
  return `/repos/${encodeURIComponent(owner)}/${encodeURIComponent(repo)}`;
}

/**
 * A repository file path encoded per segment (slashes kept). An empty, `.` or `..` segment is
 * refused (PlatformError): the URL parser would resolve it (`%2e%2e` too), turning the request into
 * another API call with the bot's token, e.g. a file of another repository.
 */
function filePath(path: string): string {
  const segments = path.split('/');
  if (segments.some((s) => s === '' || s === '.' || s === '..')) {
    throw new PlatformError(`not a repository file path: ${JSON.stringify(path.slice(0, 200))}`);
  }
  return segments.map(encodeURIComponent).join('/');
}

/** Creates the client for one instance and token (no request is sent). */
export function createGiteaClient(options: GiteaHttpOptions) {
  const http: GiteaHttp = createGiteaHttp(options);
  const pulls = (repo: string, index: number) => `${repoPath(repo)}/pulls/${index}`;
  const get = async <T>(schema: z.ZodType<T>, path: string) =>
    schema.parse((await http.request('GET', path)).body);
  return {
    http,
    /** `GET /user`. */
    userGetCurrent: () => get(User, '/user'),
    /** `GET /repos/{owner}/{repo}/pulls/{index}`. */
    repoGetPullRequest: (repo: string, index: number) => get(PullRequest, pulls(repo, index)),
    /** `GET /repos/{owner}/{repo}/pulls/{index}/files`, every page. */
    repoGetPullRequestFiles: async (repo: string, index: number) =>
      z.array(ChangedFile).parse(await http.getAll(`${pulls(repo, index)}/files`)),
    /** `GET /repos/{owner}/{repo}/pulls/{index}.diff`: the unified diff, as text. */
    repoDownloadPullDiff: async (repo: string, index: number) =>
      z.string().parse((await http.request('GET', `${pulls(repo, index)}.diff`, { as: 'text' })).body),
    /** `GET /repos/{owner}/{repo}/issues/{index}/comments` (not paginated by Gitea). */
    issueGetComments: (repo: string, index: number) =>
      get(z.array(Comment), `${repoPath(repo)}/issues/${index}/comments`),
    /** `POST /repos/{owner}/{repo}/issues/{index}/comments`. */
    issueCreateComment: async (repo: string, index: number, body: string) =>
      Comment.parse(
        (await http.request('POST', `${repoPath(repo)}/issues/${index}/comments`, { body: { body } })).body,
      ),
    /** `GET /repos/{owner}/{repo}/pulls/{index}/reviews`, every page. */
    repoListPullReviews: async (repo: string, index: number) =>
      z.array(PullReview).parse(await http.getAll(`${pulls(repo, index)}/reviews`)),
    /** `GET /repos/{owner}/{repo}/pulls/{index}/reviews/{id}/comments`. */
    repoGetPullReviewComments: (repo: string, index: number, id: number) =>
      get(z.array(PullReviewComment), `${pulls(repo, index)}/reviews/${id}/comments`),
    /** `POST /repos/{owner}/{repo}/pulls/{index}/reviews`. */
    repoCreatePullReview: async (repo: string, index: number, options: CreatePullReviewOptions) =>
      PullReview.parse((await http.request('POST', `${pulls(repo, index)}/reviews`, { body: options })).body),
    /** `POST /repos/{owner}/{repo}/issues/comments/{id}/reactions`. */
    issuePostCommentReaction: async (repo: string, id: string, content: string) => {
      await http.request('POST', `${repoPath(repo)}/issues/comments/${id}/reactions`, { body: { content } });
    },
    /**
     * `GET /repos/{owner}/{repo}/issues/comments/{id}/reactions`: every reaction on a conversation or
     * code comment (one comment table in Gitea; not paginated).
     */
    issueGetCommentReactions: async (repo: string, id: string) =>
      z
        .array(Reaction)
        .nullable()
        .parse((await http.request('GET', `${repoPath(repo)}/issues/comments/${id}/reactions`)).body) ?? [],
    /** `POST /repos/{owner}/{repo}/issues/{index}/reactions`. */
    issuePostIssueReaction: async (repo: string, index: number, content: string) => {
      await http.request('POST', `${repoPath(repo)}/issues/${index}/reactions`, { body: { content } });
    },
    /** `GET /repos/{owner}/{repo}/raw/{filepath}?ref=`: the file's bytes as text. */
    repoGetRawFile: async (repo: string, path: string, ref: string) =>
      z.string().parse(
        (
          await http.request('GET', `${repoPath(repo)}/raw/${filePath(path)}`, {
            query: { ref },
            as: 'text',
          })
        ).body,
      ),
    /** `GET /repos/{owner}/{repo}/compare/{basehead}` with `base...head`. */
    repoCompareDiff: (repo: string, base: string, head: string) =>
      get(Compare, `${repoPath(repo)}/compare/${encodeURIComponent(base)}...${encodeURIComponent(head)}`),
    /** `GET /repos/{owner}/{repo}/git/commits/{sha}` without stats, verification or files. */
    repoGetSingleCommit: async (repo: string, sha: string) =>
      Commit.parse(
        (
          await http.request('GET', `${repoPath(repo)}/git/commits/${encodeURIComponent(sha)}`, {
            query: { stat: false, verification: false, files: false },
          })
        ).body,
      ),
    /** `GET /repos/{owner}/{repo}/pulls/{index}/commits`, every page, without verification or files. */
    repoGetPullRequestCommits: async (repo: string, index: number) =>
      z
        .array(Commit)
        .parse(await http.getAll(`${pulls(repo, index)}/commits`, { verification: false, files: false })),
    /** `POST /repos/{owner}/{repo}/statuses/{sha}` (201). */
    repoCreateStatus: async (repo: string, sha: string, options: CreateStatusOption) => {
      await http.request('POST', `${repoPath(repo)}/statuses/${encodeURIComponent(sha)}`, { body: options });
    },
    /**
     * `POST /repos/{owner}/{repo}/pulls/{index}/comments/{id}/resolve` (Gitea 1.26+; older servers
     * answer 404).
     */
    repoResolvePullReviewComment: async (repo: string, index: number, id: number) => {
      await http.request('POST', `${pulls(repo, index)}/comments/${id}/resolve`);
    },
  };
}

/** The client. */
export type GiteaClient = ReturnType<typeof createGiteaClient>;
