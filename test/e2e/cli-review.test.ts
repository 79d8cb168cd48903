/**
 * End to end: the built CLI, as a child process, reviews a real pull request served by the fake
 * GitHub (REST validated against GitHub's OpenAPI description, git over smart HTTP) with a scripted
 * model speaking the Anthropic Messages API or OpenAI Chat Completions.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeAnthropic, startFakeOpenAI, type FakeLlm } from '../support/fake-llm/index.js';
import { runCli } from '../support/run-cli.js';
import {
  createCliFixture,
  filesContaining,
  GITHUB_TOKEN,
  LLM_KEY,
  reviewLines,
  reviewScript,
  SECRET_NEXT_TO_WORKSPACE,
  type CliFixture,
} from './cli-fixture.js';

const protocols = [
  {
    name: 'anthropic',
    start: () => startFakeAnthropic({ apiKey: LLM_KEY }),
    env: (llm: FakeLlm) => ({
      AGENT_PROVIDER: 'anthropic',
      ANTHROPIC_API_KEY: LLM_KEY,
      ANTHROPIC_BASE_URL: llm.url,
    }),
  },
  {
    name: 'openai',
    start: () => startFakeOpenAI({ apiKey: LLM_KEY }),
    env: (llm: FakeLlm) => ({
      AGENT_PROVIDER: 'openai',
      OPENAI_API_KEY: LLM_KEY,
      OPENAI_BASE_URL: `${llm.url}/v1`,
    }),
  },
] as const;

describe.each(protocols)('reviewbot review over $name', (protocol) => {
  let fx: CliFixture;
  let llm: FakeLlm;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    fx = await createCliFixture();
    llm = await protocol.start();
    env = {
      CODEHOST_TOKEN: GITHUB_TOKEN,
      CODEHOST_API_URL: fx.github.url,
      WORKSPACE_BASE_DIR: fx.baseDir,
      AGENT_MODEL: 'test-model',
      HOME: fx.root,
      LOG_LEVEL: 'debug',
      ...protocol.env(llm),
    };
  });
  afterAll(async () => {
    await llm?.close();
    await fx?.close();
  });

  it('--dry-run prints the review and sends no write request', async () => {
    llm.setScript(reviewScript(fx.scenario));
    const result = await runCli(
      ['review', 'acme/widgets#7', '--dry-run', '--prompt', 'focus on constants'],
      env,
    );
    expect(result.stderr).not.toMatch(/reviewbot: /);
    expect(result.code).toBe(0);
    const lines = reviewLines(fx.scenario);
    expect(result.stdout).toContain('Review of acme/widgets#7 "Tune the service constants"');
    expect(result.stdout).toContain(`${lines.right.path}:${lines.right.line} (RIGHT)`);
    expect(result.stdout).toContain(`${lines.left.path}:${lines.left.line} (LEFT)`);
    expect(result.stdout).toContain(
      `${lines.range.path}:${lines.range.startLine}-${lines.range.line} (RIGHT)`,
    );
    expect(result.stdout).toContain('export const v3 = THREE_HUNDRED;');
    expect(result.stdout).toMatch(/Notes not in the diff \(1\)[\s\S]*Unrelated: this file lacks tests\./);
    expect(result.stdout).toMatch(/4500 input \+ 380 output tokens/);
    expect(result.stdout).toContain('Not posted (--dry-run).');
    // Progress on stderr: clone, diff, each turn and tool call.
    expect(result.stderr).toMatch(/cloned .*pr-7/);
    expect(result.stderr).toMatch(/agent turn 1\/30/);
    expect(result.stderr).toMatch(/→ Grep/);

    expect(fx.github.writeRequests()).toEqual([]);
    expect(fx.github.violations).toEqual([]);
    // The prompt carried the user's instructions and the annotated diff, fenced as data.
    const first = llm.requests[0]!;
    const userText = first.messages.map((m) => m.text).join('\n');
    expect(userText).toContain('focus on constants');
    expect(userText).toMatch(/<untrusted-data-[0-9a-f]+ kind="pull-request">\nTune the service constants/);
    expect(first.toolNames.sort()).toEqual(['Glob', 'Grep', 'Read', 'submit_review']);
  });

  it('refuses reads outside the workspace with a tool error and no content', async () => {
    // The second request carries the results of the three escape attempts from the dry run above.
    const escape = llm.requests[2]!.toolResults;
    expect(escape).toHaveLength(3);
    const expected = [
      /path leaves the workspace/,
      /absolute paths are not allowed/,
      /access to \.git is not allowed/,
    ];
    for (const [i, r] of escape.entries()) {
      if (protocol.name === 'anthropic') expect(r.isError).toBe(true);
      expect(r.content).toMatch(expected[i]!);
      expect(r.content).not.toContain(SECRET_NEXT_TO_WORKSPACE);
      expect(r.content).not.toMatch(/root:x:0:0/);
      expect(r.content).not.toContain('[remote "origin"]');
    }
    // The legitimate Read returned the file's lines.
    const explore = llm.requests[1]!.toolResults;
    expect(explore.find((r) => r.toolName === 'Read' || r.content.includes('v3'))?.content).toContain(
      'export const v3 = 300;',
    );
  });

  it('posts exactly one review with the right lines and sides, the off-diff finding in its body', async () => {
    llm.setScript(reviewScript(fx.scenario));
    const result = await runCli(['review', 'https://github.com/acme/widgets/pull/7'], env);
    expect(result.stderr).not.toMatch(/reviewbot: /);
    expect(result.code).toBe(0);
    expect(fx.github.reviews).toHaveLength(1);
    const review = fx.github.reviews[0]!;
    expect(review.state).toBe('COMMENTED');
    expect(review.commit_id).toBe(fx.scenario.headSha);
    expect(review.body).toContain('The constants change looks deliberate');
    expect(review.body).toMatch(/Additional notes \(not in diff\)[\s\S]*Unrelated: this file lacks tests\./);
    const lines = reviewLines(fx.scenario);
    const comments = fx.github.reviewComments
      .filter((c) => c.pull_request_review_id === review.id)
      .map((c) => ({
        path: c.path,
        line: c.line,
        side: c.side,
        start_line: c.start_line ?? null,
        body: c.body,
      }));
    expect(comments).toHaveLength(3);
    expect(comments).toContainEqual(
      expect.objectContaining({
        path: lines.right.path,
        line: lines.right.line,
        side: 'RIGHT',
        start_line: null,
      }),
    );
    expect(comments.find((c) => c.side === 'RIGHT' && c.path === lines.right.path)?.body).toContain(
      '```suggestion\nexport const v3 = THREE_HUNDRED;\n```',
    );
    expect(comments).toContainEqual(
      expect.objectContaining({ path: lines.left.path, line: lines.left.line, side: 'LEFT' }),
    );
    expect(comments).toContainEqual(
      expect.objectContaining({
        path: lines.range.path,
        line: lines.range.line,
        start_line: lines.range.startLine,
      }),
    );
    expect(result.stdout).toMatch(/Posted as a review: http/);
    expect(fx.github.violations).toEqual([]);
  });

  it('drops findings the bot already posted and prints --json', async () => {
    llm.setScript(reviewScript(fx.scenario));
    const result = await runCli(['review', 'acme/widgets#7', '--dry-run', '--json'], env);
    expect(result.code).toBe(0);
    const parsed = JSON.parse(result.stdout) as Record<string, unknown>;
    expect(parsed.posted).toBe(false);
    // The three inline findings were posted by the previous test, so they are repeats now.
    expect(parsed.findings).toEqual([]);
    expect(parsed.rejected).toEqual([
      expect.objectContaining({
        path: reviewLines(fx.scenario).offDiff.path,
        side: 'RIGHT',
        body: 'Unrelated: this file lacks tests.',
      }),
    ]);
    expect(parsed).toMatchObject({ model: 'test-model', usage: { inputTokens: 4500, outputTokens: 380 } });
    expect(typeof parsed.sessionId).toBe('string');
    expect(typeof parsed.durationMs).toBe('number');
  });

  it('--trigger lifecycle on the head already reviewed: exit 0, no model call, nothing posted (§13)', async () => {
    const before = { llm: llm.requests.length, writes: fx.github.writeRequests().length };
    const since = `nothing new to review since ${fx.scenario.headSha.slice(0, 12)}`;
    const text = await runCli(['review', 'acme/widgets#7', '--trigger', 'lifecycle'], env);
    expect(text.code).toBe(0);
    expect(text.stderr).toContain(`reviewbot: ${since}: no agent ran, nothing posted`);
    expect(text.stdout).toBe('');
    const json = await runCli(['review', 'acme/widgets#7', '--trigger', 'lifecycle', '--json'], env);
    expect(json.code).toBe(0);
    expect(json.stderr).toContain(since);
    expect(JSON.parse(json.stdout)).toMatchObject({ posted: false, findings: [], body: '' });
    expect(llm.requests.length).toBe(before.llm);
    // Not even a "Nothing to review" comment.
    expect(fx.github.writeRequests().length).toBe(before.writes);
    expect(fx.github.violations).toEqual([]);
  });

  it('keeps the token out of every workspace file and every output line', async () => {
    const workspace = path.join(fx.baseDir, 'github', 'acme', 'widgets', 'pr-7');
    expect(filesContaining(workspace, GITHUB_TOKEN)).toEqual([]);
    expect(filesContaining(workspace, LLM_KEY)).toEqual([]);
    llm.setScript(reviewScript(fx.scenario));
    const result = await runCli(['review', 'acme/widgets#7', '--dry-run'], env);
    expect(result.code).toBe(0);
    for (const text of [result.stdout, result.stderr, ...llm.requests.map((r) => JSON.stringify(r.body))]) {
      expect(text).not.toContain(GITHUB_TOKEN);
      expect(text).not.toContain(LLM_KEY);
    }
    expect(filesContaining(fx.baseDir, GITHUB_TOKEN)).toEqual([]);
  });
});

describe('reviewbot review failures', () => {
  let fx: CliFixture;
  let llm: FakeLlm;
  beforeAll(async () => {
    fx = await createCliFixture();
    llm = await startFakeAnthropic({ apiKey: LLM_KEY, script: [] });
  });
  afterAll(async () => {
    await llm?.close();
    await fx?.close();
  });
  const env = () => ({
    CODEHOST_TOKEN: GITHUB_TOKEN,
    CODEHOST_API_URL: fx.github.url,
    WORKSPACE_BASE_DIR: fx.baseDir,
    AGENT_PROVIDER: 'anthropic',
    ANTHROPIC_API_KEY: LLM_KEY,
    ANTHROPIC_BASE_URL: llm.url,
  });

  it.each([
    ['acme/widgets'],
    ['acme/widgets#0'],
    ['acme#3'],
    ['https://github.com/acme/widgets/issues/7'],
    ['a/b/c#1'],
  ])('exits 2 on the bad reference %j without any network call', async (ref) => {
    const before = fx.github.requests.length + fx.github.gitRequests.length;
    const result = await runCli(['review', ref], env());
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/expected owner\/repo#N/);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stdout).toBe('');
    expect(fx.github.requests.length + fx.github.gitRequests.length).toBe(before);
    expect(llm.requests).toHaveLength(0);
  });

  it('exits 2 naming the key on a bad configuration value', async () => {
    const result = await runCli(['review', 'acme/widgets#7'], { ...env(), AGENT_MAX_TURNS: 'many' });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/agent\.max_turns \(from AGENT_MAX_TURNS\)/);
  });

  it('exits 2 on --trigger with --local or an unknown trigger', async () => {
    const local = await runCli(['review', '--local', '--trigger', 'lifecycle'], env());
    expect(local.code).toBe(2);
    expect(local.stderr).toMatch(/--local has no review memory: drop --trigger/);
    const unknown = await runCli(['review', 'acme/widgets#7', '--trigger', 'push'], env());
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/--trigger/);
  });

  it('exits 2 on an unknown option', async () => {
    const result = await runCli(['review', 'acme/widgets#7', '--frobnicate'], env());
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/unknown option/);
  });

  it('exits 1 with a clear message when GitHub answers 401', async () => {
    const result = await runCli(['review', 'acme/widgets#7'], {
      ...env(),
      CODEHOST_TOKEN: 'ghp_wrongToken000000000000',
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/GitHub rejected the credentials .*401.*CODEHOST_TOKEN/);
    expect(result.stderr).not.toContain('ghp_wrongToken000000000000');
    expect(llm.requests).toHaveLength(0);
  });

  it('exits 1 and posts nothing when the model provider fails', async () => {
    llm.setScript([
      {
        error: {
          status: 400,
          body: { type: 'error', error: { type: 'invalid_request_error', message: 'prompt is too long' } },
        },
      },
    ]);
    const result = await runCli(['review', 'acme/widgets#7'], env());
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/LLM provider anthropic returned 400.*prompt is too long/);
    expect(fx.github.writeRequests()).toEqual([]);
  });
});
