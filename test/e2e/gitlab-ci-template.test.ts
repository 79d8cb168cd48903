/**
 * The GitLab CI template (CONTRACT §17, `ci/gitlab/reviewbot.gitlab-ci.yml`): parsed as YAML, its
 * job runs only in merge request pipelines, and its script — executed by `sh` with the variables a
 * GitLab runner sets (`CI_MERGE_REQUEST_IID`, `CI_PROJECT_PATH`, `CI_SERVER_URL`) and the built CLI
 * as `reviewbot` on PATH — reviews the merge request on the fake GitLab and posts the review.
 */
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeGitLab, type FakeGitLab } from '../support/fake-gitlab/index.js';
import { startFakeAnthropic, type FakeLlm } from '../support/fake-llm/index.js';
import { createDiffScenario, type DiffScenario } from '../support/git-fixtures.js';
import { CLI_PATH, runCli, type CliResult } from '../support/run-cli.js';
import { LLM_KEY, reviewScript } from './cli-fixture.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const TEMPLATE = path.join(ROOT, 'ci', 'gitlab', 'reviewbot.gitlab-ci.yml');
const GITLAB_TOKEN = 'glpat-ciTemplateTokenThatMustNeverLeak1';
const PROJECT = 'acme/platform/widgets';

interface Job {
  image: { name: string; entrypoint: string[] };
  variables: Record<string, string>;
  rules: Array<{ if: string }>;
  script: string[];
  allow_failure?: unknown;
}

const job = (parse(readFileSync(TEMPLATE, 'utf8')) as Record<string, Job>).reviewbot!;

/** Runs the job's script the way a GitLab runner does: one shell, lines in order, stop at a failure. */
function runScript(env: NodeJS.ProcessEnv, binDir: string): Promise<CliResult> {
  return runCli(
    [],
    { PATH: `${binDir}:${process.env.PATH}`, ...env },
    {
      command: ['sh', '-e', '-c', job.script.join('\n')],
    },
  );
}

describe('ci/gitlab/reviewbot.gitlab-ci.yml', () => {
  it('defines one job for merge request pipelines that runs reviewbot review <path>#<iid> --platform gitlab --trigger lifecycle', () => {
    expect(job.rules).toEqual([
      { if: '$CI_PIPELINE_SOURCE == "merge_request_event" && $REVIEWBOT_GITLAB_TOKEN' },
    ]);
    expect(job.script.at(-1)).toBe(
      'reviewbot review "$CI_PROJECT_PATH#$CI_MERGE_REQUEST_IID" --platform gitlab --trigger lifecycle "$@"',
    );
    expect(job.script.join('\n')).toContain(
      'GITLAB_TOKEN="$REVIEWBOT_GITLAB_TOKEN" GITLAB_URL="$CI_SERVER_URL"',
    );
    // The image's entrypoint is `reviewbot`: a CI job must replace it to run its script.
    expect(job.image).toEqual({ name: '${REVIEWBOT_IMAGE}', entrypoint: [''] });
    expect(job.variables.REVIEWBOT_IMAGE).toMatch(/^ghcr\.io\/reviewbot\/reviewbot:/);
  });

  describe('its script in a merge request pipeline', () => {
    let root: string;
    let bin: string;
    let scenario: DiffScenario;
    let gitlab: FakeGitLab;
    let llm: FakeLlm;
    let env: NodeJS.ProcessEnv;

    beforeAll(async () => {
      root = mkdtempSync(path.join(os.tmpdir(), 'reviewbot-gitlab-ci-'));
      scenario = createDiffScenario(path.join(root, 'repos'), 'acme/widgets');
      gitlab = await startFakeGitLab({ token: GITLAB_TOKEN, username: 'reviewbot-gl' });
      await gitlab.addMergeRequest({
        project: PROJECT,
        iid: 7,
        bareRepoPath: scenario.bareRepoPath,
        sourceBranch: scenario.head,
        targetBranch: scenario.base,
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
      const { REVIEWBOT_IMAGE: _image, GIT_STRATEGY: _git, ...jobVariables } = job.variables;
      env = {
        ...jobVariables,
        CI: 'true',
        GITLAB_CI: 'true',
        CI_PIPELINE_SOURCE: 'merge_request_event',
        CI_MERGE_REQUEST_IID: '7',
        CI_PROJECT_PATH: PROJECT,
        CI_SERVER_URL: gitlab.url,
        REVIEWBOT_GITLAB_TOKEN: GITLAB_TOKEN,
        ANTHROPIC_API_KEY: LLM_KEY,
        ANTHROPIC_BASE_URL: llm.url,
        AGENT_MODEL: 'test-model',
        TMPDIR: root,
        HOME: root,
      };
    });
    afterAll(async () => {
      await llm?.close();
      await gitlab?.close();
      if (root) rmSync(root, { recursive: true, force: true });
    });

    it('REVIEWBOT_DRY_RUN=true prints the review and posts nothing (before any review was posted)', async () => {
      llm.setScript(reviewScript(scenario));
      const writes = gitlab.writeRequests().length;
      const result = await runScript({ ...env, REVIEWBOT_DRY_RUN: 'true' }, bin);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain('Not posted (--dry-run).');
      expect(gitlab.writeRequests()).toHaveLength(writes);
    });

    it('reviews the merge request and posts the review with the project access token', async () => {
      llm.setScript(reviewScript(scenario));
      const first = llm.requests.length;
      const result = await runScript({ ...env, REVIEWBOT_PROMPT: 'focus on "constants" and $HOME' }, bin);
      expect(result.stderr).not.toMatch(/reviewbot: /);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain(`Review of ${PROJECT}#7 "Tune the service constants"`);
      expect(gitlab.diffNotes).toHaveLength(3);
      expect(gitlab.notes.filter((n) => n.type === null)).toHaveLength(1);
      expect(gitlab.violations).toEqual([]);
      // The prompt variable reached the model as one argument, unexpanded.
      const prompt = llm.requests[first]!.messages.map((m) => m.text).join('\n');
      expect(prompt).toContain('focus on "constants" and $HOME');
      expect(result.stdout + result.stderr).not.toContain(GITLAB_TOKEN);
    });

    it('a pipeline on the head already reviewed (a re-run) calls no model and posts nothing', async () => {
      llm.setScript(reviewScript(scenario));
      const before = { llm: llm.requests.length, writes: gitlab.writeRequests().length };
      const result = await runScript(env, bin);
      expect(result.code).toBe(0);
      expect(result.stderr).toContain(
        `reviewbot: nothing new to review since ${scenario.headSha.slice(0, 12)}: no agent ran, nothing posted`,
      );
      expect(llm.requests.length).toBe(before.llm);
      expect(gitlab.writeRequests()).toHaveLength(before.writes);
      expect(gitlab.violations).toEqual([]);
    });

    it('REVIEWBOT_FAIL_ON fails the job with exit code 3 while the verdict counts an open finding at or above it', async () => {
      const before = { llm: llm.requests.length, writes: gitlab.writeRequests().length };
      // The three findings posted above are open, P2 (no severity given): the verdict counts them.
      const failing = await runScript({ ...env, REVIEWBOT_FAIL_ON: 'P2' }, bin);
      expect(failing.code).toBe(3);
      expect(failing.stderr).toContain(
        'reviewbot: verdict non-blocking — P2 ×3: an open finding is at or above P2',
      );
      const passing = await runScript({ ...env, REVIEWBOT_FAIL_ON: 'P1' }, bin);
      expect(passing.code).toBe(0);
      expect(llm.requests.length).toBe(before.llm);
      expect(gitlab.writeRequests()).toHaveLength(before.writes);
      // Exit code 3 is not among the failures the job allows.
      expect(job.allow_failure).toEqual({ exit_codes: [1, 2] });
    });
  });
});
