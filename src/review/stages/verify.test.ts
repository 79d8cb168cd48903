/**
 * The verify stage inside a whole review (`executeReview` over a real git repository, the local
 * platform, the real API runner against the fake model, the real sandbox): a confirmed finding is
 * posted with its evidence, a refuted one leaves the review and the verdict, the receipt counts
 * both; with the stage off the review is as before; without a sandbox nothing runs and the receipt
 * says why; with the cost cap reached nothing runs.
 */
import { parseFindingMarker } from '../memory/markers.js';
import { decodeProbe } from '../verify/probe.js';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  startFakeAnthropic,
  type FakeLlm,
  type RecordedLlmRequest,
  type ScriptedReply,
} from '../../../test/support/fake-llm/index.js';
import { runGit } from '../../../test/support/git-fixtures.js';
import { createApiRunner } from '../../agent/api-runner.js';
import { probeSandbox, type ToolSandbox } from '../../agent/sandbox/index.js';
import type { AgentRunner } from '../../agent/types.js';
import { collectLocalChanges } from '../../local/local-changes.js';
import { createLocalPlatform, LOCAL_REPO_NAME, localPullRequest } from '../../local/local-platform.js';
import { silentLogger } from '../../logger.js';
import { SecretMasker } from '../../secrets.js';
import { executeReview } from '../execute-review.js';
import { DEFAULT_LIMITS } from '../limits.js';
import { createPartSession } from '../part-session.js';
import type { Finding } from '../types.js';
import { hashTree } from '../verify/tree-hash.test-helper.js';
import type { SettledFindings } from './settle-memory.js';
import { reviewContext, type ExecuteReviewInput, type ReviewVerifySettings } from './types.js';
import { CAP_REACHED_REASON, verifyStage } from './verify.js';

const KEY = 'test-key-verify-stage';
const detected = await probeSandbox('auto');
const VERIFY_ON: ReviewVerifySettings = {
  verify: 'on',
  verify_min_severity: 'P2',
  verify_max: 5,
  verify_timeout_seconds: 60,
};
const VERIFICATION_SYSTEM = 'You verify one finding';

/** The review's answer: a P2 the probe confirms, a P0 it refutes, a P3 below `verify_min_severity`. */
const REVIEW: ScriptedReply = {
  toolCalls: [
    {
      name: 'submit_review',
      input: {
        summary: 'Arithmetic changed.',
        comments: [
          { path: 'src/add.js', line: 2, side: 'RIGHT', body: 'CONFIRM: add subtracts.', severity: 'P2' },
          { path: 'src/mul.js', line: 2, side: 'RIGHT', body: 'REFUTE: mul divides.', severity: 'P0' },
          { path: 'src/add.js', line: 1, side: 'RIGHT', body: 'NIT: a better name?', severity: 'P3' },
        ],
      },
    },
  ],
  usage: { inputTokens: 1000, outputTokens: 100 },
};

const PROBE: Record<string, string> = {
  CONFIRM:
    'printf "import {add} from \\"./src/add.js\\";\\nconsole.log(add(2, 3));\\nif (add(2, 3) !== 5) process.exitCode = 1;\\n" > probe.mjs && node probe.mjs',
  REFUTE:
    'printf "import {mul} from \\"./src/mul.js\\";\\nconsole.log(mul(2, 3));\\n" > probe.mjs && node probe.mjs',
};

/** The fake model: the review's answer; in a verification run, a probe with Bash, then the verdict. */
function script(request: RecordedLlmRequest): ScriptedReply {
  if (!request.system.includes(VERIFICATION_SYSTEM)) return REVIEW;
  const tag = /(CONFIRM|REFUTE): /.exec(request.messages[0]?.text ?? '')?.[1] ?? 'CONFIRM';
  const result = request.toolResults[0];
  if (result === undefined)
    return {
      toolCalls: [{ name: 'Bash', input: { command: PROBE[tag] } }],
      usage: { inputTokens: 100, outputTokens: 10 },
    };
  return {
    toolCalls: [
      {
        name: 'submit_verification',
        input: {
          verdict: tag === 'REFUTE' ? 'refuted' : 'confirmed',
          command: 'node probe.mjs',
          output: result.content,
          explanation: tag === 'REFUTE' ? 'mul(2, 3) is 6' : 'add(2, 3) is -1',
        },
      },
    ],
    usage: { inputTokens: 200, outputTokens: 20 },
  };
}

const verifications = (fake: FakeLlm) => fake.requests.filter((r) => r.system.includes(VERIFICATION_SYSTEM));

describe('executeReview with the verify stage', () => {
  let fake: FakeLlm;
  let base: string;
  let repo: string;

  beforeAll(async () => {
    fake = await startFakeAnthropic({ apiKey: KEY });
    fake.setScript((request) => script(request));
    base = realpathSync(mkdtempSync(path.join(tmpdir(), 'verify-stage-test-')));
    repo = path.join(base, 'repo');
    mkdirSync(path.join(repo, 'src'), { recursive: true });
    runGit(repo, ['init', '-q', '-b', 'main']);
    const write = (file: string, text: string) => writeFileSync(path.join(repo, file), text);
    write('src/add.js', 'export function add(x, y) {\n  return x + y;\n}\n');
    write('src/mul.js', 'export function mul(x, y) {\n  return x + y;\n}\n');
    runGit(repo, ['add', '.']);
    runGit(repo, ['commit', '-qm', 'base']);
    runGit(repo, ['checkout', '-qb', 'feature']);
    write('src/add.js', 'export function add(x, y) {\n  return x - y;\n}\n');
    write('src/mul.js', 'export function mul(x, y) {\n  return x * y;\n}\n');
    runGit(repo, ['commit', '-qam', 'arithmetic']);
  });
  afterAll(async () => {
    await fake.close();
    rmSync(base, { recursive: true, force: true });
  });
  afterEach(() => {
    fake.requests.length = 0;
  });

  async function review(extra: Partial<ExecuteReviewInput>) {
    const changes = await collectLocalChanges({ cwd: repo, base: 'main' });
    const pullRequest = localPullRequest(changes);
    const runner = createApiRunner({
      provider: 'anthropic',
      model: 'model-x',
      baseUrl: `${fake.url}/v1`,
      env: { ANTHROPIC_API_KEY: KEY },
    });
    return executeReview({
      platform: createLocalPlatform(changes),
      runner,
      repoFullName: LOCAL_REPO_NAME,
      prNumber: pullRequest.number,
      pullRequest,
      baseDir: path.join(base, 'workspaces'),
      workspaceDir: changes.root,
      maxTurns: 10,
      logger: silentLogger(),
      masker: new SecretMasker(),
      ...extra,
    });
  }

  it.runIf(detected.kind === 'bwrap')(
    'posts the confirmed finding with its evidence, drops the refuted one from the findings, its marker and the verdict, and counts both in the receipt',
    async () => {
      const before = hashTree(repo);
      const sandbox: ToolSandbox = { status: detected, networkHosts: [] };
      const { result, inlineBodies } = await review({ verify: VERIFY_ON, sandbox });

      expect(result.findings.map((f) => f.body)).toEqual(['CONFIRM: add subtracts.', 'NIT: a better name?']);
      const [confirmed, nit] = result.findings as [Finding, Finding];
      expect(confirmed.verification).toMatchObject({ status: 'confirmed', command: 'node probe.mjs' });
      expect(confirmed.verification?.output).toContain('-1');
      expect(nit.verification).toBeUndefined(); // P3: below review.verify_min_severity
      expect(result.refuted).toHaveLength(1);
      expect(result.refuted?.[0]).toMatchObject({ body: 'REFUTE: mul divides.', severity: 'P0' });
      expect(result.refuted?.[0]?.verification).toMatchObject({ status: 'refuted' });

      // The evidence goes into the confirmed finding's inline body, before its hidden marker.
      expect(inlineBodies).toHaveLength(2);
      const body = inlineBodies[0]!;
      expect(body).toContain('<summary>Verified by running code</summary>');
      expect(body).toMatch(/```sh\nnode probe\.mjs\n```/);
      expect(body).toMatch(/```text\nToolError: Command exited with code 1\.\n-1\n```/);
      expect(body.indexOf('Verified by running code')).toBeLessThan(body.indexOf('<!-- reviewbot:finding'));
      // Its marker carries the probe (the command and the file the run wrote; it fails on the head as
      // it is), for `apply` to re-run.
      const marker = parseFindingMarker(body);
      expect(marker?.severity).toBe('P2');
      expect(decodeProbe(marker?.probe ?? '')).toEqual({
        command: 'node probe.mjs',
        files: [
          {
            path: 'probe.mjs',
            content:
              'import {add} from "./src/add.js";\nconsole.log(add(2, 3));\nif (add(2, 3) !== 5) process.exitCode = 1;\n',
          },
        ],
      });
      expect(confirmed.verification?.probe?.files.map((f) => f.path)).toEqual(['probe.mjs']);
      // The refuted P0's marker is gone with it (a later review would count it as open).
      expect(inlineBodies.join('\n')).not.toContain('sev=P0');
      expect(inlineBodies[1]).not.toContain('Verified by running code');
      expect(inlineBodies.join('\n')).not.toContain('REFUTE');

      // The verdict ignores the refuted P0 (blocking otherwise); the body neither posts nor counts it.
      expect(result.verdict).toMatchObject({
        status: 'non-blocking',
        counts: { P0: 0, P1: 0, P2: 1, P3: 1 },
      });
      expect(result.body).not.toContain('REFUTE');
      expect(result.receipt?.findings?.bySeverity).toMatchObject({ P0: 0, P2: 1, P3: 1 });

      // The receipt: counts, the stage's runs and tokens in the review's totals, one line in the body.
      expect(result.receipt?.verification).toMatchObject({
        confirmed: 1,
        refuted: 1,
        inconclusive: 0,
        skipped: 0,
      });
      expect(result.receipt?.verification?.skippedReason).toBeUndefined();
      expect(verifications(fake)).toHaveLength(4); // two runs: the probe, then the verdict
      expect(result.receipt?.agentRuns).toBe(3);
      expect(result.receipt?.toolCalls).toBeGreaterThanOrEqual(4); // submit_review, 2 × (Bash, submit_verification)
      expect(result.receipt?.tokens.output).toBe(100 + 2 * (10 + 20));
      expect(result.receipt?.tokens.input).toBe(1000 + 2 * (100 + 200));
      expect(result.usage.outputTokens).toBe(160);
      expect(result.body).toContain(
        '- Verification: 1 confirmed · 1 refuted (not posted) · 0 inconclusive · 0 skipped',
      );

      // The probes wrote into a disposable copy: the repository is as it was.
      expect(hashTree(repo)).toEqual(before);
    },
  );

  it('with review.verify off, runs no verification and the output has no trace of it', async () => {
    const sandbox: ToolSandbox = { status: detected, networkHosts: [] };
    const { result, inlineBodies } = await review({ verify: { ...VERIFY_ON, verify: 'off' }, sandbox });
    expect(verifications(fake)).toHaveLength(0);
    expect(result.findings.map((f) => f.body)).toEqual([
      'CONFIRM: add subtracts.',
      'REFUTE: mul divides.',
      'NIT: a better name?',
    ]);
    expect(result.findings.every((f) => f.verification === undefined)).toBe(true);
    expect('refuted' in result).toBe(false);
    expect(result.receipt?.verification).toBeUndefined();
    expect(result.verdict?.status).toBe('blocking');
    expect(result.receipt?.agentRuns).toBe(1);
    expect(result.body).not.toContain('Verification');
    expect(inlineBodies.join('\n')).not.toMatch(/verified by running code/i);
    // No settings at all is the same as off.
    const { result: unset } = await review({});
    expect(unset.findings).toEqual(result.findings);
    expect('refuted' in unset).toBe(false);
  });

  it.each([
    ['no sandbox was given', undefined, 'no tool sandbox is available'],
    [
      'the sandbox is off',
      { status: { kind: 'off' }, networkHosts: [] } as ToolSandbox,
      'agent.sandbox: off',
    ],
  ])(
    'when %s, runs nothing, posts the selected findings as not verified and says why in the receipt',
    async (_case, sandbox, reason) => {
      const { result, inlineBodies } = await review({ verify: VERIFY_ON, ...(sandbox ? { sandbox } : {}) });
      expect(verifications(fake)).toHaveLength(0);
      expect(result.findings).toHaveLength(3);
      expect(result.refuted).toEqual([]);
      expect(result.findings.map((f) => f.verification?.status)).toEqual(['skipped', 'skipped', undefined]);
      expect(result.receipt?.verification).toMatchObject({
        confirmed: 0,
        refuted: 0,
        inconclusive: 0,
        skipped: 2,
      });
      expect(result.receipt?.verification?.skippedReason).toContain(reason);
      expect(inlineBodies[0]).toContain('_Not verified by running code._');
      expect(inlineBodies[1]).toContain('_Not verified by running code._');
      expect(inlineBodies[2]).not.toContain('Not verified');
      expect(result.body).toContain(
        '- Verification: 0 confirmed · 0 refuted (not posted) · 0 inconclusive · 2 skipped',
      );
      expect(result.body).toContain(`- Not verified: ${result.receipt?.verification?.skippedReason}`);
      expect(result.verdict?.status).toBe('blocking');
    },
  );
});

describe('verifyStage at the cost cap', () => {
  it('runs nothing once the review reached its cost cap: the selected findings are skipped with the reason', async () => {
    const calls: string[] = [];
    const runner: AgentRunner = {
      async run(options) {
        calls.push(options.prompt);
        throw new Error('no run expected');
      },
    };
    const rate = { base: 3, tiers: [] }; // USD per million tokens
    const session = createPartSession({
      runner,
      base: { workspaceDir: tmpdir(), systemPrompt: '', tools: [], maxTurns: 1 },
      limits: {
        ...DEFAULT_LIMITS,
        maxCostUsd: 0.001,
        rates: { input: rate, cacheWrite: rate, cacheRead: rate, output: rate },
      },
      onEvent: () => undefined,
      onPhase: () => undefined,
    });
    // A call far over the cap is refused: the review is capped from then on.
    expect(session.meter.admit(1, { promptChars: 100_000_000, maxOutputTokens: 1_000 })).toBe(false);
    expect(session.meter.capped).toBe(true);
    const finding = (body: string, severity: Finding['severity']): Finding => ({
      path: 'src/a.ts',
      line: 1,
      side: 'RIGHT',
      body,
      severity,
      confidence: null,
    });
    const settled: SettledFindings = {
      kept: [finding('serious', 'P1'), finding('nit', 'P3')],
      inlineMarkers: ['<!-- m1 -->', '<!-- m2 -->'],
      rejected: [],
      repeats: [],
      addressed: [],
      belowThreshold: [],
      duplicates: 0,
      dismissedNotice: '',
    };
    const ctx = reviewContext({
      verify: { ...VERIFY_ON, verify_min_severity: 'P1' },
      sandbox: { status: detected, networkHosts: [] },
      logger: silentLogger(),
    } as Partial<ExecuteReviewInput> as ExecuteReviewInput);
    const verified = await verifyStage(ctx, {
      session,
      settled,
      tree: tmpdir(),
      baseSha: 'a'.repeat(40),
      limits: DEFAULT_LIMITS,
    });
    expect(calls).toEqual([]);
    expect(verified.refuted).toEqual([]);
    expect(verified.settled.kept.map((f) => f.verification?.status)).toEqual(['skipped', undefined]);
    expect(verified.settled.kept[0]?.verification?.reason).toBe(CAP_REACHED_REASON);
    expect(verified.settled.inlineMarkers).toEqual(['<!-- m1 -->', '<!-- m2 -->']);
    expect(verified.receipt).toEqual({
      confirmed: 0,
      refuted: 0,
      inconclusive: 0,
      skipped: 1,
      durationMs: 0,
      skippedReason: CAP_REACHED_REASON,
    });
    expect(verified.runs).toBe(0);
  });
});
