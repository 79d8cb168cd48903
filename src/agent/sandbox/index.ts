/**
 * The tool sandbox (CONTRACT §16): detection at start-up, and running a tool command under the
 * detected policy — inside bubblewrap, unsandboxed when `agent.sandbox: off`, or refused.
 */
import { scrubbedEnv } from '../../secrets.js';
import { defaultSandboxStatus } from './detect.js';
import { runProcess, type ShellOutcome } from './run-process.js';
import type { RunLauncher } from './launcher.js';
import { runSandboxed } from './run-sandboxed.js';
import type { ToolSandbox } from './types.js';
import { SandboxUnavailableError } from './errors.js';

export { SandboxUnavailableError } from './errors.js';
export { openCommandWrapper, type CommandWrapper } from './command-wrapper.js';
export { RunLauncher, RUN_PIDS_MAX } from './launcher.js';

export { detectSandbox, probeSandbox, defaultSandboxStatus } from './detect.js';
export { setUpToolSandbox } from './set-up.js';
export type { SandboxMode, SandboxStatus, ToolSandbox } from './types.js';
export type { ShellOutcome } from './run-process.js';

/** The refusal text of `Bash` under `status` `unavailable` (also quoted in the WORKER's reply). */
export function bashUnavailableMessage(reason: string): string {
  return new SandboxUnavailableError(reason).message;
}

/** Options of `runToolCommand`. */
export interface ToolCommandOptions {
  /** Real path of the workspace: working directory, the only writable tree besides HOME and /tmp. */
  workspace: string;
  /** HOME of the command, outside the workspace. */
  home: string;
  timeoutMs: number;
  signal?: AbortSignal;
  /** The policy; default: `auto` as detected on this host, without network. */
  sandbox?: ToolSandbox;
  /**
   * The run's launcher: where the host needs a pids cgroup (a root server), commands start from it
   * inside one cgroup per run instead of joining one each. Without it, each command joins its own.
   */
  launcher?: RunLauncher;
}

/**
 * Runs `command` with `/bin/sh -c` under the sandbox policy: inside bubblewrap; unsandboxed with a
 * scrubbed environment when `off`.
 * @throws SandboxUnavailableError when the policy is `unavailable`.
 */
export async function runToolCommand(command: string, options: ToolCommandOptions): Promise<ShellOutcome> {
  const sandbox = options.sandbox ?? { status: await defaultSandboxStatus(), networkHosts: [] };
  const { status } = sandbox;
  const common = { timeoutMs: options.timeoutMs, ...(options.signal ? { signal: options.signal } : {}) };
  if (status.kind === 'unavailable') throw new SandboxUnavailableError(status.reason);
  if (status.kind === 'off') {
    return runProcess('/bin/sh', ['-c', command], {
      cwd: options.workspace,
      env: scrubbedEnv(process.env, options.home),
      ...common,
    });
  }
  return runSandboxed(command, {
    bwrapPath: status.bwrapPath,
    workspace: options.workspace,
    home: options.home,
    networkHosts: sandbox.networkHosts,
    ...(status.pidsCgroup ? { pidsCgroup: status.pidsCgroup } : {}),
    ...(sandbox.logger ? { logger: sandbox.logger } : {}),
    ...(options.launcher ? { launcher: options.launcher } : {}),
    ...common,
  });
}
