/**
 * The Azure Pipelines step template (CONTRACT §17, `ci/azure-devops/azure-pipelines.yml`): parsed as
 * YAML with its parameter's default put in (as the template engine does), its one script step runs
 * the way the agent runs it — `bash --noprofile --norc`, after the `$(Name)` macros of its text and
 * of its `env:` mapping are expanded from the pipeline's variables (an undefined variable's macro
 * stays as written) — with the predefined variables of a pull request build as environment
 * variables (Microsoft Learn, "Use predefined variables": names upper case, dots as underscores;
 * secrets such as `System.AccessToken` only through `env:`), and the built CLI as `reviewbot` on
 * PATH. The job access token is a JWT, which the fake Azure DevOps accepts only as Bearer.
 */
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeAzureDevOps } from '../support/fake-azure-devops/index.js';
import type { FakeLlm } from '../support/fake-llm/index.js';
import type { DiffScenario } from '../support/git-fixtures.js';
import { CLI_PATH, runCli, type CliResult } from '../support/run-cli.js';
import { createAzureDevOpsFixture, PROJECT, REPO, type AzureDevOpsFixture } from './azure-devops-fixture.js';
import { LLM_KEY, reviewScript } from './cli-fixture.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const STEP_FILE = path.join(ROOT, 'ci', 'azure-devops', 'azure-pipelines.yml');
/** A job access token: a JWT (header `{"typ":"JWT","alg":"RS256"}`). */
const TOKEN =
  'eyJ0eXAiOiJKV1QiLCJhbGciOiJSUzI1NiJ9.eyJzY3AiOiJhcHBfdG9rZW4ifQ.jobTokenSignatureThatMustNeverLeak';

interface ScriptStep {
  script: string;
  displayName: string;
  env: Record<string, string>;
}

interface Template {
  parameters: Array<{ name: string; type: string; default: string }>;
  steps: ScriptStep[];
}

const text = readFileSync(STEP_FILE, 'utf8');
const declared = (parse(text) as Template).parameters;
/** The template with `${{ parameters.<name> }}` replaced by the defaults. */
const template = parse(
  text.replace(/\$\{\{\s*parameters\.(\w+)\s*\}\}/g, (_, name: string) => {
    const parameter = declared.find((p) => p.name === name);
    if (!parameter) throw new Error(`undeclared parameter ${name}`);
    return parameter.default;
  }),
) as Template;
const step = template.steps[0]!;

/** `$(Name)` macros expanded from `variables`; an undefined variable's macro is left as written. */
function expand(value: string, variables: Record<string, string>): string {
  return value.replace(/\$\(([A-Za-z0-9_.]+)\)/g, (macro, name: string) => variables[name] ?? macro);
}

/** The environment variable a pipeline variable becomes: upper case, dots as underscores. */
function envName(variable: string): string {
  return variable.replace(/\./g, '_').toUpperCase();
}

/**
 * Runs the step as the agent does: non-secret variables as environment variables, the step's
 * `env:` mapping on top, the macros of the script expanded, then `bash --noprofile --norc`.
 */
function runStep(
  variables: Record<string, string>,
  secrets: readonly string[],
  extra: NodeJS.ProcessEnv,
): Promise<CliResult> {
  const env: NodeJS.ProcessEnv = { ...extra };
  for (const [name, value] of Object.entries(variables)) {
    if (!secrets.includes(name)) env[envName(name)] = value;
  }
  for (const [name, value] of Object.entries(step.env)) env[name] = expand(value, variables);
  return runCli([], env, {
    command: ['bash', '--noprofile', '--norc', '-c', expand(step.script, variables)],
  });
}

describe('ci/azure-devops/azure-pipelines.yml', () => {
  it('is one script step mapping the job access token and the collection URL, running reviewbot review <project>/<repo>#<id> --platform azure-devops --trigger lifecycle', () => {
    expect(declared).toEqual([
      expect.objectContaining({ name: 'keyVariable', type: 'string', default: 'ANTHROPIC_API_KEY' }),
    ]);
    expect(template.steps).toHaveLength(1);
    expect(step.displayName).toBe('reviewbot');
    // Secrets reach a script only through env: (Microsoft Learn, "Set secret variables").
    expect(step.env).toEqual({
      AZURE_DEVOPS_TOKEN: '$(System.AccessToken)',
      AZURE_DEVOPS_URL: '$(System.CollectionUri)',
      ANTHROPIC_API_KEY: '$(ANTHROPIC_API_KEY)',
    });
    expect(step.script.trimEnd().split('\n').at(-1)).toBe(
      'reviewbot review "$SYSTEM_TEAMPROJECT/$BUILD_REPOSITORY_NAME#$SYSTEM_PULLREQUEST_PULLREQUESTID" --platform azure-devops --trigger lifecycle "$@"',
    );
    expect(text).toContain('image: ghcr.io/reviewbot/reviewbot:');
  });

  describe('its script in a pull request validation build', () => {
    let fx: AzureDevOpsFixture;
    let root: string;
    let bin: string;
    let scenario: DiffScenario;
    let ado: FakeAzureDevOps;
    let llm: FakeLlm;
    let variables: Record<string, string>;
    let extra: NodeJS.ProcessEnv;
    const SECRETS = ['System.AccessToken', 'ANTHROPIC_API_KEY'];

    beforeAll(async () => {
      fx = await createAzureDevOpsFixture({
        prefix: 'reviewbot-azure-pipelines-',
        token: TOKEN,
        fake: { scheme: 'bearer' },
        description: '',
      });
      ({ root, scenario, ado, llm } = fx);
      // What the image puts on PATH: a `reviewbot` that runs the CLI.
      bin = path.join(root, 'bin');
      mkdirSync(bin);
      writeFileSync(
        path.join(bin, 'reviewbot'),
        `#!/bin/sh\nexec "${process.execPath}" "${CLI_PATH}" "$@"\n`,
      );
      chmodSync(path.join(bin, 'reviewbot'), 0o755);
      mkdirSync(path.join(root, 'temp'));
      variables = {
        // Predefined variables of a build a pull request's build validation policy started.
        'Build.Reason': 'PullRequest',
        'Build.Repository.Name': REPO,
        'Build.Repository.Provider': 'TfsGit',
        'Build.SourceBranch': 'refs/pull/7/merge',
        'System.CollectionUri': `${ado.collectionUrl}/`,
        'System.TeamFoundationCollectionUri': `${ado.collectionUrl}/`,
        'System.TeamProject': PROJECT,
        'System.PullRequest.PullRequestId': '7',
        'System.PullRequest.SourceBranch': `refs/heads/${scenario.head}`,
        'System.PullRequest.TargetBranch': `refs/heads/${scenario.base}`,
        'System.PullRequest.SourceCommitId': scenario.headSha,
        'Agent.TempDirectory': path.join(root, 'temp'),
        TF_BUILD: 'True',
        'System.AccessToken': TOKEN,
        // Pipeline variables (ANTHROPIC_API_KEY is a secret one).
        ANTHROPIC_API_KEY: LLM_KEY,
        AGENT_MODEL: 'test-model',
      };
      extra = {
        PATH: `${bin}:${process.env.PATH}`,
        // Where the fake stands in for the provider.
        ANTHROPIC_BASE_URL: llm.url,
        HOME: root,
      };
    });
    afterAll(() => fx?.close());

    it('without the token it says so, succeeds and sends nothing', async () => {
      const { 'System.AccessToken': _token, ...withoutToken } = variables;
      const result = await runStep(withoutToken, SECRETS, extra);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain('System.AccessToken is not mapped to AZURE_DEVOPS_TOKEN');
      expect(ado.requests).toEqual([]);
      expect(llm.requests).toEqual([]);
    });

    it('REVIEWBOT_DRY_RUN=true prints the review and posts nothing', async () => {
      llm.setScript(reviewScript(scenario));
      const result = await runStep({ ...variables, REVIEWBOT_DRY_RUN: 'true' }, SECRETS, extra);
      expect(result.stderr).not.toMatch(/reviewbot: /);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain('Not posted (--dry-run).');
      expect(ado.writeRequests()).toEqual([]);
      // git got the job access token as Bearer, up front.
      expect(ado.gitRequests.length).toBeGreaterThan(0);
      expect(ado.gitRequests.every((r) => r.authorized && r.preemptive)).toBe(true);
    });

    it('reviews the pull request and posts threads, the summary and the status with the job access token', async () => {
      llm.setScript(reviewScript(scenario));
      const first = llm.requests.length;
      const result = await runStep(
        { ...variables, REVIEWBOT_PROMPT: 'focus on "constants" and $HOME' },
        SECRETS,
        extra,
      );
      expect(result.stderr).not.toMatch(/reviewbot: /);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain(`Review of ${PROJECT}/${REPO}#7 "Tune the service constants"`);
      const threads = ado.threads(PROJECT, REPO, 7);
      expect(threads.filter((t) => t.threadContext)).toHaveLength(3);
      expect(threads.at(-1)!.comments[0]!.content).toContain('The constants change looks deliberate');
      expect(ado.statuses(PROJECT, REPO, 7).map((s) => s.state)).toEqual(['pending', 'succeeded']);
      expect(ado.violations).toEqual([]);
      expect(ado.requests.every((r) => r.status !== 401)).toBe(true);
      // The prompt variable reached the model as one argument, unexpanded.
      const prompt = llm.requests[first]!.messages.map((m) => m.text).join('\n');
      expect(prompt).toContain('focus on "constants" and $HOME');
      expect(result.stdout + result.stderr).not.toContain(TOKEN);
    });

    it('a build on the head already reviewed (a re-queued build) calls no model and posts nothing', async () => {
      llm.setScript(reviewScript(scenario));
      const before = { llm: llm.requests.length, writes: ado.writeRequests().length };
      const result = await runStep(variables, SECRETS, extra);
      expect(result.code).toBe(0);
      expect(result.stderr).toContain(
        `reviewbot: nothing new to review since ${scenario.headSha.slice(0, 12)}: no agent ran, nothing posted`,
      );
      expect(llm.requests.length).toBe(before.llm);
      expect(ado.writeRequests()).toHaveLength(before.writes);
    });

    it('REVIEWBOT_FAIL_ON fails the step with exit code 3 while the verdict counts an open finding at or above it', async () => {
      const failing = await runStep({ ...variables, REVIEWBOT_FAIL_ON: 'P2' }, SECRETS, extra);
      expect(failing.code).toBe(3);
      expect(failing.stderr).toMatch(
        /reviewbot: verdict non-blocking — P2 ×\d+: an open finding is at or above P2/,
      );
      const passing = await runStep({ ...variables, REVIEWBOT_FAIL_ON: 'P0' }, SECRETS, extra);
      expect(passing.code).toBe(0);
    });

    it('outside a pull request build (no System.PullRequest.PullRequestId) it fails naming the variable', async () => {
      const { 'System.PullRequest.PullRequestId': _id, ...ciBuild } = variables;
      const requests = ado.requests.length;
      const result = await runStep({ ...ciBuild, 'Build.Reason': 'IndividualCI' }, SECRETS, extra);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain('SYSTEM_PULLREQUEST_PULLREQUESTID is not set');
      expect(ado.requests).toHaveLength(requests);
    });
  });
});
