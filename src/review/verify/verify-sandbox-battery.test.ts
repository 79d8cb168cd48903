/**
 * The escape battery of CONTRACT §16 inside verification runs (§22), on both runners: the API runner
 * against the fake Anthropic API, and the real Claude Code binary against the same fake (its Bash
 * runs in the same sandbox through the PreToolUse hook). Each attack is the Bash command of one turn,
 * then the model hands in a verdict carrying everything the commands printed. No secret in any form
 * may reach a model request, the verdict or a log line; nothing outside the disposable copy may
 * change — the pull request's workspace and its `.git` stay byte-identical, the copy's upper layer
 * is gone — and no process the run started is left. A probe sleeping past the limit is killed.
 */
import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeAnthropic, type FakeLlm } from '../../../test/support/fake-llm/index.js';
import { findLeaks, forkBombIsBounded, SURVIVOR_MARK } from '../../../test/support/sandbox-battery.js';
import { createApiRunner } from '../../agent/api-runner.js';
import { createClaudeCodeRunner } from '../../agent/claude-code/index.js';
import { probeSandbox, type ToolSandbox } from '../../agent/sandbox/index.js';
import type { AgentRunner } from '../../agent/types.js';
import { createLogger } from '../../logger.js';
import { SecretMasker } from '../../secrets.js';
import type { Finding } from '../types.js';
import { runVerification, type VerificationRunResult } from './run-verification.js';
import { hashTree } from './tree-hash.test-helper.js';
import {
  BATTERY_VERDICT,
  processesLeft,
  resultsByLabel,
  verificationBatteryScript,
  verifyBatteryCommands,
  type VerifyTargets,
} from './verify-battery.test-helper.js';

const KEY = 'sk-ant-verify-battery-key-5c1d9e0a7b';
const CANARY = 'canary-verify-3e8b1f-OUTSIDE-THE-WORKSPACE';
/** Secrets in this process's environment, one with a name no masker knows. */
const PLANTED = {
  ANTHROPIC_API_KEY: KEY,
  CODEHOST_TOKEN: 'ghp_verifyBatteryTokenMustNotLeak0042',
  REVIEWBOT_PLAIN_NAMED_VALUE: 'plain-named-verify-value-7a2c4e',
};
const status = await probeSandbox('auto');
const sandbox: ToolSandbox = { status, networkHosts: ['example.com'] };
const finding = {
  path: 'src/add.js',
  line: 2,
  side: 'RIGHT',
  body: 'add subtracts',
  severity: 'P0',
} as Finding;

let llm: FakeLlm;
let server: http.Server;
let base: string;
let targets: VerifyTargets;
let hostGitconfig: string | undefined;
const logs: string[] = [];
const logger = createLogger({
  destination: new Writable({
    write(chunk: Buffer, _encoding, callback) {
      logs.push(chunk.toString());
      callback();
    },
  }),
  masker: new SecretMasker([KEY]),
  level: 'debug',
});
const saved: Record<string, string | undefined> = {};

beforeAll(async () => {
  llm = await startFakeAnthropic({ apiKey: KEY });
  server = http.createServer((_req, res) => res.end('host server'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'verify-battery-')));
  const workspace = path.join(base, 'acme', 'widgets', 'pr-9');
  mkdirSync(path.join(workspace, 'src'), { recursive: true });
  execFileSync('git', ['init', '-q', workspace]);
  writeFileSync(path.join(workspace, 'src', 'add.js'), 'export function add(x, y) {\n  return x - y;\n}\n');
  writeFileSync(path.join(workspace, 'README.md'), '# widgets\n');
  execFileSync('git', ['-C', workspace, 'add', '.']);
  execFileSync('git', ['-C', workspace, '-c', 'user.name=t', '-c', 'user.email=t@e', 'commit', '-qm', 'c']);
  const scratch = path.join(base, 'scratch');
  mkdirSync(scratch);
  const canaryPath = path.join(base, 'canary.txt');
  writeFileSync(canaryPath, CANARY);
  targets = {
    workspace,
    scratch,
    canaryPath,
    writeTargets: [
      path.join(base, 'pwned.txt'),
      path.join(base, 'acme', 'widgets', 'pwned.txt'),
      path.join(os.tmpdir(), `reviewbot-verify-pwned-${process.pid}`),
    ],
    hostUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    forkBomb: forkBombIsBounded(status),
  };
  const gitconfig = path.join(os.homedir(), '.gitconfig');
  hostGitconfig = existsSync(gitconfig) ? readFileSync(gitconfig, 'utf8') : undefined;
  for (const [name, value] of Object.entries(PLANTED)) {
    saved[name] = process.env[name];
    process.env[name] = value;
  }
});

afterAll(async () => {
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  await new Promise((resolve) => server?.close(resolve));
  await llm?.close();
  if (base) rmSync(base, { recursive: true, force: true });
});

const RUNNERS: Record<'api' | 'claude-code', () => AgentRunner> = {
  api: () =>
    createApiRunner({
      provider: 'anthropic',
      model: 'model-x',
      baseUrl: `${llm.url}/v1`,
      env: { ANTHROPIC_API_KEY: KEY },
      masker: new SecretMasker([KEY]),
      logger,
      maxRetries: 0,
    }),
  'claude-code': () =>
    createClaudeCodeRunner({
      workspaceBaseDir: base,
      env: { PATH: process.env.PATH, ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: llm.url },
      masker: new SecretMasker([KEY]),
      model: 'claude-sonnet-4-5',
      logger,
      maxRetries: 0,
    }),
};

/** Runs one verification of `finding` with `runner`, as the review's stage does. */
function verify(runner: AgentRunner, timeoutMs: number): Promise<VerificationRunResult> {
  return runVerification({
    finding,
    workspace: targets.workspace,
    sandbox,
    runner,
    timeoutMs,
    masker: new SecretMasker([KEY]),
    scratchDir: targets.scratch,
    maxTurns: 40,
    logger,
  });
}

/** What must hold after every verification run, whatever it tried. */
function expectNothingLeftOrChanged(before: string): void {
  expect(hashTree(targets.workspace)).toBe(before);
  expect(readdirSync(targets.scratch)).toEqual([]);
  expect(processesLeft(targets.workspace)).toEqual([]);
  for (const target of targets.writeTargets) expect(existsSync(target), target).toBe(false);
  expect(readFileSync(targets.canaryPath, 'utf8')).toBe(CANARY);
  const gitconfig = path.join(os.homedir(), '.gitconfig');
  expect(existsSync(gitconfig) ? readFileSync(gitconfig, 'utf8') : undefined).toBe(hostGitconfig);
}

describe.runIf(status.kind === 'bwrap').each([
  { runner: 'api' as const, floods: true },
  { runner: 'claude-code' as const, floods: false },
])('the escape battery as the Bash commands of a verification run ($runner runner)', ({ runner, floods }) => {
  it('fails every attempt, leaks nothing, leaves the workspace byte-identical and no process behind', async () => {
    const commands = verifyBatteryCommands(targets, floods);
    const results: string[] = [];
    llm.requests.length = 0;
    logs.length = 0;
    llm.setScript(
      verificationBatteryScript(commands, {
        answer: runner === 'api' ? 'tool' : 'text',
        withTimeout: runner === 'api',
        results,
      }),
    );
    const before = hashTree(targets.workspace);
    const { verification } = await verify(RUNNERS[runner](), 240_000);
    expectNothingLeftOrChanged(before);

    // The run got through the whole battery and handed in its verdict.
    expect(verification).toMatchObject({ status: BATTERY_VERDICT, command: 'the battery' });
    expect(results).toHaveLength(commands.length);
    const byLabel = resultsByLabel(commands, results);
    expect(byLabel.get('ps')).not.toMatch(/vitest|node .*dist|claude/);
    expect(byLabel.get('open fds')).toMatch(/^0 1 2 3 *(\n|$)/);
    expect(byLabel.get('canary plain')).toMatch(/No such file/);
    expect(byLabel.get('git config')).toContain('user.name=evil-global');
    expect(byLabel.get('network')).toMatch(/BLOCKED/);
    expect(byLabel.get('network')).not.toMatch(/REACHED/);
    if (floods) {
      expect(byLabel.get('fork bomb')).toMatch(/timed out|Cannot fork|bomb-done|flood-done/);
      expect(byLabel.get('runaway output')).toMatch(/Command timed out after 2000 ms/);
    }
    // `.git` is read-only in the copy too; the copy itself is writable.
    const gitWrite = byLabel.get('git write') ?? '';
    expect(gitWrite.match(/Read-only file system/g)?.length ?? 0).toBeGreaterThanOrEqual(6);
    expect(gitWrite).toContain('git-tried');
    expect(byLabel.get('tree write')).toMatch(/^ ?M src\/add\.js$/m);
    expect(byLabel.get('tree write')).toMatch(/^ ?D README\.md$/m);
    expect(byLabel.get('tree write')).toContain('tree-written');
    // No capability, no way to unmount the copy, the upper layer out of sight.
    const escape = byLabel.get('overlay escape') ?? '';
    expect(escape).toMatch(/CapEff:\s+0{16}\b/);
    expect(escape).toMatch(/must be superuser|permission denied|Operation not permitted/);
    expect(escape).toMatch(new RegExp(`ls: cannot access '${targets.scratch}': No such file`));
    expect(escape).toContain('escape-tried');
    expect(byLabel.get('survivors')).toContain('started');

    const places = {
      'model requests': JSON.stringify(llm.requests.map((r) => r.body)),
      verdict: JSON.stringify(verification),
      logs: logs.join('\n'),
    };
    expect(findLeaks(places, [...Object.values(PLANTED), CANARY])).toEqual([]);
  }, 300_000);
});

describe.runIf(status.kind === 'bwrap')('a probe that sleeps past the limit (Claude Code runner)', () => {
  it('is killed at the limit: inconclusive with the reason, no process left, the workspace byte-identical', async () => {
    llm.requests.length = 0;
    llm.setScript((request) =>
      request.toolNames.length === 0
        ? { text: 'Side answer' }
        : {
            toolCalls: [
              {
                name: 'Bash',
                input: { command: `sleep ${SURVIVOR_MARK} & sleep ${SURVIVOR_MARK}`, timeout: 600_000 },
              },
            ],
          },
    );
    const before = hashTree(targets.workspace);
    const started = Date.now();
    const { verification } = await verify(RUNNERS['claude-code'](), 5_000);
    expect(Date.now() - started).toBeLessThan(5_000 + 4_000);
    expect(verification).toMatchObject({ status: 'inconclusive', reason: 'timed out after 5 s' });
    // The probe really ran (so it was really killed).
    expect(llm.requests.some((r) => r.toolNames.length > 0)).toBe(true);
    expectNothingLeftOrChanged(before);
  }, 60_000);
});

describe.runIf(status.kind !== 'bwrap')('where bubblewrap is missing or cannot create its namespaces', () => {
  const reason = status.kind === 'unavailable' ? status.reason : status.kind;
  it(`skips the battery: a verification is skipped with the reason and never runs unsandboxed (${reason})`, async () => {
    llm.requests.length = 0;
    const { verification } = await verify(RUNNERS.api(), 10_000);
    expect(verification).toMatchObject({ status: 'skipped', reason: expect.stringContaining(reason) });
    expect(llm.requests).toEqual([]);
  });
});
