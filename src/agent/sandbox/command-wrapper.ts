/**
 * Sandboxing for runners whose Bash tool we do not run ourselves (Claude Code): a command line
 * that runs the model's command inside the same bubblewrap sandbox, to put in place of the
 * command (the PreToolUse hook's `updatedInput`). One wrapper per agent run holds the run's HOME,
 * its network proxy, its pids cgroup and the registry of the sandboxes it started; `close` kills
 * every sandbox still running (whoever its parent is by then) and frees the rest.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { scrubbedEnv } from '../../secrets.js';
import { SANDBOX_MAX_PROCESSES } from './bwrap-args.js';
import { defaultSandboxStatus } from './detect.js';
import { SandboxUnavailableError } from './errors.js';
import { startNetworkProxy, type NetworkProxy } from './network-proxy.js';
import { createPidsCgroup } from './pids-cgroup.js';
import { openRunProcesses, type RunProcesses } from './run-processes.js';
import { sandboxedArgv } from './run-sandboxed.js';
import type { ToolSandbox } from './types.js';

/** Quotes `word` for a POSIX shell. */
export function shellQuote(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

/** A run's command wrapper. */
export interface CommandWrapper {
  /**
   * The shell command line that runs `command` in the sandbox with `workspace` as its writable root
   * (for `off`: the command with `unsetVars` unset first).
   * @throws SandboxUnavailableError when no sandbox is available (`auto`).
   */
  wrap(command: string, workspace: string): Promise<string>;
  /**
   * Kills every sandbox of the run that still runs (SIGKILL to bwrap, its sandbox and everything in
   * it) and waits until they are gone, refuses commands wrapped before and started after, then stops
   * the proxy and removes HOME and the cgroup.
   * @throws Error when a process of the run is still alive after `STOP_TIMEOUT_MS` (the proxy,
   * HOME and the cgroup are freed all the same).
   */
  close(): Promise<void>;
}

/**
 * Opens the wrapper of one run under `sandbox` (default: `auto` as detected). `unsetVars` are the
 * variables an unsandboxed (`off`) command has unset first (the runner's credentials).
 */
export async function openCommandWrapper(
  sandbox: ToolSandbox | undefined,
  unsetVars: readonly string[],
): Promise<CommandWrapper> {
  const policy = sandbox ?? { status: await defaultSandboxStatus(), networkHosts: [] };
  const { status } = policy;
  if (status.kind === 'off') {
    return {
      wrap: (command) => Promise.resolve(`unset ${unsetVars.join(' ')}\n${command}`),
      close: () => Promise.resolve(),
    };
  }
  if (status.kind === 'unavailable') {
    return {
      wrap: () => Promise.reject(new SandboxUnavailableError(status.reason)),
      close: () => Promise.resolve(),
    };
  }
  const home = await mkdtemp(path.join(tmpdir(), 'reviewbot-home-'));
  let proxy: NetworkProxy | undefined;
  let cgroup: Awaited<ReturnType<typeof createPidsCgroup>>;
  let processes: RunProcesses;
  try {
    // HOME is made for the run and named in every sandbox's command line: it identifies them.
    processes = await openRunProcesses(home);
    if (policy.networkHosts.length > 0) proxy = await startNetworkProxy(policy.networkHosts, policy.logger);
    if (status.pidsCgroup) cgroup = await createPidsCgroup(status.pidsCgroup, SANDBOX_MAX_PROCESSES + 8);
  } catch (error) {
    await rm(home, { recursive: true, force: true });
    await proxy?.close();
    throw error;
  }
  return {
    async wrap(command, workspace) {
      const argv = await sandboxedArgv(command, {
        bwrapPath: status.bwrapPath,
        workspace,
        home,
        hostEnv: scrubbedEnv(process.env, home),
        // The agent CLI's shell may hold descriptors of its own: always close them.
        closeFds: true,
        ...(proxy ? { proxy } : {}),
        ...(cgroup ? { cgroupDir: cgroup.dir } : {}),
      });
      // `env -i`: bwrap is the sandbox's PID 1, so its own environment must hold nothing.
      return ['env', '-i', ...processes.registered(argv)].map(shellQuote).join(' ');
    },
    async close() {
      try {
        await processes.stopAll();
      } finally {
        await proxy?.close();
        await cgroup?.remove();
        await rm(home, { recursive: true, force: true });
      }
    },
  };
}
