/**
 * One signed comment replayed under new delivery ids starts one agent run (CONTRACT §5): the built
 * `reviewbot serve` with GitHub, Gitea and GitLab enabled at once gets each platform's real
 * comment payload, signed as the platform signs it, three times with three delivery ids, then a
 * second comment with the same text. Agent runs are counted at the fake model API: one per
 * comment, the copies answered 200 ignored "duplicate event".
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendGiteaWebhook } from '../support/fake-gitea/send-webhook.js';
import { pullRequestCommentHook, type GiteaHookPullRequest } from '../support/fake-gitea/webhook-payloads.js';
import { startFakeGitea, type FakeGitea } from '../support/fake-gitea/index.js';
import { sendGitLabWebhook, startFakeGitLab, type FakeGitLab } from '../support/fake-gitlab/index.js';
import { sendGitHubWebhook } from '../support/serve-process.js';
import { issueCommentPayload } from './github-payloads.js';
import { GITHUB_TOKEN } from './cli-fixture.js';
import {
  ALICE,
  createServeFixture,
  jobTag,
  REVIEWER,
  summaryReply,
  waitFor,
  WEBHOOK_SECRET,
  type ServeFixture,
} from './serve-fixture.js';

const GITEA_TOKEN = 'gitea-replay-token-0123456789';
const GITEA_SECRET = 'gitea-replay-hook-secret-0123456789';
const GITEA_REPO = 'acme/gadgets';
const GITLAB_TOKEN = 'glpat-replayTokenThatMustNeverLeak01';
const GITLAB_SECRET = 'gitlab-replay-hook-secret-0123456789';
const GITLAB_PROJECT = 'acme/platform/widgets';

const ACCEPTED = { status: 200, json: { status: 'accepted' } };
const DUPLICATE = { status: 200, json: { status: 'ignored', reason: 'duplicate event' } };

/** One platform's way to write a comment and deliver its webhook under a given delivery id. */
interface Channel {
  /** Writes a comment with `body` on the platform; returns a sender of its (fixed) webhook. */
  comment(body: string): Promise<(deliveryId: string) => Promise<{ status: number; json: unknown }>>;
}

describe('reviewbot serve: a signed comment replayed under new delivery ids', () => {
  let fx: ServeFixture;
  let gitea: FakeGitea;
  let gitlab: FakeGitLab;
  let giteaPr: GiteaHookPullRequest;
  const channels: Record<string, Channel> = {};

  beforeAll(async () => {
    gitea = await startFakeGitea({ token: GITEA_TOKEN, username: 'reviewbot-gitea' });
    gitlab = await startFakeGitLab({ token: GITLAB_TOKEN, username: 'reviewbot-gl' });
    fx = await createServeFixture({
      GITEA_TOKEN,
      GITEA_URL: gitea.url,
      GITEA_WEBHOOK_SECRET: GITEA_SECRET,
      GITLAB_TOKEN,
      GITLAB_URL: gitlab.url,
      GITLAB_WEBHOOK_SECRET: GITLAB_SECRET,
    });
    const { scenario } = fx;
    gitea.addPullRequest({
      repo: GITEA_REPO,
      index: 7,
      bareRepoPath: scenario.bareRepoPath,
      headBranch: scenario.head,
      baseBranch: scenario.base,
      title: 'Tune the service constants',
    });
    await gitlab.addMergeRequest({
      project: GITLAB_PROJECT,
      iid: 7,
      bareRepoPath: scenario.bareRepoPath,
      sourceBranch: scenario.head,
      targetBranch: scenario.base,
      title: 'Tune the service constants',
    });
    giteaPr = {
      number: 7,
      title: 'Tune the service constants',
      headBranch: scenario.head,
      headSha: await gitea.headSha(GITEA_REPO, 7),
      baseBranch: scenario.base,
      baseSha: scenario.baseSha,
      author: ALICE,
    };
    fx.llm.setScript(() => summaryReply('Looked at it.'));

    channels.github = {
      async comment(body) {
        const seeded = fx.github.addIssueComment({
          owner: 'acme',
          repo: 'widgets',
          number: 7,
          body,
          user: ALICE,
        });
        const payload = issueCommentPayload({
          repo: 'acme/widgets',
          pr: 7,
          body,
          login: ALICE,
          commentId: seeded.id,
        });
        return (deliveryId) =>
          sendGitHubWebhook(fx.server.url, 'issue_comment', payload, { secret: WEBHOOK_SECRET, deliveryId });
      },
    };
    channels.gitea = {
      async comment(body) {
        const stored = gitea.addComment(GITEA_REPO, 7, ALICE, body);
        const ctx = { baseUrl: gitea.url, owner: 'acme', repo: 'gadgets', sender: ALICE };
        const hook = pullRequestCommentHook(ctx, giteaPr, stored);
        return (deliveryId) =>
          sendGiteaWebhook(`${fx.server.url}/webhooks/gitea`, hook.names, hook.payload, {
            secret: GITEA_SECRET,
            deliveryId,
          });
      },
    };
    channels.gitlab = {
      async comment(body) {
        const { noteId } = gitlab.addNote({ project: GITLAB_PROJECT, iid: 7, author: ALICE, body });
        const payload = await gitlab.noteHook(noteId);
        return (eventUuid) =>
          sendGitLabWebhook(`${fx.server.url}/webhooks/gitlab`, 'Note Hook', payload, {
            token: GITLAB_SECRET,
            eventUuid,
          });
      },
    };
  });
  afterAll(async () => {
    await fx?.closeAll();
    await gitea?.close();
    await gitlab?.close();
  });

  const runsOf = (tag: string) => fx.llm.requests.filter((r) => jobTag(r) === tag).length;

  it.each(['github', 'gitea', 'gitlab'])(
    '%s: three copies of one comment start one run; a second comment with the same text another',
    async (platform) => {
      const channel = channels[platform]!;
      const tag = `replay${platform}`;
      const text = `@${REVIEWER} job-${tag} review`;
      const first = await channel.comment(text);
      const answers = [];
      for (const n of [1, 2, 3]) answers.push(await first(`${platform}-replay-${n}-${crypto.randomUUID()}`));
      const second = await channel.comment(text);
      answers.push(await second(crypto.randomUUID()));
      // Jobs of one pull request run in order: once a later comment's run reached the model,
      // every run the copies could have started has too.
      const sentinel = await channel.comment(`@${REVIEWER} job-${tag}end review`);
      answers.push(await sentinel(crypto.randomUUID()));
      await waitFor(() => runsOf(`${tag}end`) > 0, 90_000, `the ${platform} sentinel run`);

      expect(runsOf(tag)).toBe(2);
      expect(answers).toEqual([
        expect.objectContaining(ACCEPTED),
        expect.objectContaining(DUPLICATE),
        expect.objectContaining(DUPLICATE),
        expect.objectContaining(ACCEPTED),
        expect.objectContaining(ACCEPTED),
      ]);
    },
    120_000,
  );

  it('made no request the platforms would reject', () => {
    expect(fx.github.violations).toEqual([]);
    expect(gitea.violations).toEqual([]);
    expect(gitlab.violations).toEqual([]);
  });

  it('never wrote a token into a log line', () => {
    const text = fx.server.stdout() + fx.server.stderr();
    for (const token of [GITHUB_TOKEN, GITEA_TOKEN, GITLAB_TOKEN]) expect(text).not.toContain(token);
  });
});
