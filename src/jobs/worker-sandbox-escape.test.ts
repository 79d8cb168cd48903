/**
 * The escape battery of CONTRACT §16 through the real tool path, in process: a WORKER job (fake
 * GitHub, fake Anthropic API, the API runner and its sandboxed Bash) whose model tries to read the
 * server's secrets through /proc, read a canary file, write outside the workspace, change the
 * global git configuration, reach the network, fork-bomb and flood output — then does a legitimate
 * task. No secret, in any encoding, may reach a model request, a posted comment, the pushed commit
 * or a log line; nothing outside the workspace may change; the legitimate task must still work.
 * Where no sandbox works, every Bash call must be refused and the reply must say so.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiRunner } from '../agent/api-runner.js';
import { probeSandbox, type ToolSandbox } from '../agent/sandbox/index.js';
import {
  batteryCommands,
  batteryResults,
  batteryScript,
  findLeaks,
  forkBombIsBounded,
  secretForms,
  survivorRunning,
  type BatteryTargets,
} from '../../test/support/sandbox-battery.js';
import { LLM_KEY, TOKEN, startJobFixture, type JobFixture } from './job-fixture.test-helper.js';
import { makePayload } from './records.test-helper.js';
import { runJob } from './run-job.js';

const CANARY = 'canary-7f3a9c-THE-FILE-OUTSIDE-THE-WORKSPACE';
/** Secrets in the server's own environment, one with a name the masker does not know. */
const PLANTED = {
  CODEHOST_TOKEN: TOKEN,
  ANTHROPIC_API_KEY: LLM_KEY,
  CODEHOST_WEBHOOK_SECRET: 'whsec-planted-5b1e0c7d9a',
  REVIEWBOT_PLAIN_NAMED_VALUE: 'plain-named-env-value-3c8e1f',
};

/** Probed at collection time: the sandbox-only assertions run where bubblewrap works. */
const sandbox: ToolSandbox = { status: await probeSandbox('auto'), networkHosts: [] };
const sandboxed = sandbox.status.kind === 'bwrap';

let fx: JobFixture;
let targets: BatteryTargets;
let ok: boolean;
const saved: Record<string, string | undefined> = {};
let hostGitconfig: string | undefined;

beforeAll(async () => {
  fx = await startJobFixture();
  const canaryPath = path.join(fx.root, 'canary.txt');
  writeFileSync(canaryPath, CANARY);
  targets = {
    canaryPath,
    writeTargets: [
      path.join(fx.root, 'pwned.txt'),
      path.join(fx.baseDir, 'acme', 'widgets', 'pwned.txt'),
      path.join(os.tmpdir(), `reviewbot-pwned-${process.pid}`),
    ],
    hostUrl: fx.github.url,
    forkBomb: forkBombIsBounded(sandbox.status),
  };
  for (const [name, value] of Object.entries(PLANTED)) {
    saved[name] = process.env[name];
    process.env[name] = value;
  }
  const gitconfig = path.join(os.homedir(), '.gitconfig');
  hostGitconfig = existsSync(gitconfig) ? readFileSync(gitconfig, 'utf8') : undefined;
  fx.ctx.sandbox = sandbox;
  fx.ctx.config = { ...fx.config, agent: { ...fx.config.agent, max_turns: 30 } };
  fx.ctx.createRunner = () =>
    createApiRunner({
      provider: 'anthropic',
      model: 'test-model',
      env: { ANTHROPIC_API_KEY: LLM_KEY, ANTHROPIC_BASE_URL: fx.llm.url },
      masker: fx.ctx.masker,
      logger: fx.ctx.logger,
      maxRetries: 0,
      sandbox,
    });
  fx.llm.setScript(batteryScript(targets));
  const result = await runJob(makePayload('worker', 'add a double helper with a test', fx.comment()), fx.ctx);
  ok = result.status === 'succeeded';
}, 120_000);

afterAll(async () => {
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  await fx?.close();
});

const secrets = () => [...Object.values(PLANTED), CANARY];

describe('the leak detector', () => {
  it('finds every form it looks for (so the checks below can fail)', () => {
    for (const { form } of secretForms(CANARY)) {
      const shift = Number(form.split('+')[1] ?? 0);
      const text =
        form === 'plain'
          ? `x${CANARY}y`
          : form === 'reversed'
            ? [...`a${CANARY}`].reverse().join('')
            : form === 'hex'
              ? Buffer.from(CANARY).toString('hex').replace(/(..)/g, ' $1')
              : Buffer.from('ab'.slice(0, shift) + CANARY + 'zz')
                  .toString('base64')
                  .replace(/(.{7})/g, '$1\\n');
      expect(findLeaks({ text }, [CANARY]), form).not.toEqual([]);
    }
  });
});

describe('WORKER escape battery (API runner, in process)', () => {
  it('the job succeeds', () => {
    expect(ok).toBe(true);
  });

  it.runIf(!sandboxed)('without a sandbox here, every battery command was refused', () => {
    for (const [label, result] of batteryResults(fx.llm.requests, targets)) {
      expect(result.content, label).toMatch(/Bash is unavailable: no working sandbox/);
    }
  });

  it('no secret in any form reaches a model request, a posted comment, the pushed commits or a log line', async () => {
    const places: Record<string, string> = {
      'model requests': JSON.stringify(fx.llm.requests.map((r) => r.body)),
      'GitHub requests': JSON.stringify(fx.github.requests.map((r) => r.body)),
      'pushed commits': await fx.bareGit('log', '-p', '--all', '--format=%an %ae %s %b'),
      logs: fx.logs.join('\n'),
    };
    expect(findLeaks(places, secrets())).toEqual([]);
    expect(fx.github.violations).toEqual([]);
  });

  it('nothing outside the workspace changed, and no process survived', () => {
    for (const target of targets.writeTargets) expect(existsSync(target), target).toBe(false);
    expect(readFileSync(targets.canaryPath, 'utf8')).toBe(CANARY);
    const gitconfig = path.join(os.homedir(), '.gitconfig');
    expect(existsSync(gitconfig) ? readFileSync(gitconfig, 'utf8') : undefined).toBe(hostGitconfig);
    expect(survivorRunning()).toBe(false);
  });

  it.runIf(sandboxed)('each attempt failed inside the sandbox', () => {
    const results = batteryResults(fx.llm.requests, targets);
    expect([...results.keys()]).toEqual(batteryCommands(targets).map(([label]) => label));
    expect(results.get('ps')!.content).not.toMatch(/vitest|redis-server|node .*dist/);
    expect(results.get('canary plain')!.content).toMatch(/No such file/);
    expect(results.get('open fds')!.content.trim()).toBe('0 1 2 3');
    expect(results.get('git config')!.content).toContain('user.name=evil-global');
    expect(results.get('network')!.content).toMatch(/BLOCKED/);
    expect(results.get('network')!.content).not.toMatch(/REACHED/);
    const bomb = results.get('fork bomb')!;
    expect(bomb.content).toMatch(/timed out|Cannot fork|bomb-done|flood-done/);
    const flood = results.get('runaway output')!;
    expect(flood.isError).toBe(true);
    expect(flood.content).toMatch(/Command timed out after 2000 ms/);
    expect(flood.content.length).toBeLessThan(31_000);
  });

  it.runIf(sandboxed)('the legitimate task ran its tests with node and was pushed as the bot', async () => {
    const testRun = fx.llm.requests.filter((r) => r.status === 200).at(-1)!.toolResults[0]!;
    expect(testRun.isError).toBe(false);
    expect(testRun.content).toMatch(/# pass 1/);
    const head = await fx.bareGit('rev-parse', 'refs/heads/feature');
    expect(head).not.toBe(fx.scenario.headSha);
    expect(await fx.bareGit('show', `${head}:src/double.mjs`)).toContain('return n * 2;');
    expect(await fx.bareGit('log', '-1', '--format=%an', head)).toBe('rb-worker');
    expect(fx.github.issueComments.at(-1)!.body).toContain(`Pushed commit ${head}`);
  });
});

describe('WORKER without a working sandbox (agent.sandbox: auto, e.g. user namespaces forbidden)', () => {
  it('refuses every Bash call with the reason, runs nothing, and the reply on the pull request says why', async () => {
    const reason =
      'bubblewrap cannot create its namespaces here (bwrap: No permissions to create new namespace)';
    const refused: ToolSandbox = { status: { kind: 'unavailable', reason }, networkHosts: [] };
    const marker = path.join(fx.root, 'ran-unsandboxed');
    fx.ctx.sandbox = refused;
    fx.ctx.createRunner = () =>
      createApiRunner({
        provider: 'anthropic',
        model: 'test-model',
        env: { ANTHROPIC_API_KEY: LLM_KEY, ANTHROPIC_BASE_URL: fx.llm.url },
        masker: fx.ctx.masker,
        logger: fx.ctx.logger,
        maxRetries: 0,
        sandbox: refused,
      });
    fx.llm.setScript([
      { toolCalls: [{ name: 'Bash', input: { command: `touch ${marker}; cat /proc/$PPID/environ` } }] },
      { text: 'I could not run the tests.' },
    ]);
    const before = fx.llm.requests.length;
    expect(await runJob(makePayload('worker', 'run the tests', fx.comment()), fx.ctx)).toEqual({
      status: 'succeeded',
    });
    const result = fx.llm.requests[before + 1]!.toolResults[0]!;
    expect(result.isError).toBe(true);
    expect(result.content).toContain('Bash is unavailable: no working sandbox on this host');
    expect(result.content).toContain('No permissions to create new namespace');
    expect(existsSync(marker)).toBe(false);
    const reply = fx.github.issueComments.at(-1)!.body;
    expect(reply).toContain('I could not run the tests.');
    expect(reply).toMatch(/\*\*Note:\*\* Bash is unavailable: .*No permissions to create new namespace/);
  });
});
