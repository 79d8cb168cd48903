/**
 * The Bitbucket Pipelines step (CONTRACT §17, `ci/bitbucket/bitbucket-pipelines.yml`): parsed as
 * YAML, the `reviewbot` step runs from `pull-requests:`, and its script — executed by `sh` with the
 * default variables a pull request pipeline sets (Atlassian, "Variables and secrets":
 * `BITBUCKET_PR_ID`, `BITBUCKET_WORKSPACE`, `BITBUCKET_REPO_SLUG`, …) and the built CLI as
 * `reviewbot` on PATH — reviews the pull request on the fake Bitbucket Cloud and posts the review.
 */
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeBitbucketCloud, type FakeBitbucketCloud } from '../support/fake-bitbucket-cloud/index.js';
import { startFakeAnthropic, type FakeLlm } from '../support/fake-llm/index.js';
import { createDiffScenario, type DiffScenario } from '../support/git-fixtures.js';
import { CLI_PATH, runCli, type CliResult } from '../support/run-cli.js';
import { LLM_KEY, reviewScript } from './cli-fixture.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const STEP_FILE = path.join(ROOT, 'ci', 'bitbucket', 'bitbucket-pipelines.yml');
const TOKEN = 'bb-pipelinesStepTokenThatMustNeverLeak1';
const BOT = 'reviewbot-bb';
const REPO = 'acme/widgets';

interface Step {
  name: string;
  image: string;
  clone: { enabled: boolean };
  script: string[];
}

interface PipelinesFile {
  definitions: { steps: Array<{ step: Step }> };
  pipelines: { 'pull-requests': Record<string, Array<{ step: Step }>> };
}

const config = parse(readFileSync(STEP_FILE, 'utf8')) as PipelinesFile;
const step = config.definitions.steps[0]!.step;

/** Runs the step's script the way a Pipelines build container does: one shell, commands in order, stop at a failure. */
function runScript(env: NodeJS.ProcessEnv, binDir: string): Promise<CliResult> {
  return runCli(
    [],
    { PATH: `${binDir}:${process.env.PATH}`, ...env },
    {
      command: ['sh', '-e', '-c', step.script.join('\n')],
    },
  );
}

describe('ci/bitbucket/bitbucket-pipelines.yml', () => {
  it('runs the reviewbot step for every pull request, without a checkout, as reviewbot review <workspace>/<slug>#<id> --platform bitbucket --trigger lifecycle', () => {
    expect(config.pipelines['pull-requests']).toEqual({ '**': [{ step }] });
    expect(step.name).toBe('reviewbot');
    expect(step.image).toMatch(/^ghcr\.io\/reviewbot\/reviewbot:/);
    expect(step.clone).toEqual({ enabled: false });
    const script = step.script.join('\n');
    expect(script).toContain('export BITBUCKET_TOKEN="$REVIEWBOT_BITBUCKET_TOKEN"');
    expect(script.trimEnd().split('\n').at(-1)).toBe(
      'reviewbot review "$BITBUCKET_WORKSPACE/$BITBUCKET_REPO_SLUG#$BITBUCKET_PR_ID" --platform bitbucket --trigger lifecycle "$@"',
    );
  });

  describe('its script in a pull request pipeline', () => {
    let root: string;
    let bin: string;
    let scenario: DiffScenario;
    let bb: FakeBitbucketCloud;
    let llm: FakeLlm;
    let env: NodeJS.ProcessEnv;

    beforeAll(async () => {
      root = mkdtempSync(path.join(os.tmpdir(), 'reviewbot-bitbucket-pipelines-'));
      scenario = createDiffScenario(path.join(root, 'repos'), REPO);
      bb = await startFakeBitbucketCloud({ token: TOKEN, nickname: BOT });
      bb.addPullRequest({
        repo: REPO,
        id: 7,
        bareRepoPath: scenario.bareRepoPath,
        headBranch: scenario.head,
        baseBranch: scenario.base,
        title: 'Tune the service constants',
        description: '',
      });
      llm = await startFakeAnthropic({ apiKey: LLM_KEY });
      // What the image puts on PATH: a `reviewbot` that runs the CLI.
      bin = path.join(root, 'bin');
      mkdirSync(bin);
      writeFileSync(
        path.join(bin, 'reviewbot'),
        `#!/bin/sh\nexec "${process.execPath}" "${CLI_PATH}" "$@"\n`,
      );
      chmodSync(path.join(bin, 'reviewbot'), 0o755);
      env = {
        // The default variables of a pull request pipeline.
        CI: 'true',
        BITBUCKET_BUILD_NUMBER: '42',
        BITBUCKET_CLONE_DIR: path.join(root, 'build'),
        BITBUCKET_COMMIT: scenario.headSha,
        BITBUCKET_WORKSPACE: 'acme',
        BITBUCKET_REPO_SLUG: 'widgets',
        BITBUCKET_REPO_FULL_NAME: REPO,
        BITBUCKET_BRANCH: scenario.head,
        BITBUCKET_PR_ID: '7',
        BITBUCKET_PR_DESTINATION_BRANCH: scenario.base,
        BITBUCKET_GIT_HTTP_ORIGIN: `${bb.url}/${REPO}`,
        // Repository variables.
        REVIEWBOT_BITBUCKET_TOKEN: TOKEN,
        ANTHROPIC_API_KEY: LLM_KEY,
        AGENT_MODEL: 'test-model',
        // Where the fakes stand in for api.bitbucket.org and the provider.
        BITBUCKET_API_URL: bb.apiUrl,
        ANTHROPIC_BASE_URL: llm.url,
        TMPDIR: root,
        HOME: root,
      };
    });
    afterAll(async () => {
      await llm?.close();
      await bb?.close();
      if (root) rmSync(root, { recursive: true, force: true });
    });

    it('without the token variable it says so, succeeds and sends nothing', async () => {
      const { REVIEWBOT_BITBUCKET_TOKEN: _token, ...withoutToken } = env;
      const result = await runScript(withoutToken, bin);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain('REVIEWBOT_BITBUCKET_TOKEN is not set');
      expect(bb.requests).toEqual([]);
      expect(llm.requests).toEqual([]);
    });

    it('REVIEWBOT_DRY_RUN=true prints the review and posts nothing', async () => {
      llm.setScript(reviewScript(scenario));
      const result = await runScript({ ...env, REVIEWBOT_DRY_RUN: 'true' }, bin);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain('Not posted (--dry-run).');
      expect(bb.writeRequests()).toEqual([]);
    });

    it('reviews the pull request and posts the review with the access token', async () => {
      llm.setScript(reviewScript(scenario));
      const first = llm.requests.length;
      const result = await runScript({ ...env, REVIEWBOT_PROMPT: 'focus on "constants" and $HOME' }, bin);
      expect(result.stderr).not.toMatch(/reviewbot: /);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain(`Review of ${REPO}#7 "Tune the service constants"`);
      const comments = bb.comments(REPO, 7);
      expect(comments.filter((c) => c.inline)).toHaveLength(3);
      expect(comments.at(-1)!.raw).toContain('The constants change looks deliberate');
      expect(comments.every((c) => c.author === BOT)).toBe(true);
      expect(bb.statuses.at(-1)).toMatchObject({ commit: scenario.headSha, state: 'SUCCESSFUL' });
      expect(bb.violations).toEqual([]);
      // The prompt variable reached the model as one argument, unexpanded.
      const prompt = llm.requests[first]!.messages.map((m) => m.text).join('\n');
      expect(prompt).toContain('focus on "constants" and $HOME');
      expect(result.stdout + result.stderr).not.toContain(TOKEN);
    });

    it('a pipeline on the head already reviewed (a re-run) calls no model and posts nothing', async () => {
      llm.setScript(reviewScript(scenario));
      const before = { llm: llm.requests.length, writes: bb.writeRequests().length };
      const result = await runScript(env, bin);
      expect(result.code).toBe(0);
      expect(result.stderr).toContain(
        `reviewbot: nothing new to review since ${scenario.headSha.slice(0, 12)}: no agent ran, nothing posted`,
      );
      expect(llm.requests.length).toBe(before.llm);
      expect(bb.writeRequests()).toHaveLength(before.writes);
      expect(bb.violations).toEqual([]);
    });

    it('REVIEWBOT_FAIL_ON fails the step with exit code 3 while the verdict counts an open finding at or above it', async () => {
      const failing = await runScript({ ...env, REVIEWBOT_FAIL_ON: 'P2' }, bin);
      expect(failing.code).toBe(3);
      expect(failing.stderr).toMatch(
        /reviewbot: verdict non-blocking — P2 ×\d+: an open finding is at or above P2/,
      );
      const passing = await runScript({ ...env, REVIEWBOT_FAIL_ON: 'P0' }, bin);
      expect(passing.code).toBe(0);
      expect(bb.violations).toEqual([]);
    });

    it('outside a pull request pipeline (no BITBUCKET_PR_ID) it fails naming the variable', async () => {
      const { BITBUCKET_PR_ID: _id, ...branchPipeline } = env;
      const requests = bb.requests.length;
      const result = await runScript(branchPipeline, bin);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain('BITBUCKET_PR_ID is not set');
      expect(bb.requests).toHaveLength(requests);
    });
  });
});
