/**
 * The GitHub side of review memory (CONTRACT §13, §14): file contents at a ref (REST contents API),
 * commit comparison (REST compare API), the pull request's commits (REST), review threads and their resolution (GraphQL `reviewThreads`
 * and `resolveReviewThread`, through Octokit's `@octokit/graphql` client with the same credentials).
 */
import { GraphqlResponseError } from '@octokit/graphql';
import { PlatformError } from '../../errors.js';
import type { CommitComparison, FileStatus, Platform, ReviewThread } from '../types.js';
import type { GitHubClient } from './client.js';

type MemoryMethods = Required<
  Pick<
    Platform,
    'getFileContent' | 'compareCommits' | 'listCommitShas' | 'listReviewThreads' | 'resolveThread'
  >
>;

/** Runs a GitHub call, mapping failures to AuthError/PlatformError (the platform's `call`). */
export type GitHubCall = <T>(what: string, fn: () => Promise<T>) => Promise<T>;

function splitRepo(fullName: string): { owner: string; repo: string } {
  const [owner, repo, ...rest] = fullName.split('/');
  if (!owner || !repo || rest.length > 0) throw new Error(`not a GitHub repository name: ${fullName}`);
  return { owner, repo };
}

function status(error: unknown): number | undefined {
  const s = (error as { status?: unknown } | null)?.status;
  return typeof s === 'number' ? s : undefined;
}

/** The threads query: one page of 100 threads with their first comment (GitHub GraphQL API). */
export const REVIEW_THREADS_QUERY = `query ReviewbotThreads($owner: String!, $name: String!, $number: Int!, $cursor: String) {
  repository(owner: $owner, name: $name) {
    pullRequest(number: $number) {
      reviewThreads(first: 100, after: $cursor) {
        pageInfo { hasNextPage endCursor }
        nodes {
          id
          isResolved
          isOutdated
          path
          line
          startLine
          diffSide
          resolvedBy { login }
          comments(first: 1) { nodes { databaseId body author { __typename login } } }
        }
      }
    }
  }
}`;

/** The mutation resolving one thread. */
export const RESOLVE_THREAD_MUTATION = `mutation ReviewbotResolve($threadId: ID!) {
  resolveReviewThread(input: { threadId: $threadId }) { thread { id isResolved } }
}`;

interface ThreadsPage {
  repository: {
    pullRequest: {
      reviewThreads: {
        pageInfo: { hasNextPage: boolean; endCursor: string | null };
        nodes: Array<{
          id: string;
          isResolved: boolean;
          isOutdated: boolean;
          path: string;
          line: number | null;
          startLine?: number | null;
          diffSide: 'LEFT' | 'RIGHT';
          resolvedBy?: { login: string } | null;
          comments: {
            nodes: Array<{
              databaseId?: number | null;
              body: string;
              author: { __typename: string; login: string } | null;
            }>;
          };
        } | null>;
      };
    } | null;
  } | null;
}

/** GraphQL calls `Bot` logins without REST's `[bot]` suffix; REST's form is the bot's identity. */
function loginOf(author: { __typename: string; login: string } | null): string {
  if (!author) return '';
  return author.__typename === 'Bot' && !author.login.endsWith('[bot]')
    ? `${author.login}[bot]`
    : author.login;
}

/**
 * A GraphQL call: errors in an HTTP 200 answer (`errors[]`: validation, NOT_FOUND, FORBIDDEN) become
 * a PlatformError naming GitHub's messages, not an "unreachable" error.
 */
async function graphqlCall<T>(
  client: GitHubClient,
  query: string,
  variables: Record<string, unknown>,
): Promise<T> {
  try {
    return await client.graphql<T>(query, variables);
  } catch (error) {
    if (!(error instanceof GraphqlResponseError)) throw error;
    const messages = error.errors?.map((e) => e.message).join('; ') ?? error.message;
    throw new PlatformError(`GitHub GraphQL API refused the request: ${messages}`, { cause: error });
  }
}

/** Most commits GitHub lists for one pull request ("List commits on a pull request"). */
const GITHUB_PULL_MAX_COMMITS = 250;

/** Most files GitHub's compare endpoint lists for one comparison. */
const GITHUB_COMPARE_MAX_FILES = 300;

/** The memory methods of the GitHub platform. */
export function gitHubMemoryMethods(client: GitHubClient, call: GitHubCall): MemoryMethods {
  return {
    async getFileContent(repoFullName, path, ref) {
      return call(`read ${path} at ${ref.slice(0, 12)} of ${repoFullName}`, async () => {
        try {
          const { data } = await client.rest.repos.getContent({ ...splitRepo(repoFullName), path, ref });
          if (Array.isArray(data) || data.type !== 'file' || !('content' in data)) return null;
          return Buffer.from(data.content, 'base64').toString('utf8');
        } catch (error) {
          if (status(error) === 404) return null;
          throw error;
        }
      });
    },

    async compareCommits(repoFullName, base, head) {
      return call(`compare ${base.slice(0, 12)}...${head.slice(0, 12)} of ${repoFullName}`, async () => {
        try {
          const { data } = await client.rest.repos.compareCommitsWithBasehead({
            ...splitRepo(repoFullName),
            basehead: `${base}...${head}`,
            per_page: 100,
          });
          const files = data.files ?? [];
          const result: CommitComparison = {
            status: data.status,
            // GitHub's compare response lists "up to 300 changed files for the entire comparison"
            // (REST docs, "Compare two commits"): at that count the list may be cut.
            ...(files.length >= GITHUB_COMPARE_MAX_FILES ? { truncated: true } : {}),
            files: files.map((f) => ({
              path: f.filename,
              ...(f.previous_filename ? { previousPath: f.previous_filename } : {}),
              status: f.status as FileStatus,
              additions: f.additions,
              deletions: f.deletions,
              ...(f.patch !== undefined ? { patch: f.patch } : {}),
            })),
          };
          return result;
        } catch (error) {
          // 404: a commit is gone (force-push + garbage collection); 422: no common ancestor.
          if (status(error) === 404 || status(error) === 422) return null;
          throw error;
        }
      });
    },

    async listCommitShas(repoFullName, prNumber) {
      return call(`list the commits of ${repoFullName}#${prNumber}`, async () => {
        const commits = await client.paginate(client.rest.pulls.listCommits, {
          ...splitRepo(repoFullName),
          pull_number: prNumber,
          per_page: 100,
        });
        return commits.length >= GITHUB_PULL_MAX_COMMITS ? null : commits.map((c) => c.sha);
      });
    },

    async listReviewThreads(repoFullName, prNumber) {
      const { owner, repo } = splitRepo(repoFullName);
      return call(`list the review threads of ${repoFullName}#${prNumber}`, async () => {
        const out: ReviewThread[] = [];
        let cursor: string | null = null;
        for (;;) {
          const page: ThreadsPage = await graphqlCall<ThreadsPage>(client, REVIEW_THREADS_QUERY, {
            owner,
            name: repo,
            number: prNumber,
            cursor,
          });
          const threads = page.repository?.pullRequest?.reviewThreads;
          if (!threads) return out;
          for (const node of threads.nodes) {
            const first = node?.comments.nodes[0];
            if (!node || !first) continue;
            out.push({
              id: node.id,
              path: node.path,
              ...(node.line !== null ? { line: node.line } : {}),
              ...(typeof node.startLine === 'number' && node.line !== null && node.startLine < node.line
                ? { startLine: node.startLine }
                : {}),
              side: node.diffSide,
              resolved: node.isResolved,
              outdated: node.isOutdated,
              authorUsername: loginOf(first.author),
              body: first.body,
              ...(typeof first.databaseId === 'number' ? { commentId: String(first.databaseId) } : {}),
              ...(node.isResolved && node.resolvedBy ? { resolvedBy: node.resolvedBy.login } : {}),
            });
          }
          if (!threads.pageInfo.hasNextPage || !threads.pageInfo.endCursor) return out;
          cursor = threads.pageInfo.endCursor;
        }
      });
    },

    async resolveThread(repoFullName, prNumber, threadId) {
      await call(`resolve review thread ${threadId} on ${repoFullName}#${prNumber}`, () =>
        graphqlCall(client, RESOLVE_THREAD_MUTATION, { threadId }),
      );
    },
  };
}
