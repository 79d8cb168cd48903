/**
 * Drivers of the learnings end-to-end tests (CONTRACT §20): one per platform, each writing comments
 * and reactions as a user would (stored in the fake, then delivered as a signed webhook to a real
 * `reviewbot serve`) and reading back what the bot left (its finding threads, replies, bodies).
 */
import { startFakeGitHub, type FakeGitHub, type GitHubPullRequest } from '../support/fake-github/index.js';
import { sendGitLabWebhook, startFakeGitLab, type FakeGitLab } from '../support/fake-gitlab/index.js';
import { sendGitHubWebhook } from '../support/serve-process.js';
import { issueCommentPayload, reviewCommentPayload } from './github-payloads.js';
import type { MemoryRepo } from './memory-fixture.js';

/** A finding thread the bot started. */
export interface Thread {
  /** GitHub: the root review comment id; GitLab: the first note id. */
  rootId: number;
  /** GitLab discussion id ('' on GitHub). */
  discussionId: string;
  path: string;
  line: number;
}

/** One platform as the tests drive it. */
export interface LearningsDriver {
  name: 'github' | 'gitlab';
  /** `platform:repo` of the repository (for the CLI). */
  scope: string;
  /** `reviewbot review` reference of pull request `n`. */
  ref(n: number): string;
  /** Platform credentials and URLs plus the webhook secret for `serve`. */
  env: NodeJS.ProcessEnv;
  addPullRequest(repo: MemoryRepo, n: number): Promise<void>;
  /** Posts a conversation comment on `n` and delivers its webhook; resolves with the answer's JSON. */
  comment(serverUrl: string, n: number, body: string, user: string): Promise<unknown>;
  /** Replies in `thread` of `n` and delivers the webhook. */
  reply(serverUrl: string, n: number, thread: Thread, body: string, user: string): Promise<unknown>;
  thumbsDown(thread: Thread, user: string): void;
  botThreads(n: number): Thread[];
  /** The bot's replies inside `thread`. */
  botReplies(thread: Thread): string[];
  /** The bot's review bodies and conversation comments/notes on `n`, oldest first. */
  botBodies(n: number): string[];
  violations(): unknown[];
  close(): Promise<void>;
}

export const SECRET = 'learnings-hook-secret-0123456789';

/** The fake GitHub with `acme/calc`. */
export async function githubLearnings(): Promise<LearningsDriver> {
  const BOT = 'reviewbot-test';
  const TOKEN = 'ghp_learningsE2eTokenThatMustNeverLeak012';
  const fake: FakeGitHub = await startFakeGitHub({ token: TOKEN, login: BOT });
  const pulls = new Map<number, GitHubPullRequest>();
  const send = (url: string, event: string, payload: unknown) =>
    sendGitHubWebhook(url, event, payload, { secret: SECRET }).then((r) => r.json);
  return {
    name: 'github',
    scope: 'github:acme/calc',
    ref: (n) => `acme/calc#${n}`,
    env: { CODEHOST_TOKEN: TOKEN, CODEHOST_API_URL: fake.url, CODEHOST_WEBHOOK_SECRET: SECRET },
    async addPullRequest(repo, n) {
      const pr = await fake.addPullRequest({
        owner: 'acme',
        repo: 'calc',
        number: n,
        bareRepoPath: repo.bare,
        base: 'main',
        head: 'feature',
        title: 'Calc',
      });
      pulls.set(n, pr);
    },
    async comment(url, n, body, user) {
      const seeded = fake.addIssueComment({ owner: 'acme', repo: 'calc', number: n, body, user });
      return send(
        url,
        'issue_comment',
        issueCommentPayload({ repo: 'acme/calc', pr: n, body, login: user, commentId: seeded.id }),
      );
    },
    async reply(url, n, thread, body, user) {
      const seeded = await fake.addReviewComment({
        owner: 'acme',
        repo: 'calc',
        number: n,
        body,
        user,
        path: thread.path,
        line: thread.line,
        inReplyTo: thread.rootId,
      });
      const payload = reviewCommentPayload({
        repo: 'acme/calc',
        pr: n,
        body,
        login: user,
        commentId: seeded.id,
        pullRequest: pulls.get(n)!,
        path: thread.path,
        line: thread.line,
        inReplyTo: thread.rootId,
      });
      return send(url, 'pull_request_review_comment', payload);
    },
    thumbsDown(thread, user) {
      fake.addReaction({ subject: 'review_comment', commentId: thread.rootId, content: '-1', user });
    },
    botThreads(n) {
      return fake.reviewComments
        .filter(
          (c) => c.user?.login === BOT && !c.in_reply_to_id && c.pull_request_url.endsWith(`/pulls/${n}`),
        )
        .map((c) => ({ rootId: c.id, discussionId: '', path: c.path, line: c.line ?? 0 }));
    },
    botReplies(thread) {
      return fake.reviewComments
        .filter((c) => c.user?.login === BOT && c.in_reply_to_id === thread.rootId)
        .map((c) => c.body);
    },
    botBodies(n) {
      const reviews = fake.reviews.filter(
        (r) => r.user?.login === BOT && r.body && r.pull_request_url.endsWith(`/pulls/${n}`),
      );
      const comments = fake.issueComments.filter(
        (c) => c.user?.login === BOT && c.issue_url.endsWith(`/issues/${n}`),
      );
      return [
        ...reviews.map((r) => ({ at: r.id, body: r.body })),
        ...comments.map((c) => ({ at: c.id, body: c.body ?? '' })),
      ]
        .sort((a, b) => a.at - b.at)
        .map((x) => x.body);
    },
    violations: () => fake.violations,
    close: () => fake.close(),
  };
}

/** The fake GitLab with `acme/geo/calc`. */
export async function gitlabLearnings(): Promise<LearningsDriver> {
  const BOT = 'reviewbot-gl';
  const TOKEN = 'glpat-learningsE2eTokenThatMustNeverLeak';
  const PROJECT = 'acme/geo/calc';
  const fake: FakeGitLab = await startFakeGitLab({ token: TOKEN, username: BOT });
  const deliver = async (url: string, noteId: number) =>
    (
      await sendGitLabWebhook(`${url}/webhooks/gitlab`, 'Note Hook', await fake.noteHook(noteId), {
        token: SECRET,
      })
    ).json;
  return {
    name: 'gitlab',
    scope: `gitlab:${PROJECT}`,
    ref: (n) => `${PROJECT}#${n}`,
    env: { GITLAB_TOKEN: TOKEN, GITLAB_URL: fake.url, GITLAB_WEBHOOK_SECRET: SECRET },
    async addPullRequest(repo, n) {
      await fake.addMergeRequest({
        project: PROJECT,
        iid: n,
        bareRepoPath: repo.bare,
        sourceBranch: 'feature',
        targetBranch: 'main',
        title: 'Calc',
      });
    },
    async comment(url, n, body, user) {
      const { noteId } = fake.addNote({ project: PROJECT, iid: n, body, author: user });
      return deliver(url, noteId);
    },
    async reply(url, n, thread, body, user) {
      const { noteId } = fake.addNote({
        project: PROJECT,
        iid: n,
        body,
        author: user,
        discussionId: thread.discussionId,
      });
      return deliver(url, noteId);
    },
    thumbsDown(thread, user) {
      fake.awardEmoji(thread.rootId, 'thumbsdown', user);
    },
    botThreads(n) {
      return fake.discussions
        .filter((d) => d.iid === n && d.notes[0]?.type === 'DiffNote' && d.notes[0].author === BOT)
        .map((d) => {
          const position = d.notes[0]!.position as { new_path?: string; new_line?: number } | undefined;
          return {
            rootId: d.notes[0]!.id,
            discussionId: d.id,
            path: String(position?.new_path ?? ''),
            line: Number(position?.new_line ?? 0),
          };
        });
    },
    botReplies(thread) {
      const discussion = fake.discussions.find((d) => d.id === thread.discussionId);
      return (discussion?.notes ?? [])
        .slice(1)
        .filter((n) => n.author === BOT)
        .map((n) => n.body);
    },
    botBodies(n) {
      return fake.notes
        .filter((x) => x.iid === n && x.type !== 'DiffNote' && x.author === BOT)
        .map((x) => x.body);
    },
    violations: () => fake.violations,
    close: () => fake.close(),
  };
}
