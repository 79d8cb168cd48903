/**
 * The Action on Gitea Actions and Forgejo Actions (CONTRACT §17, issue 21 item 5): its entry point
 * (`dist/src/action/main.js`, what the composite step runs) started as a child process with the
 * environment act_runner / forgejo-runner give a step — `GITEA_ACTIONS` or `FORGEJO_ACTIONS`,
 * `GITHUB_SERVER_URL`, `GITHUB_API_URL` = `<server>/api/v1`, the workflow token, `INPUT_*` — and
 * `GITHUB_EVENT_PATH` holding a Gitea payload built like `modules/structs`; and the README's
 * copyable workflow, valid by SchemaStore's workflow schema (Gitea runs GitHub's syntax).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv } from 'ajv';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeGitea, type FakeGitea } from '../support/fake-gitea/index.js';
import { startFakeAnthropic, type FakeLlm } from '../support/fake-llm/index.js';
import { createDiffScenario, type DiffScenario } from '../support/git-fixtures.js';
import { runCli, type CliResult } from '../support/run-cli.js';
import { LLM_KEY, reviewScript } from './cli-fixture.js';
import {
  pullRequestCommentHook,
  pullRequestHook,
  type GiteaHookContext,
  type GiteaHookPullRequest,
} from '../support/fake-gitea/webhook-payloads.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const MAIN = path.join(ROOT, 'dist', 'src', 'action', 'main.js');
const TOKEN = 'gitea-workflow-token-5b1e0c';
const KEY = LLM_KEY;

const work = mkdtempSync(path.join(tmpdir(), 'rb-gitea-action-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const CTX: GiteaHookContext = {
  baseUrl: 'http://127.0.0.1:9',
  owner: 'acme',
  repo: 'widgets',
  sender: 'alice',
};
const PR: GiteaHookPullRequest = {
  number: 7,
  headBranch: 'feature',
  headSha: '3f786850e387550fdab836ed7e6dc881de23001b',
  baseBranch: 'main',
  baseSha: '89e6c98d92887913cadf06b2adb97f26cde4849b',
};

/** The step environment of a Gitea (or Forgejo) runner for `event` with `payload`. */
function giteaEnv(event: string, payload: unknown, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const eventPath = path.join(work, `event-${event}-${Math.random()}.json`);
  writeFileSync(eventPath, JSON.stringify(payload, null, 2));
  return {
    GITEA_ACTIONS: 'true',
    GITHUB_ACTIONS: 'true',
    CI: 'true',
    GITHUB_EVENT_NAME: event,
    GITHUB_EVENT_PATH: eventPath,
    GITHUB_REPOSITORY: 'acme/widgets',
    GITHUB_SERVER_URL: CTX.baseUrl,
    GITHUB_API_URL: `${CTX.baseUrl}/api/v1`,
    GITHUB_TOKEN: TOKEN,
    RUNNER_TEMP: work,
    HOME: work,
    INPUT_PROVIDER: 'anthropic',
    INPUT_KEY: KEY,
    ...extra,
  };
}

function runAction(env: NodeJS.ProcessEnv): Promise<CliResult> {
  return runCli([], env, { command: [process.execPath, MAIN] });
}

describe('the Action entry point on Gitea/Forgejo Actions, before any API call', () => {
  it('fails a fork pull request clearly, naming Gitea', async () => {
    const payload = pullRequestHook(CTX, { ...PR, headRepo: 'mallory/widgets' }, 'opened').payload;
    const result = await runAction(giteaEnv('pull_request', payload, { INPUT_KEY: '' }));
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(
      /^::error title=reviewbot::pull request #7 comes from the fork mallory\/widgets: Gitea gives pull_request workflows of forks no secrets/m,
    );
  });

  it('ignores a comment by someone who may not write to the repository (Forgejo runner)', async () => {
    const payload = pullRequestCommentHook(CTX, PR, { id: 5, body: '/review', author: 'eve.x' }).payload;
    const env = giteaEnv('issue_comment', payload, { GITEA_ACTIONS: '', FORGEJO_ACTIONS: 'true' });
    const result = await runAction(env);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      /^::notice title=reviewbot::comment by eve\.x ignored: only users who may write to the repository start a review/m,
    );
  });

  it('says so when a closed pull request is all there is', async () => {
    const result = await runAction(giteaEnv('pull_request', pullRequestHook(CTX, PR, 'closed').payload));
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      /^::notice title=reviewbot::nothing to review: pull request #7 was closed/m,
    );
  });

  it('needs the instance URL (exit 2)', async () => {
    const env = giteaEnv('pull_request', pullRequestHook(CTX, PR, 'opened').payload, {
      GITHUB_SERVER_URL: '',
      GITHUB_API_URL: '',
    });
    const result = await runAction(env);
    expect(result.code).toBe(2);
    expect(result.stdout).toMatch(/^::error title=reviewbot::GITHUB_SERVER_URL is not set/m);
    expect(result.stdout + result.stderr).not.toContain(TOKEN);
  });
});

describe('the Action entry point on Gitea Actions, reviewing through the fake Gitea', () => {
  let gitea: FakeGitea;
  let llm: FakeLlm;
  let scenario: DiffScenario;
  let ctx: GiteaHookContext;

  beforeAll(async () => {
    scenario = createDiffScenario(path.join(work, 'repos'), 'acme/widgets');
    // The workflow token's user: Gitea's Actions bot.
    gitea = await startFakeGitea({ token: TOKEN, username: 'gitea-actions' });
    gitea.addPullRequest({
      repo: 'acme/widgets',
      index: 7,
      bareRepoPath: scenario.bareRepoPath,
      headBranch: scenario.head,
      baseBranch: scenario.base,
      title: 'Tune the service constants',
    });
    llm = await startFakeAnthropic({ apiKey: LLM_KEY });
    ctx = { ...CTX, baseUrl: gitea.url };
  });
  afterAll(async () => {
    await llm?.close();
    await gitea?.close();
  });

  /** The runner's environment against the fake Gitea. */
  function envFor(event: string, payload: unknown, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
    const output = path.join(work, `output-${Math.random()}`);
    writeFileSync(output, '');
    return giteaEnv(event, payload, {
      GITHUB_SERVER_URL: gitea.url,
      GITHUB_API_URL: `${gitea.url}/api/v1`,
      GITHUB_OUTPUT: output,
      GITHUB_STEP_SUMMARY: path.join(work, 'summary.md'),
      INPUT_MODEL: 'test-model',
      ANTHROPIC_BASE_URL: llm.url,
      ...extra,
    });
  }

  it('a pull_request event: one review with inline comments, posted with the workflow token', async () => {
    llm.setScript(reviewScript(scenario));
    const payload = pullRequestHook(
      ctx,
      {
        ...PR,
        headBranch: scenario.head,
        headSha: scenario.headSha,
        baseBranch: scenario.base,
        baseSha: scenario.baseSha,
      },
      'opened',
    ).payload;
    const runEnv = envFor('pull_request', payload);
    const result = await runAction(runEnv);
    expect(result.stdout).not.toMatch(/::error/);
    expect(result.code).toBe(0);
    expect(gitea.reviews).toHaveLength(1);
    expect(gitea.reviews[0]).toMatchObject({ author: 'gitea-actions', commitId: scenario.headSha });
    expect(gitea.reviews[0]!.body).toContain('The constants change looks deliberate');
    expect(
      gitea.codeComments.filter((c) => c.reviewId === gitea.reviews[0]!.id).length,
    ).toBeGreaterThanOrEqual(2);
    expect(result.stdout).toContain('Review of acme/widgets#7 "Tune the service constants"');
    expect(readFileSync(runEnv.GITHUB_OUTPUT!, 'utf8')).toMatch(/^posted<<\S+\ntrue$/m);
    expect(gitea.violations).toEqual([]);
    // Every API request carried the workflow token (the fake refuses others) and none leaked.
    expect(gitea.requests.every((r) => r.authorized)).toBe(true);
    expect(result.stdout + result.stderr).not.toContain(TOKEN);
  });

  it('a synchronized event on the head already reviewed calls no model and posts nothing', async () => {
    const payload = pullRequestHook(
      ctx,
      { ...PR, headSha: scenario.headSha, baseSha: scenario.baseSha },
      'synchronized',
    ).payload;
    const before = { llm: llm.requests.length, writes: gitea.writeRequests().length };
    const result = await runAction(
      envFor('pull_request', payload, { GITEA_ACTIONS: '', FORGEJO_ACTIONS: 'true' }),
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^::notice title=reviewbot::nothing new to review since/m);
    expect(llm.requests.length).toBe(before.llm);
    expect(gitea.writeRequests().length).toBe(before.writes);
  });

  it('a /review comment by a user who may write reviews again', async () => {
    llm.setScript(reviewScript(scenario));
    const { payload } = pullRequestCommentHook(ctx, PR, { id: 77, body: '/review', author: 'alice' });
    (payload.repository as Record<string, unknown>).permissions = { admin: false, push: true, pull: true };
    const result = await runAction(envFor('issue_comment', payload));
    expect(result.stdout).not.toMatch(/::error/);
    expect(result.code).toBe(0);
    expect(llm.requests.length).toBeGreaterThan(0);
    expect(gitea.violations).toEqual([]);
  });
});

describe("docs/gitea.md's Gitea/Forgejo workflow", () => {
  const readme = readFileSync(path.join(ROOT, 'docs', 'gitea.md'), 'utf8');
  const block = /```yaml\n(# \.gitea\/workflows\/reviewbot\.yml[^\n]*\n[\s\S]*?)```/.exec(readme);
  const schema = JSON.parse(
    readFileSync(path.join(ROOT, 'test', 'fixtures', 'github-action', 'github-workflow.schema.json'), 'utf8'),
  ) as object;

  it('is a valid workflow that runs this action only for pull requests of the repository itself', () => {
    expect(block).not.toBeNull();
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a workflow as parsed YAML
    const workflow = parse(block![1]!) as Record<string, any>;
    const validate = new Ajv({ allErrors: true, strict: false }).compile(schema);
    expect(validate(workflow) ? [] : validate.errors).toEqual([]);
    expect(block![1]).not.toContain('pull_request_target');
    const job = workflow.jobs.review;
    expect(job.if).toContain('github.event.pull_request.head.repo.full_name == github.repository');
    // Gitea names synchronize-d pushes "synchronize" in `types` as GitHub does.
    expect(workflow.on.pull_request.types).toEqual(['opened', 'synchronize', 'reopened']);
    const step = job.steps.find((s: { uses?: string }) => s.uses?.includes('reviewbot/reviewbot@'));
    expect(step.uses).toMatch(/^https:\/\/github\.com\/reviewbot\/reviewbot@/);
    expect(step.with.key).toBe('${{ secrets.ANTHROPIC_API_KEY }}');
  });
});
