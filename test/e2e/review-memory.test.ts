/**
 * End to end, review memory (CONTRACT §13, §14) with the built CLI on every platform: one pull
 * request through three pushes and a force-push, reviewed each time by a scripted model.
 * (a) push 2 is reviewed incrementally: the prompt's diff holds push 2's hunks only;
 * (b) the model re-raises push 1's finding in other words on code that moved down 5 lines: nothing
 *     new is posted, `repeats` has it and the body counts it;
 * (c) push 3 edits the line of an open finding: its thread is resolved and listed in the body;
 * (d) a force-push gets a full review that says so;
 * rules come from the base commit (a hostile head `.reviewbot.yaml` has no effect), guideline files
 * reach the prompt fenced, and an invalid `.reviewbot.yaml` still gets a review whose body names
 * the key. Prints the measured figure: threads the bot opened for one underlying problem.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeAnthropic, type FakeLlm, type ScriptedReply } from '../support/fake-llm/index.js';
import { runCli } from '../support/run-cli.js';
import {
  CALC,
  createMemoryRepo,
  EXTRA,
  GENERATED,
  githubDriver,
  gitlabDriver,
  LLM_KEY,
  tempRoot,
  type MemoryDriver,
  type MemoryRepo,
} from './memory-fixture.js';
import { azureDevOpsDriver } from './memory-fixture-azure-devops.js';
import { bitbucketDriver } from './memory-fixture-bitbucket.js';
import { bitbucketServerDriver } from './memory-fixture-bitbucket-server.js';
import { giteaDriver } from './memory-fixture-gitea.js';

interface Comment {
  path: string;
  line: number;
  body: string;
}

function submit(summary: string, comments: Comment[]): ScriptedReply[] {
  return [{ toolCalls: [{ name: 'submit_review', input: { summary, comments } }] }];
}

/** The diff section of a review prompt (between its `kind="diff"` fence markers). */
function diffOf(prompt: string): string {
  const match = /kind="diff">\n([\s\S]*?)\n<\/untrusted-data-/.exec(prompt);
  if (!match?.[1]) throw new Error('no diff section in the prompt');
  return match[1];
}

interface Result {
  summary: string;
  body: string;
  findings: Comment[];
  repeats?: Comment[];
  incremental?: { sinceSha: string | null; mode: string; reason?: string };
  receipt?: { files: { skipped: Array<{ path: string; reason: string }> } };
  posted: boolean;
}

const LOOP_WORDS = /loop bound|reads one past/i;

describe.each([
  { name: 'github', start: githubDriver },
  { name: 'gitlab', start: gitlabDriver },
  { name: 'gitea 1.26+', start: () => giteaDriver(true) },
  { name: 'gitea before 1.26 and forgejo (resolve answers 404)', start: () => giteaDriver(false) },
  { name: 'bitbucket cloud', start: bitbucketDriver },
  { name: 'bitbucket data center', start: bitbucketServerDriver },
  { name: 'azure devops', start: azureDevOpsDriver },
])('review memory on $name (CLI)', ({ start }) => {
  let root: ReturnType<typeof tempRoot>;
  let driver: MemoryDriver;
  let llm: FakeLlm;
  let repo: MemoryRepo;
  let env: NodeJS.ProcessEnv;
  const heads: string[] = [];

  /** Runs `reviewbot review --json` on PR 1 with `script`; returns the result and the run's prompt. */
  async function review(number: number, script: ScriptedReply[], extra: string[] = []) {
    llm.setScript(script);
    const before = llm.requests.length;
    const args = ['review', driver.ref(number), '--platform', driver.name, '--json', ...extra];
    const run = await runCli(args, env);
    expect(run.stderr).not.toMatch(/reviewbot: /);
    expect(run.code).toBe(0);
    const prompt = llm.requests[before]?.messages.at(-1)?.text ?? '';
    return { result: JSON.parse(run.stdout) as Result, prompt, calls: llm.requests.length - before };
  }

  beforeAll(async () => {
    root = tempRoot();
    driver = await start();
    llm = await startFakeAnthropic({ apiKey: LLM_KEY });
    repo = createMemoryRepo(root.path, 'acme/calc');
    heads.push(repo.push1());
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

  it('push 1: a full review with the base rules and guidelines, never the head rules', async () => {
    const { result, prompt } = await review(
      1,
      submit('Two problems.', [
        {
          path: CALC.path,
          line: CALC.loopLine.v1,
          body: 'The loop bound reads one past the end of `items`.',
        },
        { path: CALC.path, line: CALC.divisionLine.v1, body: 'Division by zero when `b` is 0.' },
      ]),
    );
    expect(result.incremental).toEqual({ sinceSha: null, mode: 'full' });
    expect(result.findings).toHaveLength(2);
    expect(driver.botThreads(1)).toHaveLength(2);
    // Rules of the base commit reach the prompt fenced; the head's hostile file changes nothing.
    expect(prompt).toMatch(/kind="review-instructions">\nBASE-RULE: check numeric edge cases\./);
    expect(prompt).toMatch(/kind="guidelines">\n# Agents\n\nGUIDELINE-MARKER/);
    expect(prompt.replace(diffOf(prompt), '')).not.toContain('HOSTILE-RULE');
    expect(diffOf(prompt)).toContain('=== src/calc.ts'); // `ignore: ["src/**"]` of the head not applied
    expect(driver.botBodies(1).at(-1)).toMatch(new RegExp(`<!-- reviewbot:review head=${heads[0]} at=`));
    expect(driver.violations()).toEqual([]);
  });

  it('push 2: incremental; a re-raised finding on moved code is not posted again', async () => {
    heads.push(repo.push2());
    const { result, prompt } = await review(
      1,
      submit('The header grew; one new point.', [
        {
          path: CALC.path,
          line: CALC.loopLine.v2,
          body: 'Off-by-one: `i <= items.length` reads past the end.',
        },
        { path: EXTRA.path, line: 2, body: 'Name the factor 2.' },
      ]),
    );
    // (a) only push 2's hunks are in the prompt's diff.
    const diff = diffOf(prompt);
    expect(diff).toContain('// PUSH2 line 1');
    expect(diff).toContain('PUSH2_MARKER');
    expect(diff).not.toContain('i <= items.length');
    expect(diff).not.toContain('return a / b');
    expect(diff).not.toContain('.reviewbot.yaml');
    // A generated file the pull request added stays skipped when a later push changes it.
    expect(diff).not.toContain('PUSH2_GENERATED');
    expect(result.receipt?.files.skipped).toContainEqual(expect.objectContaining({ path: GENERATED.path }));
    expect(result.incremental).toEqual({ sinceSha: heads[0], mode: 'incremental' });
    // (b) the repeat is dropped, counted, and opens no thread.
    expect(result.repeats).toEqual([expect.objectContaining({ path: CALC.path, line: CALC.loopLine.v2 })]);
    expect(result.findings.map((f) => f.path)).toEqual([EXTRA.path]);
    expect(result.body).toContain('1 finding raised in an earlier review was not repeated.');
    expect(driver.botThreads(1).map((t) => t.path)).toEqual([CALC.path, CALC.path, EXTRA.path]);
    expect(driver.violations()).toEqual([]);
  });

  it('push 3: the open finding whose line changed is resolved and listed', async () => {
    heads.push(repo.push3());
    // A dry run lists the addressed thread but resolves nothing.
    const dry = await review(1, submit('The division is guarded now.', []), ['--dry-run']);
    expect(dry.result.body).toContain('### Addressed since the last review');
    expect(driver.botThreads(1).filter((t) => t.resolved)).toEqual([]);
    const { result } = await review(1, submit('The division is guarded now.', []));
    expect(result.incremental).toEqual({ sinceSha: heads[1], mode: 'incremental' });
    const threads = driver.botThreads(1);
    const division = threads.find((t) => t.body.includes('Division by zero'))!;
    const loop = threads.find((t) => LOOP_WORDS.test(t.body))!;
    expect(division.resolved).toBe(true);
    expect(loop.resolved).toBe(false);
    expect(threads.filter((t) => t.resolved)).toHaveLength(1);
    expect(result.body).toMatch(
      /### Addressed since the last review\n\n- `src\/calc\.ts(:\d+)?`: \*\*P2\*\* Division by zero/,
    );
    expect(driver.botBodies(1).at(-1)).toContain('Addressed since the last review');

    // The measured figure: threads the bot opened for the off-by-one loop across three pushes.
    const perProblem = threads.filter((t) => LOOP_WORDS.test(t.body) || t.body.includes('Off-by-one')).length;
    console.log(
      JSON.stringify({
        metric: 'review_memory_threads_per_problem',
        platform: driver.name,
        pushes: 3,
        value: perProblem,
      }),
    );
    expect(perProblem).toBe(1);
    expect(driver.violations()).toEqual([]);
  });

  it('a force-push gets a full review that says why, and repeats still drop', async () => {
    heads.push(repo.forcePush());
    // The terminal output says it too (a dry run: nothing posted).
    llm.setScript(
      submit('Full pass.', [{ path: CALC.path, line: CALC.loopLine.v2, body: 'This loop bound is wrong.' }]),
    );
    const human = await runCli(['review', driver.ref(1), '--platform', driver.name, '--dry-run'], env);
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/Full review: the previously reviewed head [0-9a-f]{12} is not an ancestor/);
    expect(human.stdout).toMatch(
      /Raised in an earlier review, not repeated \(1\)\n {2}\[P2\] src\/calc\.ts:13/,
    );
    const { result } = await review(
      1,
      submit('Full pass.', [{ path: CALC.path, line: CALC.loopLine.v2, body: 'This loop bound is wrong.' }]),
    );
    expect(result.incremental?.mode).toBe('full');
    expect(result.incremental?.sinceSha).toBe(heads[2]);
    expect(result.incremental?.reason).toMatch(/not an ancestor .*force-push or rebase/);
    expect(result.body).toMatch(
      /\*\*Full review:\*\* the previously reviewed head [0-9a-f]{12} is not an ancestor/,
    );
    expect(result.repeats).toHaveLength(1);
    expect(result.findings).toEqual([]);
    expect(driver.botThreads(1)).toHaveLength(3);
    expect(driver.violations()).toEqual([]);
  });

  it('asked again on the reviewed head, the review still runs (a person asked)', async () => {
    const { result, calls } = await review(1, submit('Nothing new.', []), ['--dry-run']);
    expect(calls).toBe(1);
    expect(result.incremental).toMatchObject({ sinceSha: heads[3], mode: 'full' });
  });

  it('an invalid .reviewbot.yaml still gets a review with defaults, and the body names the key', async () => {
    const broken = createMemoryRepo(
      root.path,
      'acme/broken',
      'review:\n  max_comment: 3\n  incremental: maybe\n',
    );
    broken.push1();
    await driver.addPullRequest(broken, 2, 'acme/broken');
    const { result, prompt } = await review(2, submit('Reviewed anyway.', []), ['--dry-run']);
    expect(result.summary).toBe('Reviewed anyway.');
    expect(result.body).toContain('.reviewbot.yaml was not applied');
    expect(result.body).toContain('unknown key `review.max_comment`');
    expect(result.body).toContain('`review.incremental`');
    expect(prompt).not.toContain('kind="review-instructions"');
  });
});
