/**
 * `runVerification` against a runner that is slow to stop: whatever the runner does after the
 * deadline, no sandboxed command of the run outlives it (CONTRACT §22), and the pull request's
 * workspace stays byte-identical.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { survivorRunning, SURVIVOR_MARK } from '../../../test/support/sandbox-battery.js';
import { probeSandbox, runToolCommand, type ToolSandbox } from '../../agent/sandbox/index.js';
import type { AgentRunner, AgentRunOptions } from '../../agent/types.js';
import { AgentError } from '../../errors.js';
import { SecretMasker } from '../../secrets.js';
import type { Finding } from '../types.js';
import { runVerification } from './run-verification.js';
import { hashTree } from './tree-hash.test-helper.js';

const status = await probeSandbox('auto');
const finding = { path: 'a.js', line: 1, side: 'RIGHT', body: 'a is wrong', severity: 'P0' } as Finding;

let base: string;
let workspace: string;
let scratch: string;

beforeAll(() => {
  base = realpathSync(mkdtempSync(path.join(tmpdir(), 'run-verification-test-')));
  workspace = path.join(base, 'pr-4');
  scratch = path.join(base, 'scratch');
  mkdirSync(scratch);
  execFileSync('git', ['init', '-q', workspace]);
  writeFileSync(path.join(workspace, 'a.js'), 'export const a = 1;\n');
});
afterAll(() => rmSync(base, { recursive: true, force: true }));

/**
 * A runner whose Bash command does not listen to the run's abort (as when a code-agent CLI takes
 * its time to exit): it runs `command` in the run's sandbox to its end, then fails like an aborted
 * run.
 */
function slowToStop(command: string): AgentRunner {
  return {
    async run(options: AgentRunOptions) {
      const home = mkdtempSync(path.join(base, 'home-'));
      const running = runToolCommand(command, {
        workspace: options.workspaceDir,
        home,
        timeoutMs: 60_000,
        ...(options.sandbox ? { sandbox: options.sandbox } : {}),
      });
      await running.catch(() => undefined);
      throw new AgentError('agent run aborted');
    },
  };
}

describe.runIf(status.kind === 'bwrap')('a verification whose runner is slow to stop', () => {
  it('kills the sandboxed commands at the deadline and leaves the workspace byte-identical', async () => {
    const sandbox: ToolSandbox = { status, networkHosts: [] };
    const before = hashTree(workspace);
    const runner = slowToStop(
      `echo changed > a.js; sleep ${SURVIVOR_MARK} & sleep ${SURVIVOR_MARK}; echo done`,
    );
    const started = Date.now();
    const result = await runVerification({
      finding,
      workspace,
      sandbox,
      runner,
      timeoutMs: 2_000,
      masker: new SecretMasker(),
      scratchDir: scratch,
    });
    const elapsed = Date.now() - started;
    expect(survivorRunning()).toBe(false);
    expect(result.verification).toMatchObject({ status: 'inconclusive', reason: 'timed out after 2 s' });
    expect(elapsed).toBeLessThan(2_000 + 3_000);
    expect(hashTree(workspace)).toBe(before);
    expect(readdirSync(scratch)).toEqual([]);
  }, 30_000);
});
