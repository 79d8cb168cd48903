/**
 * No process a Bash call starts outlives the call (CONTRACT §16), in the sandbox as the API runner
 * runs it (with and without the run's launcher): a daemon left in a new session (`setsid nohup … &`)
 * is gone when the call returns, whether the command ended on its own or at its timeout.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SecretMasker } from '../../secrets.js';
import { probeSandbox, RunLauncher, type ToolSandbox } from '../sandbox/index.js';
import { callTool } from './call-tool.js';
import { buildTools, WORKER_TOOLS } from './index.js';

const detected = await probeSandbox('auto');
const base = realpathSync(mkdtempSync(path.join(tmpdir(), 'bash-lifetime-')));
const launchers: RunLauncher[] = [];
afterAll(async () => {
  for (const launcher of launchers) await launcher.close();
  rmSync(base, { recursive: true, force: true });
});

const size = (file: string) => {
  try {
    return statSync(file).size;
  } catch {
    return -1;
  }
};

/** A daemon in a new session, detached from the command's output, appending to `log` forever. */
const daemon = (log: string) =>
  `setsid nohup sh -c 'while :; do echo x >> ${log}; sleep 0.02; done' >/dev/null 2>&1 &`;

describe.runIf(detected.kind === 'bwrap').each([
  ['without a launcher', false],
  ['with the run launcher', true],
])('Bash in the sandbox, %s', (_label, withLauncher) => {
  function makeTools(name: string) {
    const root = path.join(base, name);
    const home = path.join(base, `${name}-home`);
    mkdirSync(root);
    mkdirSync(home);
    const sandbox: ToolSandbox = { status: detected, networkHosts: [] };
    const launcher = withLauncher ? new RunLauncher() : undefined;
    if (launcher) launchers.push(launcher);
    const tools = buildTools(WORKER_TOOLS, {
      rootReal: root,
      homeDir: home,
      masker: new SecretMasker([]),
      onSubmit: () => {},
      sandbox,
      ...(launcher ? { launcher } : {}),
    });
    return { root, tools };
  }

  async function expectStill(file: string): Promise<void> {
    const after = size(file);
    await new Promise((resolve) => setTimeout(resolve, 700));
    expect(size(file)).toBe(after);
  }

  it('a daemon the command left is gone when the call returns', async () => {
    const { root, tools } = makeTools(`ended-${withLauncher}`);
    const result = await callTool(tools, 'Bash', { command: `${daemon('bg.log')} sleep 0.3; echo started` });
    expect(result).toEqual({ isError: false, output: 'started\n' });
    expect(size(path.join(root, 'bg.log'))).toBeGreaterThan(0);
    await expectStill(path.join(root, 'bg.log'));
  });

  it('a daemon is gone when the command is killed at its timeout', async () => {
    const { root, tools } = makeTools(`timeout-${withLauncher}`);
    const result = await callTool(tools, 'Bash', { command: `${daemon('bg.log')} sleep 60`, timeout: 500 });
    expect(result.isError).toBe(true);
    expect(result.output).toMatch(/timed out after 500 ms/);
    expect(size(path.join(root, 'bg.log'))).toBeGreaterThan(0);
    await expectStill(path.join(root, 'bg.log'));
  });
});
