/**
 * The apply tests' adapter for Azure DevOps (`ApplyAdapter`): starts the fake with pull request 7
 * of `Fabrikam/widgets`, seeds the bot's findings as file threads anchored as the platform posts
 * them (`threadContextOf`: right-file lines, or left-file lines for the old side), and delivers
 * comments as service-hook comment events, which name only the comment's thread.
 */
import { threadContextOf } from '../../src/platforms/azure-devops/submit-review.js';
import { renderPlainSuggestion } from '../../src/platforms/plain-suggestion.js';
import { toWire } from '../../src/platforms/wire-markers.js';
import {
  commentEvent,
  sendServiceHook,
  startFakeAzureDevOps,
  type FakeAzureDevOps,
  type StoredThread,
} from '../support/fake-azure-devops/index.js';
import {
  APPLY_PR,
  findingBody,
  type ApplyAdapter,
  type ApplyRepo,
  type Commenter,
  type FindingSeed,
} from './apply-fixture.js';
import { ALICE, BOT, HOOK_SECRET, HOOK_USER, PROJECT, REPO, WORKER } from './azure-devops-fixture.js';

/** Mallory: an Azure DevOps identity outside `ALLOWED_USERS`. */
const MALLORY = { id: '99999999-2222-4333-8444-555555555555', uniqueName: 'mallory@example.com' };

/** Azure DevOps: `Fabrikam/widgets`, pull request 7; users are unique names. */
export function azureDevOpsAdapter(): ApplyAdapter {
  const token = 'ado-applyE2eTokenThatMustNeverLeak01';
  let fake: FakeAzureDevOps;
  const threads = () => fake.threads(PROJECT, REPO, APPLY_PR);
  const thread = (handle: string) => threads().find((t) => String(t.id) === handle);
  const identity = (who: Commenter) => (who === 'alice' ? ALICE : MALLORY);
  const deliver = async (
    serverUrl: string,
    t: StoredThread,
    commentId: number,
    content: string,
    who: Commenter,
  ) =>
    sendServiceHook(
      `${serverUrl}/webhooks/azure-devops`,
      commentEvent(await fake.pullRequestJson(PROJECT, REPO, APPLY_PR), t.id, {
        id: commentId,
        content,
        author: identity(who),
      }),
      { user: HOOK_USER, password: HOOK_SECRET },
    );
  return {
    name: 'Azure DevOps',
    platform: 'azure-devops',
    repoFullName: `${PROJECT}/${REPO}`,
    worker: WORKER,
    requester: `@${ALICE.uniqueName}`,
    refusedReason: /could not be resolved: the bot's account lacks the permission/,
    refusedCountsAddressed: false,
    async start(repo: ApplyRepo) {
      fake = await startFakeAzureDevOps({ token, botUniqueName: BOT });
      fake.addPullRequest({
        project: PROJECT,
        repo: REPO,
        id: APPLY_PR,
        bareRepoPath: repo.bare,
        headBranch: 'feature',
        baseBranch: 'main',
        title: 'Apply',
      });
      return {
        AZURE_DEVOPS_TOKEN: token,
        AZURE_DEVOPS_URL: fake.collectionUrl,
        AZURE_DEVOPS_WEBHOOK_USER: HOOK_USER,
        AZURE_DEVOPS_WEBHOOK_SECRET: HOOK_SECRET,
        REVIEWER_BOT_USERNAME: BOT,
        ALLOWED_USERS: ALICE.uniqueName,
      };
    },
    async seedFinding(seed: FindingSeed) {
      const body = toWire(findingBody(seed, renderPlainSuggestion));
      const t = fake.addThread(PROJECT, REPO, APPLY_PR, BOT, fake.botId, body);
      t.threadContext = threadContextOf({
        path: seed.path,
        line: seed.line,
        side: seed.side,
        ...(seed.startLine ? { startLine: seed.startLine } : {}),
        body,
      });
      return String(t.id);
    },
    async reply(serverUrl, handle, content, who) {
      const t = thread(handle)!;
      const id = Math.max(...t.comments.map((c) => c.id)) + 1;
      const { uniqueName, id: authorId } = identity(who);
      t.comments.push({
        id,
        parentCommentId: 1,
        content,
        author: uniqueName,
        authorId,
        publishedDate: new Date().toISOString(),
      });
      return deliver(serverUrl, t, id, content, who);
    },
    async comment(serverUrl, content, who) {
      const { uniqueName, id: authorId } = identity(who);
      const t = fake.addThread(PROJECT, REPO, APPLY_PR, uniqueName, authorId, content);
      return deliver(serverUrl, t, 1, content, who);
    },
    botReplies: (handle) =>
      (thread(handle)?.comments ?? [])
        .filter((c) => c.id > 1 && c.authorId === fake.botId)
        .map((c) => c.content),
    botTexts: () =>
      threads()
        .flatMap((t) => t.comments)
        .filter((c) => c.authorId === fake.botId)
        .map((c) => c.content),
    resolved: (handle) => thread(handle)?.status === 'fixed',
    refuseResolution() {
      fake.failNext('PATCH', /\/threads\/\d+$/, 403);
      return () => undefined;
    },
    violations: () => fake.violations,
    close: () => fake?.close() ?? Promise.resolve(),
  };
}
