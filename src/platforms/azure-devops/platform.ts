/**
 * The Azure DevOps implementation of `Platform` (Services and Server 2022+) through Microsoft's
 * `azure-devops-node-api`. Repository full names are `project/repo`, pull request numbers the
 * pull request id. The bot is the token's identity (`GET _apis/connectionData`: `authenticatedUser`
 * id and its `Account` property, the unique name). Git over HTTP authenticates with the token in
 * an `Authorization: Basic base64(":" + PAT)` header (a job access token: `Bearer`, `auth.ts`)
 * (`http.extraHeader`), never in a URL or file.
 */
import { PlatformError } from '../../errors.js';
import type { Logger } from '../../logger.js';
import { onceUntilRejected } from '../../once-until-rejected.js';
import type { Platform, PullRequestInfo } from '../types.js';
import { azureAuthorization } from './auth.js';
import { platformCall } from '../http/index.js';
import { AZURE_HTTP, createAzureClient, type AzureClient } from './client.js';
import { withHunks } from './diffs.js';
import { iterationChanges, latestIteration } from './iterations.js';
import { toWire } from '../wire-markers.js';
import { azureListPullRequests } from './list-pull-requests.js';
import { azureMemoryMethods } from './memory-api.js';
import { azureProgress } from './progress.js';
import type { AzureDevOpsSettings } from './settings.js';
import { submitAzureReview, threadUrl } from './submit-review.js';
import { COMMENT_TYPE, listAzureThreads, splitRepo, toExistingComments } from './threads.js';
import { createAzureWebhookHandler } from './webhook.js';
import type { BotIdentity } from './webhook-parse.js';
import { renderPlainSuggestion } from '../plain-suggestion.js';

/** Options of `createAzureDevOpsPlatform`. */
export interface AzureDevOpsPlatformOptions {
  settings: AzureDevOpsSettings;
  logger: Logger;
  fetch?: typeof fetch;
}

/** PullRequestInfo.state from `PullRequestStatus` (GitInterfaces.ts: active 1, abandoned 2, completed 3). */
function stateOf(status: unknown): PullRequestInfo['state'] {
  if (status === 3 || status === 'completed') return 'merged';
  return status === 1 || status === 'active' ? 'open' : 'closed';
}

/** `url` without user info (Azure DevOps' `remoteUrl` names the organization as user). */
function withoutUser(url: string): string {
  if (!url) return '';
  const parsed = new URL(url);
  parsed.username = '';
  parsed.password = '';
  return parsed.toString();
}

const branchOf = (ref: string | undefined) => (ref ?? '').replace(/^refs\/heads\//, '');

/** The bot identity from `connectionData`. */
async function identify(client: AzureClient): Promise<BotIdentity> {
  const data = await client.web.connect();
  const user = data.authenticatedUser;
  const account = (user?.properties as { Account?: { $value?: unknown } } | undefined)?.Account?.$value;
  return {
    id: user?.id ?? '',
    uniqueName: typeof account === 'string' ? account : (user?.providerDisplayName ?? ''),
  };
}

/**
 * Creates the Azure DevOps platform. Methods throw `AuthError` (401) or `PlatformError`;
 * `webhook` is set only when the service hook's Basic credentials are.
 */
export function createAzureDevOpsPlatform(options: AzureDevOpsPlatformOptions): Platform {
  const { settings } = options;
  const client = createAzureClient({
    url: settings.url,
    token: settings.token,
    logger: options.logger,
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  const call = platformCall(AZURE_HTTP, [settings.token]);
  let known: BotIdentity | undefined;
  const me = onceUntilRejected(async () => {
    known = await call('identify the bot (GET _apis/connectionData)', () => identify(client));
    return known;
  });
  const ref = (repo: string, id: number) => `${repo}#${id}`;

  /**
   * The pull request, or a 404 `PlatformError` when Azure DevOps does not know it (its client
   * answers a 404 with `null` instead of throwing).
   */
  async function fetchPr(repo: string, id: number) {
    const { project, repo: name } = splitRepo(repo);
    const pr = await call(`fetch pull request ${ref(repo, id)}`, () =>
      client.send((git) => git.getPullRequest(name, id, project)),
    );
    if (pr === null || pr === undefined)
      throw new PlatformError(`Azure DevOps: pull request ${ref(repo, id)} was not found (HTTP 404)`, {
        status: 404,
      });
    return pr;
  }
  const webUrl = (repo: string, id: number, web?: string) => {
    const { project, repo: name } = splitRepo(repo);
    return `${web ?? `${settings.url}/${encodeURIComponent(project)}/_git/${encodeURIComponent(name)}`}/pullrequest/${id}`;
  };
  const prUrl = async (repo: string, id: number) =>
    webUrl(repo, id, (await fetchPr(repo, id)).repository?.webUrl);

  return {
    name: 'azure-devops',
    ...(settings.webhookUser && settings.webhookSecret
      ? { webhook: createAzureWebhookHandler(settings.webhookUser, settings.webhookSecret, () => known) }
      : {}),

    async getPullRequest(repo, id): Promise<PullRequestInfo> {
      const pr = await fetchPr(repo, id);
      const fork = pr.forkSource?.repository;
      const headRepo = fork?.project?.name && fork.name ? `${fork.project.name}/${fork.name}` : repo;
      return {
        repoFullName: repo,
        number: pr.pullRequestId ?? id,
        title: pr.title ?? '',
        body: pr.description ?? '',
        state: stateOf(pr.status),
        authorUsername: pr.createdBy?.uniqueName ?? '',
        headBranch: branchOf(pr.sourceRefName),
        headSha: pr.lastMergeSourceCommit?.commitId ?? '',
        baseBranch: branchOf(pr.targetRefName),
        baseSha: pr.lastMergeTargetCommit?.commitId ?? '',
        headCloneUrl: withoutUser((fork ?? pr.repository)?.remoteUrl ?? ''),
        headRepoFullName: headRepo,
        isFork: fork !== undefined,
        htmlUrl: webUrl(repo, id, pr.repository?.webUrl),
      };
    },

    async listPullRequestFiles(repo, id) {
      const { project, repo: name } = splitRepo(repo);
      const iteration = await latestIteration(client, call, repo, id);
      const listed = await iterationChanges(client, call, repo, id, iteration.id);
      return call(`read the changed files of ${ref(repo, id)}`, () =>
        withHunks(client, project, name, listed, iteration.commonSha, iteration.sourceSha),
      );
    },

    async listComments(repo, id) {
      return toExistingComments(await listAzureThreads(client, call, repo, id));
    },

    async getBotUsernames() {
      const bot = await me();
      return [...(bot.uniqueName ? [bot.uniqueName] : []), ...(bot.id ? [`<${bot.id}>`] : [])];
    },

    async addReaction() {
      // Azure DevOps has no reaction API for comments: the §18 status acknowledges (CONTRACT §6).
    },

    async postReply(target, body) {
      const { repoFullName: repo, prNumber: id } = target;
      const { project, repo: name } = splitRepo(repo);
      const thread = target.discussionId ?? target.inReplyToCommentId;
      const content = toWire(body);
      if (thread && /^[1-9][0-9]*$/.test(thread)) {
        await call(`reply in thread ${thread} of ${ref(repo, id)}`, () =>
          client.send((git) =>
            git.createComment(
              { parentCommentId: 1, content, commentType: COMMENT_TYPE.text },
              name,
              id,
              Number(thread),
              project,
            ),
          ),
        );
        return { id: thread, url: threadUrl(await prUrl(repo, id), Number(thread)) };
      }
      const created = await call(`post a comment on ${ref(repo, id)}`, () =>
        client.send((git) =>
          git.createThread(
            { comments: [{ parentCommentId: 0, content, commentType: COMMENT_TYPE.text }], status: 1 },
            name,
            id,
            project,
          ),
        ),
      );
      const threadId = created.id ?? 0;
      return { id: String(threadId), url: threadUrl(await prUrl(repo, id), threadId) };
    },

    submitReview(repo, id, review) {
      return submitAzureReview(client, call, async () => (await me()).uniqueName, prUrl, repo, id, review);
    },

    async getGitCredentials() {
      // CONTRACT §4: the PAT as HTTP Basic with an empty user (a job access token as Bearer), sent
      // as a header (never stored).
      return { username: '', password: settings.token, authorization: azureAuthorization(settings.token) };
    },

    // Azure DevOps renders no suggestion blocks from Markdown: a plain fenced block.
    renderSuggestion: renderPlainSuggestion,

    ...azureMemoryMethods(client, call),
    ...azureListPullRequests(client, call),
    ...azureProgress(client, call, prUrl),
  };
}
