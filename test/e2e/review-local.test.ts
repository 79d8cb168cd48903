/**
 * End to end: `reviewbot review --local` run by a developer in their clone (the built CLI as a child
 * process, no platform, no token) against a scripted model. The clone has a commit on its branch, a
 * staged new file, a staged rename, an unstaged edit and an untracked file; `main` moved on after
 * the branch point. Also: `reviewbot review` without a ref or with a malformed one (§2, §17).
 */
import { rmSync } from 'node:fs';
import os from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeAnthropic, type FakeLlm, type ScriptedReply } from '../support/fake-llm/index.js';
import { runCli } from '../support/run-cli.js';
import { runGit } from '../support/git-fixtures.js';
import { sarifErrors } from '../fixtures/sarif/validate-sarif.js';
import { CANARY, createLocalRepo, LOCAL, type LocalRepo } from './local-fixture.js';

const LLM_KEY = 'sk-local-llm-key-that-must-never-leak-7';

function script(): ScriptedReply[] {
  return [
    {
      toolCalls: [{ name: 'Read', input: { file_path: LOCAL.unstaged.path } }],
      usage: { inputTokens: 900, outputTokens: 40 },
    },
    {
      toolCalls: [
        {
          name: 'submit_review',
          input: {
            summary: 'Local changes reviewed.',
            comments: [
              {
                path: LOCAL.committed.path,
                line: LOCAL.committed.line,
                side: 'RIGHT',
                body: 'Committed: why 500?',
                severity: 'P1',
                confidence: 0.9,
              },
              {
                path: LOCAL.staged.path,
                start_line: LOCAL.staged.startLine,
                line: LOCAL.staged.line,
                side: 'RIGHT',
                body: 'Staged: merge these.',
                suggestion: 'export const s23 = [2, 3];',
                severity: 'p3',
              },
              { path: LOCAL.unstaged.path, line: LOCAL.unstaged.line, side: 'RIGHT', body: 'Unstaged: 900?' },
              {
                path: LOCAL.unstaged.path,
                line: LOCAL.unstaged.removedLine,
                side: 'LEFT',
                body: 'Removed u3: used?',
              },
              { path: LOCAL.renamed.path, line: LOCAL.renamed.line, side: 'RIGHT', body: 'Renamed: 600?' },
              {
                path: LOCAL.untracked.path,
                line: LOCAL.untracked.line,
                side: 'RIGHT',
                body: 'Untracked: when?',
              },
              {
                path: LOCAL.offDiff.path,
                line: LOCAL.offDiff.line,
                side: 'RIGHT',
                body: 'Off the diff: tests?',
                severity: 'P3',
              },
            ],
          },
        },
      ],
      usage: { inputTokens: 1100, outputTokens: 200 },
    },
  ];
}

interface SarifRegion {
  startLine: number;
  endLine: number;
}
interface SarifResultView {
  level: string;
  message: { text: string };
  locations: Array<{ physicalLocation: { artifactLocation: { uri: string }; region: SarifRegion } }>;
  fixes?: Array<{
    artifactChanges: Array<{
      replacements: Array<{ deletedRegion: SarifRegion; insertedContent: { text: string } }>;
    }>;
  }>;
}

describe('reviewbot review --local', () => {
  let repo: LocalRepo;
  let llm: FakeLlm;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    repo = createLocalRepo();
    llm = await startFakeAnthropic({ apiKey: LLM_KEY });
    env = {
      AGENT_PROVIDER: 'anthropic',
      AGENT_MODEL: 'test-model',
      ANTHROPIC_API_KEY: LLM_KEY,
      ANTHROPIC_BASE_URL: llm.url,
      WORKSPACE_BASE_DIR: `${repo.root}/workspaces`,
      HOME: repo.root,
    };
  });
  afterAll(async () => {
    await llm?.close();
    if (repo) rmSync(repo.root, { recursive: true, force: true });
  });

  it('--format sarif: one valid SARIF 2.1.0 result per finding, on the working tree lines', async () => {
    llm.setScript(script());
    const status = runGit(repo.dir, ['status', '--porcelain']);
    const result = await runCli(['review', '--local', '--format', 'sarif'], env, { cwd: `${repo.dir}/src` });
    expect(result.stderr).not.toMatch(/reviewbot: /);
    expect(result.code).toBe(0);
    const log = JSON.parse(result.stdout) as {
      runs: Array<{ results: SarifResultView[]; tool: { driver: Record<string, unknown> } }>;
    };
    expect(sarifErrors(log)).toEqual([]);
    const run = log.runs[0]!;
    expect(run.tool.driver).toMatchObject({
      name: 'reviewbot',
      version: '0.1.0',
      informationUri: expect.stringMatching(/^https:\/\//),
    });
    const at = (r: SarifResultView) => {
      const loc = r.locations![0]!.physicalLocation;
      return `${r.level} ${loc.artifactLocation.uri}:${loc.region.startLine}-${loc.region.endLine}`;
    };
    // Levels by severity (§21): P1 error, P2 (no severity given) warning, P3 note.
    expect(run.results.map(at)).toEqual([
      `error ${LOCAL.committed.path}:5-5`,
      `note ${LOCAL.staged.path}:2-3`,
      `warning ${LOCAL.unstaged.path}:8-8`,
      // The removed line 3 sits before what is now line 3.
      `warning ${LOCAL.unstaged.path}:3-3`,
      `warning ${LOCAL.renamed.path}:6-6`,
      `warning ${LOCAL.untracked.path}:2-2`,
      `note ${LOCAL.offDiff.path}:15-15`,
    ]);
    expect(run.results[3]!.message.text).toMatch(
      /^On removed line\(s\) 3 of the base version: Removed u3: used\?/,
    );
    expect(run.results[1]!.fixes?.[0]?.artifactChanges[0]?.replacements[0]).toEqual({
      deletedRegion: { startLine: 2, endLine: 3 },
      insertedContent: { text: 'export const s23 = [2, 3];' },
    });

    // The model saw every kind of change, fenced, and nothing of main's later commit or ignored files.
    const prompt = llm.requests[0]!.messages.map((m) => m.text).join('\n');
    for (const text of ['c5 = 500', 's3 = 3', 'r6 = 600', 'UNSTAGED', '- ship it', LOCAL.renamed.from]) {
      expect(prompt).toContain(text);
    }
    expect(prompt).not.toContain('onMain');
    expect(prompt).not.toContain('ignored();');
    // Its Read saw the working tree (the unstaged edit), read in place.
    expect(llm.requests[1]!.toolResults[0]!.content).toContain('u9 = 900; // UNSTAGED');
    // Nothing in the clone changed: same status, no stray files.
    expect(runGit(repo.dir, ['status', '--porcelain'])).toBe(status);
  });

  it('--format json and text print the same review; nothing is posted', async () => {
    llm.setScript(script());
    const json = await runCli(['review', '--local', '--json', '--base', 'origin/main'], env, {
      cwd: repo.dir,
    });
    expect(json.code).toBe(0);
    const parsed = JSON.parse(json.stdout) as Record<string, unknown>;
    expect(parsed).toMatchObject({
      posted: false,
      summary: 'Local changes reviewed.',
      local: { baseRef: 'origin/main' },
    });
    expect(parsed.findings).toHaveLength(6);
    expect(parsed.rejected).toEqual([
      expect.objectContaining({ path: LOCAL.offDiff.path, line: 15, severity: 'P3', confidence: null }),
    ]);
    // §21: severity and confidence on every finding, the verdict over them, nothing below the threshold.
    expect((parsed.findings as Array<Record<string, unknown>>).slice(0, 3)).toEqual([
      expect.objectContaining({ severity: 'P1', confidence: 0.9 }),
      expect.objectContaining({ severity: 'P3', confidence: null }),
      expect.objectContaining({ severity: 'P2', confidence: null }),
    ]);
    expect(parsed.verdict).toEqual({
      status: 'blocking',
      counts: { P0: 0, P1: 1, P2: 4, P3: 2 },
      blockOn: 'P1',
    });
    expect(parsed.belowThreshold).toEqual([]);

    llm.setScript(script());
    const text = await runCli(['review', '--local'], env, { cwd: repo.dir });
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('Review of local changes on feature against origin/main');
    expect(text.stdout).toContain(`${LOCAL.renamed.path}:6 (RIGHT)`);
    expect(text.stdout).toContain(`${LOCAL.unstaged.path}:3 (LEFT)`);
    expect(text.stdout).toContain('Not posted (--local).');
    expect(text.stdout).toContain('Verdict: blocking — P1 ×1 · 6 other findings');
    expect(text.stdout).toContain(`[P1] ${LOCAL.committed.path}:5 (RIGHT)`);
    for (const out of [json.stdout, json.stderr, text.stdout, text.stderr])
      expect(out).not.toContain(LLM_KEY);
  });

  it('--fail-on exits 3 when the verdict counts a finding at or above it; min_severity sets some aside', async () => {
    llm.setScript(script());
    const failing = await runCli(['review', '--local', '--json', '--fail-on', 'P1'], env, { cwd: repo.dir });
    expect(failing.code).toBe(3);
    expect(JSON.parse(failing.stdout)).toMatchObject({ verdict: { status: 'blocking' } });
    expect(failing.stderr).toContain('reviewbot: verdict blocking — P1 ×1 · 6 other findings');

    llm.setScript(script());
    const passing = await runCli(['review', '--local', '--json', '--fail-on', 'P0'], env, { cwd: repo.dir });
    expect(passing.code).toBe(0);

    llm.setScript(script());
    const strict = await runCli(
      ['review', '--local', '--json'],
      { ...env, REVIEW_MIN_SEVERITY: 'P1' },
      {
        cwd: repo.dir,
      },
    );
    expect(strict.code).toBe(0);
    const result = JSON.parse(strict.stdout) as {
      findings: unknown[];
      belowThreshold: unknown[];
      receipt: { findings: unknown };
    };
    expect(result.findings).toEqual([expect.objectContaining({ severity: 'P1' })]);
    expect(result.belowThreshold).toHaveLength(6);
    expect(result.receipt.findings).toEqual({
      bySeverity: { P0: 0, P1: 1, P2: 0, P3: 0 },
      belowThreshold: 6,
    });

    const usage = await runCli(['review', '--local', '--fail-on', 'P9'], env, { cwd: repo.dir });
    expect(usage.code).toBe(2);
  });

  it("the agent's Read, Grep and Glob see no file .gitignore excludes (.env, node_modules)", async () => {
    llm.setScript([
      {
        toolCalls: [
          { name: 'Read', input: { file_path: LOCAL.ignoredEnv } },
          { name: 'Read', input: { file_path: LOCAL.ignoredDependency } },
          { name: 'Grep', input: { pattern: 'CANARY_' } },
          { name: 'Grep', input: { pattern: 'CANARY_', path: 'node_modules' } },
          { name: 'Glob', input: { pattern: '**/*' } },
          { name: 'Read', input: { file_path: LOCAL.untracked.path } },
        ],
      },
      { toolCalls: [{ name: 'submit_review', input: { summary: 'Looked around.', comments: [] } }] },
    ]);
    const first = llm.requests.length;
    const result = await runCli(['review', '--local', '--json'], env, { cwd: repo.dir });
    expect(result.code).toBe(0);
    const requests = llm.requests.slice(first);
    expect(requests).toHaveLength(2);
    const [readEnv, readDependency, grep, grepDependency, glob, readUntracked] = requests[1]!.toolResults;
    expect(readEnv).toMatchObject({ isError: true });
    expect(readEnv!.content).toMatch(/not a file of the repository/);
    expect(readDependency).toMatchObject({ isError: true });
    expect(grep!.content).toBe('No matches found.');
    expect(grepDependency).toMatchObject({ isError: true });
    const globbed = glob!.content.split('\n');
    expect(globbed).toContain(LOCAL.untracked.path);
    expect(globbed).toContain(LOCAL.staged.path);
    expect(globbed).not.toContain(LOCAL.ignoredEnv);
    expect(globbed).not.toContain(LOCAL.ignored);
    expect(globbed.filter((f) => f.startsWith('node_modules'))).toEqual([]);
    // Untracked files that are not ignored stay readable (they are part of the review).
    expect(readUntracked!.content).toContain('- ship it');
    for (const request of requests) expect(JSON.stringify(request)).not.toContain(CANARY);
    expect(result.stdout).not.toContain(CANARY);
  });

  it('exit 2 with one line for a bad base, outside a repository, or a ref with --local', async () => {
    const cases: Array<[string, string[], RegExp]> = [
      [repo.dir, ['review', '--local', '--base', 'no-such-branch'], /invalid --base "no-such-branch"/],
      [os.tmpdir(), ['review', '--local'], /--local needs a git repository/],
      [repo.dir, ['review', '--local', 'acme/widgets#1'], /--local reviews the current repository/],
      [repo.dir, ['review', 'acme/widgets#1', '--format', 'sarif'], /--format sarif needs --local/],
    ];
    for (const [cwd, args, message] of cases) {
      const result = await runCli(args, env, { cwd });
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr).toMatch(message);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
      expect(result.stdout).toBe('');
    }
  });

  it('exit 1 when the model provider refuses the key', async () => {
    llm.setScript(script());
    const result = await runCli(
      ['review', '--local', '--format', 'sarif'],
      {
        ...env,
        ANTHROPIC_API_KEY: 'sk-wrong-key',
      },
      { cwd: repo.dir },
    );
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/reviewbot: /);
  });
});

describe('reviewbot review without a usable ref', () => {
  it.each([
    [[], /missing pull request reference: expected owner\/repo#N .*or a pull\/merge request URL/],
    [['acme/widgets'], /invalid pull request reference "acme\/widgets".*expected owner\/repo#N/],
    [['acme/widgets#0'], /expected owner\/repo#N/],
    [['--base', 'main', 'acme/widgets#1'], /--base needs --local/],
  ])('review %j: exit 2, one line naming the expected form', async (args, message) => {
    const result = await runCli(['review', ...args], {});
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stdout).toBe('');
  });
});
