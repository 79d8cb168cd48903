/**
 * End to end: `reviewbot eval` (the built CLI) over the fixture dataset of seeded bugs, each case
 * reviewed against the fake GitHub without posting, judged by the scripted model, scored exactly as
 * counted by hand (see `evalScript`).
 */
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAI, type FakeLlm } from '../support/fake-llm/index.js';
import { runCli } from '../support/run-cli.js';
import {
  createEvalFixture,
  EVAL_FIXTURE_DIR,
  evalScript,
  GITHUB_TOKEN,
  LLM_KEY,
  type EvalFixture,
} from './eval-fixture.js';

describe('reviewbot eval', () => {
  let fx: EvalFixture;
  let llm: FakeLlm;
  let env: NodeJS.ProcessEnv;
  let configFile: string;
  let datasetFile: string;

  beforeAll(async () => {
    fx = await createEvalFixture();
    llm = await startFakeOpenAI({ apiKey: LLM_KEY, script: evalScript });
    env = {
      CODEHOST_TOKEN: GITHUB_TOKEN,
      CODEHOST_API_URL: fx.github.url,
      WORKSPACE_BASE_DIR: path.join(fx.root, 'workspaces'),
      AGENT_PROVIDER: 'openai',
      OPENAI_API_KEY: LLM_KEY,
      OPENAI_BASE_URL: `${llm.url}/v1`,
      AGENT_MODEL: 'test-model',
      HOME: fx.root,
    };
    // Prices so that cost is known: $3 per million input tokens, $15 per million output tokens.
    configFile = path.join(fx.root, 'reviewbot.yaml');
    writeFileSync(configFile, 'agent:\n  pricing:\n    input_per_mtok: 3\n    output_per_mtok: 15\n');
    // The fixture dataset, plus a case whose pull request does not exist (it must fail, unscored).
    const dataset = JSON.parse(readFileSync(path.join(EVAL_FIXTURE_DIR, 'dataset.json'), 'utf8'));
    dataset.cases.push({ ref: 'acme/shop#4', golden: [{ comment: 'anything' }] });
    datasetFile = path.join(fx.root, 'dataset.json');
    writeFileSync(datasetFile, JSON.stringify(dataset));
  }, 120_000);
  afterAll(async () => {
    await llm?.close();
    await fx?.close();
  });

  it('--json prints the scores a hand count gives, posts nothing, and --out writes the report', async () => {
    const out = path.join(fx.root, 'report');
    const result = await runCli(
      ['eval', datasetFile, '--json', '--out', out, '--config', configFile],
      env,
      180_000,
    );
    expect(result.stderr).not.toMatch(/reviewbot: /);
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report.dataset).toBe('reviewbot seeded bugs');
    expect(report.overall).toMatchObject({
      tp: 2,
      fp: 2,
      fn: 3,
      precision: 0.5,
      recall: 0.4,
      f1: 0.4444,
      scored: 3,
      errors: 1,
    });
    // Matches count under the golden comment's severity; the two unmatched findings are P2 here
    // (scripted so, and P2 is also what a finding without a severity is).
    expect(report.overall.bySeverity).toEqual({
      P0: { tp: 1, fp: 0, fn: 0, precision: 1, recall: 1, f1: 1 },
      P1: { tp: 1, fp: 0, fn: 2, precision: 1, recall: 0.3333, f1: 0.5 },
      P2: { tp: 0, fp: 2, fn: 1, precision: 0, recall: 0, f1: 0 },
      P3: { tp: 0, fp: 0, fn: 0, precision: null, recall: null, f1: null },
    });
    const [one, two, three, four] = report.cases;
    expect(one).toMatchObject({ status: 'scored', matches: [{ finding: 0, golden: 0 }], droppedMatches: 0 });
    expect(one.score).toMatchObject({ tp: 1, fp: 1, fn: 1, precision: 0.5, recall: 0.5, f1: 0.5 });
    // The judge matched G0 twice and named a finding that does not exist: one match survives.
    expect(two).toMatchObject({ status: 'scored', matches: [{ finding: 0, golden: 0 }], droppedMatches: 2 });
    expect(two.score).toMatchObject({ tp: 1, fp: 1, fn: 0, precision: 0.5, recall: 1 });
    // The empty review: no judge call, nothing found.
    expect(three).toMatchObject({ status: 'scored', findings: [], judge: { called: false } });
    expect(three.score).toMatchObject({ tp: 0, fp: 0, fn: 2, precision: null, recall: 0, f1: 0 });
    expect(four).toMatchObject({ status: 'error', ref: 'acme/shop#4' });
    expect(four.error).toMatch(/^review failed: /);
    expect(four.score).toBeUndefined();

    // Cost: 3 reviews of 1000 + 100 tokens ($0.0045 each) and 2 judge calls of 500 + 50 ($0.00225).
    expect(report.overall.tokens).toEqual({ input: 4000, output: 400 });
    expect(report.overall.costUsd).toBeCloseTo(0.018, 10);
    expect(one.costUsd).toBeCloseTo(0.00675, 10);

    // Progress on stderr: case i of n and the running cost.
    expect(result.stderr).toContain('case 1 of 4: acme/shop#1: reviewing (dry run)');
    expect(result.stderr).toMatch(
      /case 2 of 4: acme\/shop#2: 2 findings, 1 of 1 golden comments matched; cost so far \$0\.0135/,
    );
    expect(result.stderr).toMatch(/case 4 of 4: acme\/shop#4: error: review failed/);

    // Dry runs: nothing written to the pull requests.
    expect(fx.github.writeRequests()).toEqual([]);
    expect(fx.github.violations).toEqual([]);
    // The judge saw labelled items and was offered submit_matches.
    const judgeCall = llm.requests.find((r) => r.toolNames.includes('submit_matches'))!;
    const judgeText = judgeCall.messages.map((m) => m.text).join('\n');
    expect(judgeText).toContain('[F0] src/cart.ts:16 The loop goes one past the end');
    expect(judgeText).toContain('[G1] src/cart.ts:19 The discount is inverted');

    // --out: the Markdown report and one JSON file per case.
    const files = readdirSync(out).sort();
    expect(files).toEqual([
      'case-001-acme-shop-1.json',
      'case-002-acme-shop-2.json',
      'case-003-acme-shop-3.json',
      'case-004-acme-shop-4.json',
      'report.md',
      'results.json',
    ]);
    const markdown = readFileSync(path.join(out, 'report.md'), 'utf8');
    expect(markdown).toContain('| acme/shop#1 | 2 | 2 | 1 | 1 | 1 | 0.50 | 0.50 | 0.50 | $0.0067 |');
    expect(markdown).toContain('| overall | 4 | 5 | 2 | 2 | 3 | 0.50 | 0.40 | 0.44 | $0.0180 |');
    const caseTwo = JSON.parse(readFileSync(path.join(out, 'case-002-acme-shop-2.json'), 'utf8'));
    expect(caseTwo.findings.map((f: { body: string }) => f.body)).toEqual([
      'Inverted comparison: an expired session is accepted.',
      'Should be `now < session.expiresAt`.',
    ]);
  }, 240_000);

  it('prints a table on stdout without --json', async () => {
    const result = await runCli(
      ['eval', path.join(EVAL_FIXTURE_DIR, 'dataset.json'), '--config', configFile],
      env,
      180_000,
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Eval of "reviewbot seeded bugs"');
    expect(result.stdout).toMatch(/3 cases: 3 scored, 0 errors/);
    expect(result.stdout).toMatch(/overall\s+4\s+5\s+2\s+2\s+3\s+0\.50\s+0\.40\s+0\.44\s+\$0\.0180/);
    expect(result.stdout).toMatch(/P0\s+1\s+0\s+0\s+1\.00\s+1\.00\s+1\.00/);
  }, 240_000);

  it.each([
    ['not JSON', '{"name": ', /dataset .* is not JSON/],
    [
      'a case without golden comments and a bad severity',
      JSON.stringify({
        name: 'x',
        cases: [
          { ref: 'acme/shop#1' },
          { ref: 'acme/shop#2', golden: [{ comment: 'c', severity: 'urgent' }] },
        ],
      }),
      /cases\[0\]\.golden: [\s\S]*cases\[1\]\.golden\[0\]\.severity: must be P0, P1, P2, P3/,
    ],
    [
      'a bad ref',
      JSON.stringify({ name: 'x', cases: [{ ref: 'acme/shop', golden: [] }] }),
      /cases\[0\]\.ref: /,
    ],
    ['no cases', JSON.stringify({ name: 'x', cases: [] }), /cases: must list at least one case/],
  ])(
    'exits 2 on a dataset that is %s, naming the problem, with no network call',
    async (_what, text, message) => {
      const file = path.join(mkdtempSync(path.join(fx.root, 'bad-')), 'dataset.json');
      writeFileSync(file, text);
      const before = llm.requests.length;
      const result = await runCli(['eval', file], env);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(message);
      expect(result.stdout).toBe('');
      expect(llm.requests.length).toBe(before);
    },
  );
});
