import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  startFakeAnthropic,
  type FakeLlm,
  type RecordedLlmRequest,
  type ScriptedReply,
} from '../../../test/support/fake-llm/index.js';
import { survivorRunning, SURVIVOR_MARK } from '../../../test/support/sandbox-battery.js';
import { createApiRunner } from '../../agent/api-runner.js';
import { probeSandbox, type ToolSandbox } from '../../agent/sandbox/index.js';
import { SecretMasker } from '../../secrets.js';
import type { Finding } from '../types.js';
import { hashTree } from './tree-hash.test-helper.js';
import { verifyFindings, type VerifyConfig } from './verify-findings.js';

const KEY = 'test-key-verify';
const detected = await probeSandbox('auto');

type Sev = 'P0' | 'P1' | 'P2' | 'P3';
function finding(tag: string, severity: Sev | undefined, line = 1): Finding {
  return {
    path: 'src/add.js',
    line,
    side: 'RIGHT',
    body: `${tag}: add subtracts`,
    ...(severity ? { severity } : {}),
  } as Finding;
}

/** The scripted model: runs the probe the finding's tag names with Bash, then answers. */
function script(request: RecordedLlmRequest): ScriptedReply {
  const prompt = request.messages[0]?.text ?? '';
  const tag = /(CONFIRM|REFUTE|UNSURE|SLEEPY)\d*: add subtracts/.exec(prompt)?.[1];
  const result = request.toolResults[0];
  if (result === undefined) {
    const command =
      tag === 'SLEEPY'
        ? `sleep ${SURVIVOR_MARK} & sleep ${SURVIVOR_MARK}`
        : 'printf "import {add} from \\"./src/add.js\\";\\nconsole.log(add(2, 3));\\n" > probe.mjs && node probe.mjs';
    return {
      toolCalls: [{ name: 'Bash', input: { command } }],
      usage: { inputTokens: 100, outputTokens: 10 },
    };
  }
  if (tag === 'UNSURE')
    return {
      text: `Could not tell.\n{"verdict": "inconclusive", "command": "node probe.mjs", "output": ${JSON.stringify(result.content)}, "explanation": "?"}`,
      usage: { inputTokens: 50, outputTokens: 5 },
    };
  const verdict = tag === 'REFUTE' ? 'refuted' : 'confirmed';
  return {
    toolCalls: [
      {
        name: 'submit_verification',
        input: { verdict, command: 'node probe.mjs', output: result.content, explanation: 'add(2, 3) is -1' },
      },
    ],
    usage: { inputTokens: 200, outputTokens: 20 },
  };
}

const config: VerifyConfig = {
  verify: 'on',
  verify_min_severity: 'P1',
  verify_max: 5,
  verify_timeout_seconds: 60,
  max_parallel_runs: 4,
};

describe('verifyFindings against the fake model', () => {
  let fake: FakeLlm;
  let base: string;
  let workspace: string;
  let scratch: string;
  const sandbox: ToolSandbox = { status: detected, networkHosts: ['example.com'] };
  const runner = () =>
    createApiRunner({
      provider: 'anthropic',
      model: 'model-x',
      baseUrl: `${fake.url}/v1`,
      env: { ANTHROPIC_API_KEY: KEY },
    });

  beforeAll(async () => {
    fake = await startFakeAnthropic({ apiKey: KEY });
    fake.setScript((request) => script(request));
    base = realpathSync(mkdtempSync(path.join(tmpdir(), 'verify-findings-test-')));
    workspace = path.join(base, 'pr-3');
    scratch = path.join(base, 'scratch');
    mkdirSync(scratch);
    execFileSync('git', ['init', '-q', workspace]);
    mkdirSync(path.join(workspace, 'src'));
    writeFileSync(path.join(workspace, 'src', 'add.js'), 'export function add(x, y) {\n  return x - y;\n}\n');
    execFileSync('git', ['-C', workspace, 'add', '.']);
    execFileSync('git', ['-C', workspace, '-c', 'user.name=t', '-c', 'user.email=t@e', 'commit', '-qm', 'c']);
  });
  afterAll(async () => {
    await fake.close();
    rmSync(base, { recursive: true, force: true });
  });
  afterEach(() => {
    fake.requests.length = 0;
  });

  it.runIf(detected.kind === 'bwrap')(
    'confirms, refutes and leaves inconclusive by running a probe; only selected findings, most severe first',
    async () => {
      const before = hashTree(workspace);
      const findings = [
        finding('UNSURE', 'P1', 2),
        finding('NIT', 'P3'),
        finding('REFUTE', 'P0'),
        finding('CONFIRM', 'P1'),
        finding('PLAIN', undefined),
      ];
      const result = await verifyFindings({
        findings,
        tree: workspace,
        config,
        runner: runner(),
        sandbox,
        masker: new SecretMasker(),
        scratchDir: scratch,
      });
      // The probe ran in the sandbox: its output came back through Bash.
      expect(result.findings.map((f) => f.body.split(':')[0])).toEqual(['UNSURE', 'NIT', 'CONFIRM', 'PLAIN']);
      const confirmed = result.findings[2] as Finding & { verification: { status: string; output: string } };
      expect(confirmed.verification.status).toBe('confirmed');
      expect(confirmed.verification.output.trim()).toBe('-1');
      expect((result.findings[0] as { verification: { status: string } }).verification.status).toBe(
        'inconclusive',
      );
      expect(result.findings[1]).not.toHaveProperty('verification');
      expect(result.findings[3]).not.toHaveProperty('verification'); // no severity = P2, below P1
      expect(result.refuted.map((f) => f.body.split(':')[0])).toEqual(['REFUTE']);
      expect(result.receipt).toMatchObject({ confirmed: 1, refuted: 1, inconclusive: 1, skipped: 0 });
      expect(result.usage.usage).toEqual({
        inputTokens: 3 * 100 + 2 * 200 + 50,
        outputTokens: 3 * 10 + 2 * 20 + 5,
      });
      // Each run had the verification tools only, and the workspace never saw the probe.
      expect(new Set(fake.requests.flatMap((r) => r.toolNames))).toEqual(
        new Set(['Read', 'Glob', 'Grep', 'Bash', 'submit_verification']),
      );
      expect(fake.requests[0]?.system).toMatch(/smallest probe/);
      expect(existsSync(path.join(workspace, 'probe.mjs'))).toBe(false);
      expect(hashTree(workspace)).toBe(before);
      expect(readdirSync(scratch)).toEqual([]);
    },
    60_000,
  );

  it.runIf(detected.kind === 'bwrap')(
    'a probe that sleeps past the limit is killed: inconclusive, no process left, the workspace byte-identical',
    async () => {
      const before = hashTree(workspace);
      const started = Date.now();
      const result = await verifyFindings({
        findings: [finding('SLEEPY', 'P0')],
        tree: workspace,
        config: { ...config, verify_timeout_seconds: 5 },
        runner: runner(),
        sandbox,
        masker: new SecretMasker(),
        scratchDir: scratch,
      });
      expect(Date.now() - started).toBeLessThan(5_000 + 4_000);
      const verification = (result.findings[0] as { verification: { status: string; reason?: string } })
        .verification;
      expect(verification).toMatchObject({ status: 'inconclusive', reason: 'timed out after 5 s' });
      expect(result.receipt).toMatchObject({ inconclusive: 1, confirmed: 0 });
      expect(survivorRunning()).toBe(false);
      expect(hashTree(workspace)).toBe(before);
      expect(readdirSync(scratch)).toEqual([]);
    },
    30_000,
  );

  it('without a sandbox skips every selected finding with the reason and never calls the model', async () => {
    const result = await verifyFindings({
      findings: [finding('CONFIRM', 'P0'), finding('NIT', 'P3')],
      tree: workspace,
      config,
      runner: runner(),
      sandbox: { status: { kind: 'off' }, networkHosts: [] },
      masker: new SecretMasker(),
    });
    expect(result.receipt).toMatchObject({
      skipped: 1,
      confirmed: 0,
      skippedReason: expect.stringMatching(/never verified unsandboxed/),
    });
    expect((result.findings[0] as { verification: { status: string } }).verification.status).toBe('skipped');
    expect(fake.requests).toEqual([]);
  });

  it('with review.verify off changes nothing', async () => {
    const findings = [finding('CONFIRM', 'P0')];
    const result = await verifyFindings({
      findings,
      tree: workspace,
      config: { ...config, verify: 'off' },
      runner: runner(),
      sandbox,
      masker: new SecretMasker(),
    });
    expect(result.findings).toEqual(findings);
    expect(result.receipt).toMatchObject({ confirmed: 0, refuted: 0, inconclusive: 0, skipped: 0 });
    expect(fake.requests).toEqual([]);
  });
});
