/**
 * The Bitbucket Data Center implementation of `Platform` on REST API 1.0 through
 * `@coderabbitai/bitbucket` (see `client.ts`). Repository full names are `KEY/slug` (project key
 * and repository slug), pull request numbers the pull request id. The bot is the token's user,
 * named by the `X-AUSERNAME` header of any authenticated answer. Git over HTTP sends the token as
 * a Bearer header (`http.extraHeader` through git's environment, CONTRACT §4).
 */
import type { Logger } from '../../logger.js';
import { onceUntilRejected } from '../../once-until-rejected.js';
import { toWire } from '../wire-markers.js';
import type { Platform, PullRequestInfo } from '../types.js';
import { platformCall } from '../http/index.js';
import { BITBUCKET_SERVER_HTTP, createBitbucketServerRestClient, repoParams } from './client.js';
import { listServerComments, loginOf, serverThreadOf, toExistingComments } from './comments.js';
import { patchesOfText, toPullRequestFiles } from './diffs.js';
import { serverListPullRequests } from './list-pull-requests.js';
import { serverMemoryMethods } from './memory-api.js';
import { serverProgress } from './progress.js';
import { Change, Comment, PullRequest } from './schemas.js';
import type { BitbucketServerSettings } from './settings.js';
import { submitServerReview } from './submit-review.js';
import { createBitbucketServerWebhookHandler } from './webhook.js';
import { renderPlainSuggestion } from '../plain-suggestion.js';

/** Options of `createBitbucketServerPlatform`. */
export interface BitbucketServerPlatformOptions {
  settings: BitbucketServerSettings;
  logger: Logger;
  fetch?: typeof fetch;
}

const PR = '/api/latest/projects/{projectKey}/repos/{repositorySlug}/pull-requests/{pullRequestId}';

/** PullRequestInfo.state from Data Center's `OPEN`/`MERGED`/`DECLINED`. */
function stateOf(state: string): PullRequestInfo['state'] {
  if (state === 'MERGED') return 'merged';
  return state === 'OPEN' ? 'open' : 'closed';
}

/**
 * Creates the Data Center platform. Methods throw `AuthError` (401) or `PlatformError`; `webhook`
 * is set only when `BITBUCKET_SERVER_WEBHOOK_SECRET` is.
 */
export function createBitbucketServerPlatform(options: BitbucketServerPlatformOptions): Platform {
  const { settings } = options;
  const client = createBitbucketServerRestClient({
    url: settings.url,
    token: settings.token,
    logger: options.logger,
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  const call = platformCall(BITBUCKET_SERVER_HTTP, [settings.token]);
  // Data Center has no "current user" endpoint: every authenticated answer names the user in
  // `X-AUSERNAME` (Atlassian developer community, "Obtain authorised user's username from API").
  const me = onceUntilRejected(async () => {
    const known = client.username();
    if (known) return known;
    await call('identify the bot account (X-AUSERNAME)', async () =>
      client.ok(await client.api.GET('/api/latest/application-properties')),
    );
    const name = client.username() ?? '';
    if (!name) {
      options.logger.warn(
        'Bitbucket Data Center sent no X-AUSERNAME: the bot is known only by its configured usernames',
      );
    }
    return name;
  });
  const ref = (repo: string, id: number) => `${repo}#${id}`;
  const prUrl = (repo: string, id: number) => {
    const { projectKey, repositorySlug } = repoParams(repo);
    return `${settings.url}/projects/${encodeURIComponent(projectKey)}/repos/${encodeURIComponent(repositorySlug)}/pull-requests/${id}`;
  };
  const secrets = (settings.webhookSecret ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  const prPath = (repo: string, id: number) => ({ ...repoParams(repo), pullRequestId: String(id) });

  async function listFiles(repo: string, id: number) {
    const changes = await call(`list the files of ${ref(repo, id)}`, async () =>
      client.all(Change, async (start, limit) =>
        client.ok(
          await client.api.GET(`${PR}/changes`, {
            params: { path: prPath(repo, id), query: { start, limit } },
          }),
        ),
      ),
    );
    const diff = await call(`download the diff of ${ref(repo, id)}`, async () =>
      client.ok(
        await client.api.GET(
          '/api/latest/projects/{projectKey}/repos/{repositorySlug}/pull-requests/{pullRequestId}.diff',
          { params: { path: prPath(repo, id) }, parseAs: 'text' },
        ),
      ),
    );
    return toPullRequestFiles(changes, patchesOfText(String(diff ?? '')));
  }

  return {
    name: 'bitbucket-server',
    ...(secrets.length > 0 ? { webhook: createBitbucketServerWebhookHandler(secrets) } : {}),

    async getPullRequest(repo, id): Promise<PullRequestInfo> {
      const pr = await call(`fetch pull request ${ref(repo, id)}`, async () =>
        PullRequest.parse(client.ok(await client.api.GET(PR, { params: { path: prPath(repo, id) } }))),
      );
      const head = pr.fromRef.repository;
      const headRepo = `${head.project.key}/${head.slug}`;
      const clone = head.links?.clone?.find((l) => l.name === 'http')?.href ?? '';
      let headCloneUrl = '';
      if (clone) {
        const url = new URL(clone);
        url.username = '';
        url.password = '';
        headCloneUrl = url.toString();
      }
      return {
        repoFullName: repo,
        number: pr.id,
        title: pr.title,
        body: pr.description ?? '',
        state: stateOf(pr.state),
        authorUsername: loginOf(pr.author?.user),
        headBranch: pr.fromRef.displayId,
        headSha: pr.fromRef.latestCommit,
        baseBranch: pr.toRef.displayId,
        baseSha: pr.toRef.latestCommit,
        headCloneUrl,
        headRepoFullName: headRepo,
        isFork: headRepo !== repo,
        htmlUrl: pr.links?.self?.[0]?.href ?? prUrl(repo, id),
      };
    },

    listPullRequestFiles: listFiles,

    async listComments(repo, id) {
      return toExistingComments(await listServerComments(client, call, repo, id));
    },

    async locateComment(repo, id, commentId) {
      // The webhook names only a reply's immediate parent: walk the parent chain to the thread's root.
      return serverThreadOf(await listServerComments(client, call, repo, id), Number(commentId));
    },

    async getBotUsernames() {
      const name = await me();
      return name ? [name] : [];
    },

    async addReaction() {
      // No reactions here: the §18 build status acknowledges instead (CONTRACT §6).
    },

    async postReply(target, body) {
      const { repoFullName: repo, prNumber: id } = target;
      const parent = target.inReplyToCommentId ?? target.discussionId;
      const posted = await call(`post a comment on ${ref(repo, id)}`, async () =>
        Comment.parse(
          client.ok(
            await client.api.POST(`${PR}/comments`, {
              params: { path: prPath(repo, id) },
              body: {
                text: toWire(body),
                ...(parent ? { parent: { id: Number(parent) } } : {}),
              } as never,
            }),
          ),
        ),
      );
      return { id: String(posted.id), url: `${prUrl(repo, id)}/overview?commentId=${posted.id}` };
    },

    submitReview(repo, id, review) {
      return submitServerReview(
        {
          client,
          call,
          botLogin: me,
          files: () => listFiles(repo, id),
          commentUrl: (commentId) => `${prUrl(repo, id)}/overview?commentId=${commentId}`,
        },
        repo,
        id,
        review,
      );
    },

    async getGitCredentials() {
      // CONTRACT §4: Data Center takes an HTTP access token as `Authorization: Bearer` over git
      // HTTP too; the workspace layer sends it through `http.extraHeader` in git's environment.
      return { username: '', password: '', authorization: `Bearer ${settings.token}` };
    },

    // Data Center's suggestion syntax needs a multi-line anchor the API cannot set
    // (`multilineMarker` is read-only): a plain fenced block that says what it replaces.
    renderSuggestion: renderPlainSuggestion,

    ...serverMemoryMethods(client, call),
    ...serverListPullRequests(client, call),
    ...serverProgress(client, call, prUrl),
  };
}
