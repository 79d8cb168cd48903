/**
 * The Claude Code process of one query, spawned by us (the SDK's `spawnClaudeCodeProcess`) so the
 * run can wait until it has really exited: a run returns only once no process it started is alive
 * (CONTRACT §16). The SDK, when closing, ends stdin, sends SIGTERM after a grace and SIGKILL 5 s
 * later, without waiting; `waitForExit` does the same and waits.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import type { SpawnedProcess, SpawnOptions } from '@anthropic-ai/claude-agent-sdk';

/** After the query closed: how long Claude Code may take to exit on its own, ms. */
export const EXIT_GRACE_MS = 2_500;
/** After SIGTERM: how long before SIGKILL, ms. */
export const TERM_GRACE_MS = 5_000;

/** Spawns the one Claude Code process of a query and waits for its end. */
export interface ClaudeProcess {
  /** The `spawnClaudeCodeProcess` option: spawns Claude Code, its stderr going to `onStderr`. */
  spawn(options: SpawnOptions): SpawnedProcess;
  /**
   * Resolves once the process has exited (at once when it never started): first on its own
   * within `EXIT_GRACE_MS`, then after SIGTERM within `TERM_GRACE_MS`, else after SIGKILL.
   */
  waitForExit(): Promise<void>;
}

function exited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}

/** Resolves true when `child` exits within `ms`, false otherwise. */
function exitWithin(child: ChildProcess, ms: number): Promise<boolean> {
  if (exited(child)) return Promise.resolve(true);
  return new Promise((resolve) => {
    const done = (value: boolean) => {
      clearTimeout(timer);
      child.off('exit', onExit);
      resolve(value);
    };
    const onExit = () => done(true);
    const timer = setTimeout(() => done(exited(child)), ms);
    child.on('exit', onExit);
  });
}

/** A spawner for one query; `onStderr` receives Claude Code's stderr as text. */
export function createClaudeProcess(onStderr: (text: string) => void): ClaudeProcess {
  let child: ChildProcess | undefined;
  let failed = false;
  return {
    spawn(options) {
      child = spawn(options.command, options.args, {
        ...(options.cwd ? { cwd: options.cwd } : {}),
        env: options.env,
        stdio: ['pipe', 'pipe', 'pipe'],
        windowsHide: true,
      });
      child.once('error', () => {
        failed = true;
      });
      child.stderr?.setEncoding('utf8').on('data', onStderr);
      return child as SpawnedProcess;
    },
    async waitForExit() {
      if (!child || child.pid === undefined || failed) return;
      if (await exitWithin(child, EXIT_GRACE_MS)) return;
      child.kill('SIGTERM');
      if (await exitWithin(child, TERM_GRACE_MS)) return;
      child.kill('SIGKILL');
      while (!(await exitWithin(child, 1_000))) child.kill('SIGKILL');
    },
  };
}
