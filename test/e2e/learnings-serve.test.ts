/**
 * End to end, learnings in `reviewbot serve` (CONTRACT §20) on GitHub (file store and Redis) and
 * GitLab: `learn` in a bot finding's thread (answered in that thread with the id, the finding's path
 * as glob, no model call), `remember` in the conversation, a user outside allowed_users ignored, a
 * thumbs-down found by the next review and honoured on a later pull request of the repository,
 * learnings given to the model as fenced data, surviving a server restart, `forget`, the CLI.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScriptedReply } from '../support/fake-llm/index.js';
import { startFakeAnthropic, type FakeLlm } from '../support/fake-llm/index.js';
import { startRedis, type RedisServer } from '../support/redis-server.js';
import { runCli } from '../support/run-cli.js';
import { startServe, type ServeProcess } from '../support/serve-process.js';
import { githubLearnings, gitlabLearnings, type LearningsDriver, type Thread } from './learnings-fixture.js';
import { CALC, createMemoryRepo, LLM_KEY, tempRoot, type MemoryRepo } from './memory-fixture.js';
import { waitFor } from './serve-fixture.js';

const FINDING = 'This loop bound is wrong.';
const LEARNED = 'Loop bounds in calc are checked by the fuzzer.';
const CENTS = 'Money is always in integer cents.';
const DISMISSED_NOTICE = '_1 finding matching a dismissed one was not posted._';
/** What a dismissal of the finding on `CALC.path` reads as, in the prompt and in `learnings list`. */
const dismissalLine = new RegExp(
  `Dismissed finding at ${CALC.path.replace(/\./g, '\\.')} \\(fingerprint [0-9a-f]{16}\\)`,
);

function submit(summary: string, withFinding: boolean): ScriptedReply[] {
  const comments = withFinding ? [{ path: CALC.path, line: CALC.loopLine.v1, body: FINDING }] : [];
  return [{ toolCalls: [{ name: 'submit_review', input: { summary, comments } }] }];
}

let redis: RedisServer;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  await redis?.stop();
});

describe.each([
  ['GitHub, file store', githubLearnings, false],
  ['GitHub, Redis store', githubLearnings, true],
  ['GitLab, file store', gitlabLearnings, false],
] as const)('learnings on %s', (_name, makeDriver, useRedis) => {
  let root: ReturnType<typeof tempRoot>;
  let driver: LearningsDriver;
  let llm: FakeLlm;
  let server: ServeProcess;
  let repo: MemoryRepo;
  let env: NodeJS.ProcessEnv;
  let thread: Thread;
  let learnedId = '';
  let centsId = '';

  const lastPrompt = () =>
    llm.requests
      .at(-1)!
      .messages.map((m) => m.text)
      .join('\n');
  const review = async (n: number, summary: string, withFinding: boolean) => {
    llm.setScript(submit(summary, withFinding));
    expect(await driver.comment(server.url, n, '@review-bot please review', 'alice')).toMatchObject({
      status: 'accepted',
    });
    return waitFor(() => driver.botBodies(n).find((b) => b.includes(summary)), 60_000, summary);
  };

  beforeAll(async () => {
    root = tempRoot();
    repo = createMemoryRepo(root.path, 'acme/calc');
    repo.push1();
    driver = await makeDriver();
    await driver.addPullRequest(repo, 3);
    llm = await startFakeAnthropic({ apiKey: LLM_KEY });
    env = {
      ...driver.env,
      REVIEWER_BOT_USERNAME: 'review-bot',
      ALLOWED_USERS: 'alice,bob',
      AGENT_PROVIDER: 'anthropic',
      AGENT_MODEL: 'claude-test',
      ANTHROPIC_API_KEY: LLM_KEY,
      ANTHROPIC_BASE_URL: llm.url,
      WORKSPACE_BASE_DIR: `${root.path}/workspaces`,
      CLEANUP_INTERVAL_HOURS: '0',
      HOME: root.path,
      ...(useRedis ? { STORE_URL: redis.url } : {}),
    };
    server = await startServe(env);
  });
  afterAll(async () => {
    await server?.stop();
    await llm?.close();
    await driver?.close();
    root?.remove();
  });

  it('learn in a finding thread: a reply there with the id and the path, no model call', async () => {
    await review(3, 'First pass.', true);
    thread = await waitFor(() => driver.botThreads(3)[0], 10_000, 'the finding thread');
    const calls = llm.requests.length;
    expect(await driver.reply(server.url, 3, thread, `@review-bot learn ${LEARNED}`, 'alice')).toMatchObject({
      status: 'accepted',
    });
    const reply = await waitFor(
      () => driver.botReplies(thread).find((b) => b.includes('Learned')),
      30_000,
      'reply',
    );
    const match = /Learned `([0-9a-f]{8})` for files matching `src\/calc\.ts`/.exec(reply);
    expect(match).not.toBeNull();
    learnedId = match![1]!;

    // In the conversation: no glob; a user outside allowed_users is ignored.
    expect(
      await driver.comment(server.url, 3, '@review-bot learn mallory was here', 'mallory'),
    ).toMatchObject({
      status: 'ignored',
    });
    expect(await driver.comment(server.url, 3, `@Review-Bot Remember: ${CENTS}`, 'bob')).toMatchObject({
      status: 'accepted',
    });
    const second = await waitFor(
      () => driver.botBodies(3).find((b) => /Learned `[0-9a-f]{8}`: /.test(b)),
      30_000,
      'conversation reply',
    );
    centsId = /Learned `([0-9a-f]{8})`/.exec(second)![1]!;
    expect(llm.requests.length).toBe(calls);
    expect(driver.violations()).toEqual([]);
  });

  it('a thumbs-down is stored by the next review and honoured on a later pull request', async () => {
    driver.thumbsDown(thread, 'alice');
    await review(3, 'Second pass.', false);
    const prompt = lastPrompt();
    expect(prompt).toMatch(/kind="learnings">[\s\S]*Loop bounds in calc are checked by the fuzzer\./);
    expect(prompt).toContain(CENTS);
    const section = /kind="learnings">([\s\S]*?)<\/untrusted-data-/.exec(prompt)![1]!;
    expect(section).not.toContain('mallory was here');

    await driver.addPullRequest(repo, 4);
    const body = await review(4, 'Fourth PR pass.', true);
    expect(body).toContain(DISMISSED_NOTICE);
    expect(driver.botThreads(4)).toEqual([]);
    // The model is told where the dismissed finding was, never what it said (the model's own words,
    // steered by the pull request, do not become a learning).
    const dismissed = /kind="learnings">([\s\S]*?)<\/untrusted-data-/.exec(lastPrompt())![1]!;
    expect(dismissed).toMatch(dismissalLine);
    expect(dismissed).not.toContain(FINDING);
    // §23: the server counts what it saw: the one finding posted (the first pass; the fourth pull
    // request's was dropped as dismissed), and its dismissal stored by the second pass.
    const metrics = await (await fetch(`${server.url}/metrics`)).text();
    const count = (outcome: string) =>
      new RegExp(
        `^reviewbot_findings_total\\{platform="${driver.name}",severity="P2",outcome="${outcome}"\\} (\\d+)$`,
        'm',
      ).exec(metrics)?.[1];
    expect([count('posted'), count('dismissed'), count('addressed')]).toEqual(['1', '1', undefined]);
    expect(driver.violations()).toEqual([]);
  });

  it('learnings survive a restart; forget removes one; the CLI reads the same store', async () => {
    await server.stop();
    server = await startServe(env);
    const body = await review(4, 'After restart.', true);
    expect(body).toContain(DISMISSED_NOTICE);
    expect(lastPrompt()).toContain(CENTS);

    expect(await driver.comment(server.url, 4, `@review-bot forget ${centsId}`, 'alice')).toMatchObject({
      status: 'accepted',
    });
    await waitFor(
      () => driver.botBodies(4).some((b) => b.includes(`Forgot learning \`${centsId}\``)),
      30_000,
      'forget',
    );
    const listed = await runCli(['learnings', 'list', driver.scope, '--json'], env);
    const ids = (JSON.parse(listed.stdout) as { learnings: { id: string; source: string }[] }).learnings;
    expect(ids.map((l) => l.id)).toContain(learnedId);
    expect(ids.map((l) => l.id)).not.toContain(centsId);
    expect(ids.filter((l) => l.source === 'dismissal')).toHaveLength(1);
    const plain = await runCli(['learnings', 'list', driver.scope], env);
    expect(plain.stdout).toMatch(dismissalLine);
    expect(plain.stdout).not.toContain(FINDING);

    // `reviewbot review --json` applies the same learnings and names them.
    llm.setScript(submit('CLI pass.', true));
    const cli = await runCli(
      ['review', driver.ref(4), '--platform', driver.name, '--json', '--dry-run'],
      env,
    );
    expect(cli.code).toBe(0);
    const result = JSON.parse(cli.stdout) as {
      learningsApplied: string[];
      dismissed: unknown[];
      findings: unknown[];
    };
    expect(result.learningsApplied).toContain(learnedId);
    expect(result.findings).toEqual([]);
    expect(result.dismissed).toHaveLength(1);
    expect(driver.violations()).toEqual([]);
  });
});
