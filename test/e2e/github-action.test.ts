/**
 * The GitHub Action (CONTRACT §17): `action.yml` checked against SchemaStore's schema of action
 * metadata, and its entry point (`dist/src/action/main.js`, what the composite step runs) started
 * as a child process with the environment a GitHub runner gives a step — `GITHUB_EVENT_PATH`
 * holding a real `pull_request` payload from `@octokit/webhooks-examples`, `GITHUB_REPOSITORY`,
 * `GITHUB_API_URL`, `GITHUB_TOKEN`, `INPUT_*` — against the fake GitHub and a scripted model.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv } from 'ajv';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  githubExample,
  type ExamplePayload,
} from '../../src/platforms/github/webhook-examples.test-helper.js';
import { startFakeAnthropic, type FakeLlm } from '../support/fake-llm/index.js';
import { runCli, type CliResult } from '../support/run-cli.js';
import { createCliFixture, GITHUB_TOKEN, LLM_KEY, reviewScript, type CliFixture } from './cli-fixture.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const MAIN = path.join(ROOT, 'dist', 'src', 'action', 'main.js');

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- action.yml as parsed YAML
const action = parse(readFileSync(path.join(ROOT, 'action.yml'), 'utf8')) as Record<string, any>;

/** Runs the Action's entry point (`node dist/src/action/main.js`) as the composite's step does. */
function runAction(env: NodeJS.ProcessEnv): Promise<CliResult> {
  return runCli([], env, { command: [process.execPath, MAIN] });
}

/** Parses a `GITHUB_OUTPUT` file (`name<<DELIMITER` blocks). */
function readOutputs(file: string): Record<string, string> {
  const out: Record<string, string> = {};
  const lines = readFileSync(file, 'utf8').split('\n');
  for (let i = 0; i < lines.length; i++) {
    const match = /^([\w-]+)<<(\S+)$/.exec(lines[i]!);
    if (!match) continue;
    const end = lines.indexOf(match[2]!, i + 1);
    out[match[1]!] = lines.slice(i + 1, end).join('\n');
    i = end;
  }
  return out;
}

describe('action.yml', () => {
  it('is valid GitHub Actions metadata (SchemaStore github-action.json)', () => {
    const schema = JSON.parse(
      readFileSync(path.join(ROOT, 'test', 'fixtures', 'github-action', 'github-action.schema.json'), 'utf8'),
    ) as object;
    const validate = new Ajv({ allErrors: true, strict: false }).compile(schema);
    expect(validate(action) ? [] : validate.errors).toEqual([]);
    // The schema check can fail: a javascript action without `main` is refused.
    expect(validate({ ...action, runs: { using: 'node20' } })).toBe(false);
  });

  it('passes every input to the entry point as INPUT_<NAME> and maps every output', () => {
    expect(action.runs.using).toBe('composite');
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const step = action.runs.steps.find((s: any) => s.id === 'review');
    expect(step.run).toBe('node "$GITHUB_ACTION_PATH/dist/src/action/main.js"');
    const passed = Object.entries(step.env as Record<string, string>);
    for (const name of Object.keys(action.inputs as object)) {
      if (name === 'github_token') continue;
      expect(passed).toContainEqual([`INPUT_${name.toUpperCase()}`, `\${{ inputs.${name} }}`]);
    }
    expect(step.env.GITHUB_TOKEN).toBe('${{ inputs.github_token }}');
    expect(Object.keys(action.inputs)).toEqual(
      expect.arrayContaining(['provider', 'model', 'key', 'prompt', 'config_file', 'dry_run']),
    );
    for (const [name, output] of Object.entries(action.outputs as Record<string, { value: string }>)) {
      expect(output.value).toBe(`\${{ steps.review.outputs.${name} }}`);
    }
    // No Docker image anywhere: composite steps only.
    expect(JSON.stringify(action.runs)).not.toMatch(/docker:\/\//);
  });

  it('installs the runtime dependencies only, then compiles with the TypeScript package.json pins', () => {
    const steps = action.runs.steps as Array<{
      uses?: string;
      run?: string;
      with?: Record<string, string>;
      env?: Record<string, string>;
    }>;
    const install = steps.find((s) => s.run?.includes('npm ci'));
    expect(install?.run).toMatch(/\bomit=\(--omit=dev\)/);
    expect(install?.run).toMatch(/\bnpm ci "\$\{omit\[@\]\}" --ignore-scripts\b/);
    expect(install?.run).not.toMatch(/--include=dev/);
    expect(install?.env?.INPUT_PROVIDER).toBe('${{ inputs.provider }}');
    const build = steps.find((s) => s.run?.includes('tsc '));
    expect(build?.run).toContain(`require('./package.json').devDependencies.typescript`);
    expect(build?.run).toMatch(/npx -y -p "\$typescript" tsc -p tsconfig\.build\.json --noCheck/);
    expect(steps.indexOf(install!)).toBeLessThan(steps.indexOf(build!));
    // Node 22 is set up before the install and stays on PATH for the job's later steps (README).
    const setup = steps.findIndex((s) => s.uses?.startsWith('actions/setup-node@'));
    expect(setup).toBeGreaterThanOrEqual(0);
    expect(steps[setup]!.with?.['node-version']).toBe('22');
    expect(setup).toBeLessThan(steps.indexOf(install!));
  });
});

describe('the Action entry point', () => {
  let fx: CliFixture;
  let llm: FakeLlm;
  let env: (event: string, payload: ExamplePayload, extra?: NodeJS.ProcessEnv) => NodeJS.ProcessEnv;

  beforeAll(async () => {
    fx = await createCliFixture();
    llm = await startFakeAnthropic({ apiKey: LLM_KEY });
    env = (event, payload, extra = {}) => {
      const eventPath = path.join(fx.root, `event-${event}-${Date.now()}.json`);
      writeFileSync(eventPath, JSON.stringify(payload));
      const output = path.join(fx.root, `output-${Date.now()}`);
      writeFileSync(output, '');
      return {
        GITHUB_ACTIONS: 'true',
        GITHUB_EVENT_NAME: event,
        GITHUB_EVENT_PATH: eventPath,
        GITHUB_REPOSITORY: 'acme/widgets',
        GITHUB_API_URL: fx.github.url,
        GITHUB_TOKEN,
        GITHUB_OUTPUT: output,
        GITHUB_STEP_SUMMARY: path.join(fx.root, 'summary.md'),
        RUNNER_TEMP: fx.root,
        HOME: fx.root,
        INPUT_PROVIDER: 'anthropic',
        INPUT_MODEL: 'test-model',
        INPUT_KEY: LLM_KEY,
        INPUT_PROMPT: '',
        INPUT_CONFIG_FILE: '',
        INPUT_DRY_RUN: 'false',
        ANTHROPIC_BASE_URL: llm.url,
        ...extra,
      };
    };
  });
  afterAll(async () => {
    await llm?.close();
    await fx?.close();
  });

  /** The real `pull_request.opened` example, moved onto the fake's pull request acme/widgets#7. */
  function pullRequestEvent(headRepo: string): ExamplePayload {
    const payload = githubExample('pull_request', 'opened');
    payload.number = 7;
    payload.pull_request.number = 7;
    payload.repository.full_name = 'acme/widgets';
    payload.pull_request.base.repo.full_name = 'acme/widgets';
    payload.pull_request.head.repo.full_name = headRepo;
    payload.pull_request.head.repo.fork = headRepo !== 'acme/widgets';
    return payload;
  }

  it('reviews the pull request of a pull_request event and posts one review; outputs the figures', async () => {
    llm.setScript(reviewScript(fx.scenario));
    const runEnv = env('pull_request', pullRequestEvent('acme/widgets'));
    const result = await runAction(runEnv);
    expect(result.stdout).not.toMatch(/::error/);
    expect(result.code).toBe(0);
    expect(fx.github.reviews).toHaveLength(1);
    expect(fx.github.reviews[0]!.body).toContain('The constants change looks deliberate');
    expect(fx.github.violations).toEqual([]);
    expect(result.stdout).toContain('Review of acme/widgets#7 "Tune the service constants"');
    // The review text (model output) is printed with workflow commands stopped, then resumed.
    const stop = /^::stop-commands::([0-9a-f]{32})$/m.exec(result.stdout);
    expect(stop).not.toBeNull();
    const review = result.stdout.slice(stop!.index, result.stdout.indexOf(`::${stop![1]}::`));
    expect(review).toContain('The constants change looks deliberate');
    const outputs = readOutputs(runEnv.GITHUB_OUTPUT!);
    // Exactly the outputs action.yml declares: one missing would be an always-empty output.
    expect(Object.keys(outputs).sort()).toEqual(Object.keys(action.outputs as object).sort());
    expect(outputs.duration_ms).toMatch(/^\d+$/);
    expect(Number(outputs.duration_ms)).toBeGreaterThanOrEqual(0);
    expect(outputs).toMatchObject({
      findings: '3',
      rejected: '1',
      model: 'test-model',
      input_tokens: '4500',
      output_tokens: '380',
      posted: 'true',
      review_url: expect.stringMatching(/^http/),
      skipped: 'false',
      verdict: 'non-blocking',
    });
    expect(readFileSync(runEnv.GITHUB_STEP_SUMMARY!, 'utf8')).toContain('## reviewbot');
    for (const text of [result.stdout, result.stderr]) {
      expect(text).not.toContain(GITHUB_TOKEN);
      expect(text).not.toContain(LLM_KEY);
    }
  });

  it.each(['reopened', 'synchronize'])(
    'a pull_request %s event on the head already reviewed calls no model and posts nothing (§13)',
    async (kind) => {
      const payload = pullRequestEvent('acme/widgets');
      payload.action = kind;
      const runEnv = env('pull_request', payload);
      const before = { llm: llm.requests.length, writes: fx.github.writeRequests().length };
      const result = await runAction(runEnv);
      expect(result.stdout).not.toMatch(/::error/);
      expect(result.code).toBe(0);
      expect(llm.requests.length).toBe(before.llm);
      // Not even a "Nothing to review" comment.
      expect(fx.github.writeRequests().length).toBe(before.writes);
      const since = fx.scenario.headSha.slice(0, 12);
      expect(result.stdout).toMatch(
        new RegExp(`^::notice title=reviewbot::nothing new to review since ${since}: no agent ran`, 'm'),
      );
      const outputs = readOutputs(runEnv.GITHUB_OUTPUT!);
      expect(Object.keys(outputs).sort()).toEqual(Object.keys(action.outputs as object).sort());
      expect(outputs).toMatchObject({ skipped: 'true', posted: 'false', findings: '0', review_url: '' });
      expect(readFileSync(runEnv.GITHUB_STEP_SUMMARY!, 'utf8')).toContain(
        `Nothing new to review since ${since}`,
      );
      expect(fx.github.violations).toEqual([]);
    },
  );

  it('fails a fork pull request clearly, before any model call or write', async () => {
    const before = { llm: llm.requests.length, writes: fx.github.writeRequests().length };
    const result = await runAction(
      env('pull_request', pullRequestEvent('mallory/widgets'), { INPUT_KEY: '' }),
    );
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(
      /^::error title=reviewbot::pull request #7 comes from the fork mallory\/widgets: .*no secrets.*"Fork pull requests".*never use pull_request_target/m,
    );
    expect(llm.requests.length).toBe(before.llm);
    expect(fx.github.writeRequests().length).toBe(before.writes);
  });

  it('reviews on a comment by a member (issue_comment) and posts what is new', async () => {
    llm.setScript(reviewScript(fx.scenario));
    const payload = githubExample('issue_comment', 'created');
    payload.issue.number = 7;
    payload.issue.pull_request = { url: `${fx.github.url}/repos/acme/widgets/pulls/7` };
    payload.repository.full_name = 'acme/widgets';
    payload.comment.author_association = 'MEMBER';
    payload.comment.body = '/review';
    const runEnv = env('issue_comment', payload, { INPUT_DRY_RUN: 'false', INPUT_PROMPT: 'look again' });
    const posts = fx.github.reviews.length + fx.github.issueComments.length;
    const result = await runAction(runEnv);
    expect(result.stdout).not.toMatch(/::error/);
    expect(result.code).toBe(0);
    // The three inline findings were posted by the first review: only the body is new, as a comment.
    expect(fx.github.reviews.length + fx.github.issueComments.length).toBe(posts + 1);
    const outputs = readOutputs(runEnv.GITHUB_OUTPUT!);
    expect(Object.keys(outputs).sort()).toEqual(Object.keys(action.outputs as object).sort());
    expect(outputs).toMatchObject({
      findings: '0',
      rejected: '1',
      posted: 'true',
    });
    expect(
      llm.requests
        .at(-3)!
        .messages.map((m) => m.text)
        .join('\n'),
    ).toContain('look again');
    expect(fx.github.violations).toEqual([]);
  });

  it('fail_on fails the step (exit 3) when the verdict counts an open finding at or above it', async () => {
    const payload = githubExample('issue_comment', 'created');
    payload.issue.number = 7;
    payload.issue.pull_request = { url: `${fx.github.url}/repos/acme/widgets/pulls/7` };
    payload.repository.full_name = 'acme/widgets';
    payload.comment.author_association = 'MEMBER';
    payload.comment.body = '/review';
    llm.setScript(reviewScript(fx.scenario));
    const strict = await runAction(
      env('issue_comment', payload, { INPUT_DRY_RUN: 'true', INPUT_FAIL_ON: 'p2' }),
    );
    expect(strict.code).toBe(3);
    expect(strict.stdout).toMatch(
      /^::error title=reviewbot::verdict non-blocking — P2 ×\d+: an open finding is at or above P2 \(fail_on\)$/m,
    );
    llm.setScript(reviewScript(fx.scenario));
    const lenient = await runAction(
      env('issue_comment', payload, { INPUT_DRY_RUN: 'true', INPUT_FAIL_ON: 'P1' }),
    );
    expect(lenient.stdout).not.toMatch(/::error/);
    expect(lenient.code).toBe(0);
    const bad = await runAction(env('issue_comment', payload, { INPUT_FAIL_ON: 'high' }));
    expect(bad.code).toBe(2);
    expect(bad.stdout).toContain('the fail_on input must be P0, P1, P2 or P3, not "HIGH"');
    expect(fx.github.violations).toEqual([]);
  });

  it('ignores a comment by someone without write access, and says so', async () => {
    const payload = githubExample('issue_comment', 'created');
    payload.issue.number = 7;
    payload.issue.pull_request = { url: `${fx.github.url}/repos/acme/widgets/pulls/7` };
    payload.repository.full_name = 'acme/widgets';
    payload.comment.author_association = 'NONE';
    const before = llm.requests.length;
    const result = await runAction(env('issue_comment', payload));
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/::notice title=reviewbot::comment by .* ignored: only owners, members/);
    expect(llm.requests.length).toBe(before);
  });

  it('exit 2 with a clear message outside a workflow or without a key', async () => {
    const outside = await runAction({ INPUT_KEY: LLM_KEY });
    expect(outside.code).toBe(2);
    expect(outside.stdout).toMatch(/::error title=reviewbot::GITHUB_EVENT_PATH is not set/);
    const noKey = await runAction(env('pull_request', pullRequestEvent('acme/widgets'), { INPUT_KEY: '' }));
    expect(noKey.code).toBe(2);
    expect(noKey.stdout).toMatch(/the key input is empty/);
  });
});
