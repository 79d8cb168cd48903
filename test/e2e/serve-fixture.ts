/**
 * Shared set-up of the `reviewbot serve` end-to-end tests: the CLI fixture's repository and fake
 * GitHub, a second pull request, a fake Anthropic API, and the server as a child process.
 */
import type { FakeLlm, RecordedLlmRequest, ScriptedReply } from '../support/fake-llm/index.js';
import { startFakeAnthropic } from '../support/fake-llm/index.js';
import type { GitHubPullRequest } from '../support/fake-github/index.js';
import { sendGitHubWebhook, startServe, type ServeProcess } from '../support/serve-process.js';
import { issueCommentPayload } from './github-payloads.js';
import { createCliFixture, GITHUB_TOKEN, LLM_KEY, type CliFixture } from './cli-fixture.js';

export const WEBHOOK_SECRET = 'whsec-e2e-secret-0123456789';
export const REVIEWER = 'review-bot';
export const WORKER = 'work-bot';
export const ALICE = 'alice';

/** Everything a serve test needs. */
export interface ServeFixture extends CliFixture {
  llm: FakeLlm;
  server: ServeProcess;
  pr7: GitHubPullRequest;
  pr8: GitHubPullRequest;
  env: NodeJS.ProcessEnv;
  closeAll(): Promise<void>;
}

/** The text of every message of an LLM request. */
export function requestText(request: RecordedLlmRequest): string {
  return [request.system, ...request.messages.map((m) => m.text)].join('\n');
}

/**
 * The `job-<tag>` marker of the requester's instructions in the newest user message (the existing
 * comments quoted in the prompt hold other jobs' markers).
 */
export function jobTag(request: RecordedLlmRequest): string | undefined {
  const users = request.messages.filter((m) => m.role === 'user');
  return /kind="request">\s*job-([A-Za-z0-9]+)/.exec(users[users.length - 1]?.text ?? '')?.[1];
}

/** A reply whose final text is a valid review with no inline finding. */
export function summaryReply(summary: string, delayMs = 0): ScriptedReply {
  return {
    text: JSON.stringify({ summary, comments: [] }),
    delayMs,
    usage: { inputTokens: 100, outputTokens: 20 },
  };
}

/** Starts the fakes and `reviewbot serve` (extra env overrides the defaults). */
export async function createServeFixture(extraEnv: NodeJS.ProcessEnv = {}): Promise<ServeFixture> {
  const fx = await createCliFixture();
  const pr8 = (await fx.github.addPullRequest({
    owner: 'acme',
    repo: 'widgets',
    number: 8,
    bareRepoPath: fx.scenario.bareRepoPath,
    base: fx.scenario.base,
    head: fx.scenario.head,
    title: 'Second pull request',
  })) as GitHubPullRequest;
  const pr7 = (await (
    await fetch(`${fx.github.url}/repos/acme/widgets/pulls/7`, {
      headers: { authorization: `token ${GITHUB_TOKEN}` },
    })
  ).json()) as GitHubPullRequest;
  const llm = await startFakeAnthropic({ apiKey: LLM_KEY });
  const env: NodeJS.ProcessEnv = {
    CODEHOST_TOKEN: GITHUB_TOKEN,
    CODEHOST_API_URL: fx.github.url,
    CODEHOST_WEBHOOK_SECRET: WEBHOOK_SECRET,
    REVIEWER_BOT_USERNAME: REVIEWER,
    WORKER_BOT_USERNAME: WORKER,
    ALLOWED_USERS: `${ALICE},bob`,
    AGENT_PROVIDER: 'anthropic',
    AGENT_MODEL: 'claude-test',
    ANTHROPIC_API_KEY: LLM_KEY,
    ANTHROPIC_BASE_URL: llm.url,
    WORKSPACE_BASE_DIR: fx.baseDir,
    CLEANUP_INTERVAL_HOURS: '0',
    HOME: fx.root,
    ...extraEnv,
  };
  const server = await startServe(env);
  return {
    ...fx,
    llm,
    server,
    pr7,
    pr8,
    env,
    async closeAll() {
      await server.stop();
      await llm.close();
      await fx.close();
    },
  };
}

/** Polls `check` every 50 ms until it returns a truthy value or `timeoutMs` passes. */
export async function waitFor<T>(
  check: () => T | undefined | false,
  timeoutMs = 20_000,
  what = 'condition',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Writes a comment on pull request `pr` as `login` — stored in the fake GitHub like a real comment
 * (so reactions and replies find it) — and delivers its signed `issue_comment` webhook.
 */
export async function postComment(
  fx: ServeFixture,
  pr: number,
  body: string,
  login: string = ALICE,
  options: { deliveryId?: string } = {},
): Promise<Awaited<ReturnType<typeof sendGitHubWebhook>> & { commentId: number }> {
  const seeded = fx.github.addIssueComment({ owner: 'acme', repo: 'widgets', number: pr, body, user: login });
  const payload = issueCommentPayload({ repo: 'acme/widgets', pr, body, login, commentId: seeded.id });
  const res = await sendGitHubWebhook(fx.server.url, 'issue_comment', payload, {
    secret: WEBHOOK_SECRET,
    ...(options.deliveryId ? { deliveryId: options.deliveryId } : {}),
  });
  return { ...res, commentId: seeded.id };
}
