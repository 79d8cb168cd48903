/**
 * The apply tests' adapters for GitLab and Gitea (`ApplyAdapter`): each starts its fake with pull
 * request 7, seeds the bot's findings where the bot posts them (GitLab: a diff discussion at the
 * new or old line; Gitea: a code comment on the signed line, negative = old side), writes comments
 * as a person would and delivers their webhooks as the platform sends them.
 */
import { renderPlainSuggestion } from '../../src/platforms/plain-suggestion.js';
import { startFakeGitea, type FakeGitea } from '../support/fake-gitea/index.js';
import { sendGiteaWebhook } from '../support/fake-gitea/send-webhook.js';
import { pullRequestCommentHook } from '../support/fake-gitea/webhook-payloads.js';
import { sendGitLabWebhook, startFakeGitLab, type FakeGitLab } from '../support/fake-gitlab/index.js';
import {
  APPLY_PR,
  APPLY_WORKER,
  findingBody,
  type ApplyAdapter,
  type ApplyRepo,
  type Commenter,
  type FindingSeed,
} from './apply-fixture.js';

/** GitLab's suggestion syntax as the GitLab platform renders it (`-N+0`: the line and N above). */
const gitlabSuggestion = (suggestion: string, lineCount: number) =>
  `\`\`\`suggestion:-${lineCount - 1}+0\n${suggestion}\n\`\`\``;

/** GitLab: project `acme/platform/widgets`, merge request !7. */
export function gitlabAdapter(): ApplyAdapter {
  const token = 'glpat-applyE2eTokenThatMustNeverLeak01';
  const secret = 'gitlab-apply-secret-0123456789';
  const project = 'acme/platform/widgets';
  const bot = 'reviewbot-gl';
  let fake: FakeGitLab;
  const discussion = (id: string) => fake.discussions.find((d) => d.id === id);
  const deliver = async (serverUrl: string, noteId: number) => {
    const res = await sendGitLabWebhook(
      `${serverUrl}/webhooks/gitlab`,
      'Note Hook',
      await fake.noteHook(noteId),
      {
        token: secret,
      },
    );
    return { status: res.status, json: res.json };
  };
  return {
    name: 'GitLab',
    platform: 'gitlab',
    repoFullName: project,
    worker: APPLY_WORKER,
    requester: '@alice',
    refusedReason: /could not be resolved: the bot's account lacks the permission/,
    refusedCountsAddressed: false,
    async start(repo: ApplyRepo) {
      fake = await startFakeGitLab({ token, username: bot });
      await fake.addMergeRequest({
        project,
        iid: APPLY_PR,
        bareRepoPath: repo.bare,
        sourceBranch: 'feature',
        targetBranch: 'main',
        title: 'Apply',
      });
      return {
        GITLAB_TOKEN: token,
        GITLAB_URL: fake.url,
        GITLAB_WEBHOOK_SECRET: secret,
        ALLOWED_USERS: 'alice',
      };
    },
    async seedFinding(seed: FindingSeed) {
      const position =
        seed.side === 'RIGHT'
          ? { newPath: seed.path, newLine: seed.line }
          : { newPath: seed.path, oldPath: seed.path, oldLine: seed.line };
      const note = fake.addNote({
        project,
        iid: APPLY_PR,
        author: bot,
        body: findingBody(seed, gitlabSuggestion),
        position,
      });
      return note.discussionId;
    },
    async reply(serverUrl, handle, text, who: Commenter) {
      const note = fake.addNote({ project, iid: APPLY_PR, author: who, body: text, discussionId: handle });
      return deliver(serverUrl, note.noteId);
    },
    async comment(serverUrl, text, who) {
      const note = fake.addNote({ project, iid: APPLY_PR, author: who, body: text });
      return deliver(serverUrl, note.noteId);
    },
    botReplies: (handle) =>
      (discussion(handle)?.notes ?? [])
        .slice(1)
        .filter((n) => n.author === bot)
        .map((n) => n.body),
    botTexts: () => fake.notes.filter((n) => n.author === bot && !n.system).map((n) => n.body),
    resolved: (handle) => discussion(handle)?.resolved === true,
    refuseResolution() {
      // GitLab's answer to a token below the Developer role (`resolve_note`).
      fake.failNext('PUT', /\/discussions\/[^/]+$/, 403, { message: '403 Forbidden' });
      return () => undefined;
    },
    violations: () => fake.violations,
    close: () => fake?.close() ?? Promise.resolve(),
  };
}

/** Gitea: repository `acme/widgets`, pull request #7, the resolve endpoint served (Gitea 1.26+). */
export function giteaAdapter(): ApplyAdapter & { fake(): FakeGitea } {
  const token = 'gitea-applyE2eTokenThatMustNeverLeak01';
  const secret = 'gitea-apply-secret-0123456789';
  const repoName = 'acme/widgets';
  const bot = 'reviewbot-gitea';
  let fake: FakeGitea;
  let repo: ApplyRepo;
  const root = (handle: string) => fake.codeComments.find((c) => String(c.id) === handle);
  const deliver = async (serverUrl: string, id: number, body: string, who: Commenter) => {
    const hook = pullRequestCommentHook(
      { baseUrl: fake.url, owner: 'acme', repo: 'widgets', sender: who },
      {
        number: APPLY_PR,
        title: 'Apply',
        author: 'alice',
        headBranch: 'feature',
        headSha: await repo.head(),
        baseBranch: 'main',
        baseSha: await repo.base(),
      },
      { id, body },
    );
    const res = await sendGiteaWebhook(`${serverUrl}/webhooks/gitea`, hook.names, hook.payload, { secret });
    return { status: res.status, json: res.json };
  };
  return {
    name: 'Gitea',
    platform: 'gitea',
    repoFullName: repoName,
    worker: APPLY_WORKER,
    requester: '@alice',
    refusedReason: /could not be resolved: this server has no API to resolve conversations/,
    refusedCountsAddressed: true,
    fake: () => fake,
    async start(r: ApplyRepo) {
      repo = r;
      fake = await startFakeGitea({ token, username: bot, resolveEndpoint: true });
      fake.addPullRequest({
        repo: repoName,
        index: APPLY_PR,
        bareRepoPath: repo.bare,
        headBranch: 'feature',
        baseBranch: 'main',
        title: 'Apply',
      });
      return {
        GITEA_TOKEN: token,
        GITEA_URL: fake.url,
        GITEA_WEBHOOK_SECRET: secret,
        ALLOWED_USERS: 'alice',
      };
    },
    async seedFinding(seed: FindingSeed) {
      const c = fake.addCodeComment({
        repo: repoName,
        index: APPLY_PR,
        author: bot,
        body: findingBody(seed, renderPlainSuggestion),
        path: seed.path,
        line: seed.side === 'RIGHT' ? seed.line : -seed.line,
      });
      return String(c.id);
    },
    async reply(serverUrl, handle, text, who) {
      const c = fake.addCodeComment({
        repo: repoName,
        index: APPLY_PR,
        author: who,
        body: text,
        path: '',
        line: 0,
        inReplyTo: Number(handle),
      });
      return deliver(serverUrl, c.id, text, who);
    },
    async comment(serverUrl, text, who) {
      const c = fake.addComment(repoName, APPLY_PR, who, text);
      return deliver(serverUrl, c.id, text, who);
    },
    botReplies(handle) {
      const first = root(handle);
      if (!first) return [];
      return fake.codeComments
        .filter((c) => c.path === first.path && c.line === first.line && c.id > first.id && c.author === bot)
        .map((c) => c.body);
    },
    botTexts: () =>
      [...fake.comments, ...fake.codeComments, ...fake.reviews.filter((r) => r.body)]
        .filter((c) => c.author === bot)
        .map((c) => c.body),
    resolved: (handle) => root(handle)?.resolver === bot,
    refuseResolution() {
      // Gitea before 1.26 and Forgejo: no resolve endpoint (404).
      fake.setResolveEndpoint(false);
      return () => fake.setResolveEndpoint(true);
    },
    violations: () => fake.violations,
    close: () => fake?.close() ?? Promise.resolve(),
  };
}
