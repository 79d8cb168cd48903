/**
 * End to end, a GitLab bot token with the Reporter role (the built CLI against the fake GitLab,
 * which refuses by role as GitLab does): the review posts, but GitLab answers 403 to resolving the
 * thread the changes addressed, so the body says that thread stays open, and it does.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeAnthropic, type FakeLlm, type ScriptedReply } from '../support/fake-llm/index.js';
import { runCli } from '../support/run-cli.js';
import {
  CALC,
  createMemoryRepo,
  gitlabDriver,
  LLM_KEY,
  tempRoot,
  type MemoryDriver,
  type MemoryRepo,
} from './memory-fixture.js';

function submit(
  summary: string,
  comments: Array<{ path: string; line: number; body: string }>,
): ScriptedReply[] {
  return [{ toolCalls: [{ name: 'submit_review', input: { summary, comments } }] }];
}

describe('review memory with a Reporter token on GitLab (CLI)', () => {
  let root: ReturnType<typeof tempRoot>;
  let driver: MemoryDriver;
  let llm: FakeLlm;
  let repo: MemoryRepo;
  let env: NodeJS.ProcessEnv;

  async function review(script: ScriptedReply[]) {
    llm.setScript(script);
    const run = await runCli(['review', driver.ref(1), '--platform', 'gitlab', '--json'], env);
    return { run, result: run.code === 0 ? (JSON.parse(run.stdout) as { body: string }) : undefined };
  }

  beforeAll(async () => {
    root = tempRoot();
    driver = await gitlabDriver('reporter');
    llm = await startFakeAnthropic({ apiKey: LLM_KEY });
    repo = createMemoryRepo(root.path, 'acme/calc');
    repo.push1();
    await driver.addPullRequest(repo, 1, 'acme/calc');
    env = {
      ...driver.env,
      WORKSPACE_BASE_DIR: `${root.path}/workspaces`,
      AGENT_PROVIDER: 'anthropic',
      AGENT_MODEL: 'test-model',
      ANTHROPIC_API_KEY: LLM_KEY,
      ANTHROPIC_BASE_URL: llm.url,
      HOME: root.path,
    };
  });
  afterAll(async () => {
    await llm?.close();
    await driver?.close();
    root?.remove();
  });

  it('posts the review, leaves the addressed thread open and says so in the body', async () => {
    const first = await review(
      submit('One problem.', [
        { path: CALC.path, line: CALC.divisionLine.v1, body: 'Division by zero when `b` is 0.' },
      ]),
    );
    expect(first.run.code).toBe(0);
    expect(driver.botThreads(1)).toHaveLength(1);

    repo.push2();
    repo.push3();
    const { run, result } = await review(submit('The division is guarded now.', []));
    // No error line; the refusals are warnings the person at the CLI sees.
    expect(run.stderr).not.toMatch(/^reviewbot: (?!warning: )/m);
    expect(run.stderr).toMatch(/^reviewbot: warning: could not resolve an addressed thread: .*403/m);
    expect(run.code).toBe(0);
    // GitLab refused: the thread is still open.
    expect(driver.botThreads(1).map((t) => t.resolved)).toEqual([false]);
    // The review was posted anyway, and its body says the thread could not be resolved.
    const posted = driver.botBodies(1).at(-1)!;
    expect(posted).toContain('The division is guarded now.');
    expect(posted).toMatch(
      /### Addressed since the last review\n\n- `src\/calc\.ts(:\d+)?`: (\*\*P\d\*\* )?Division by zero when `b` is 0\. \(could not be resolved: the thread stays open\)/,
    );
    expect(posted).toContain("One thread could not be resolved: the bot's account may lack the permission");
    expect(result?.body).toBe(posted);
    // The 403 is GitLab's answer, not a request the fake could not serve.
    expect(driver.violations()).toEqual([]);
  });
});
