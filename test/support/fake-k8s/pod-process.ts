/**
 * Runs one pod's container as a local process: its own process group (so stopping it stops its
 * children too), stdout/stderr captured into the run record, SIGTERM then SIGKILL after a grace
 * period on stop, like the kubelet.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import type { FakeJobRun } from './types.js';

/** Most output kept per stream, characters. */
const MAX_OUTPUT = 4 * 1024 * 1024;

/** A started container process. */
export interface PodProcess {
  /** Resolves when the process has exited (never rejects). */
  exited: Promise<void>;
  /** Sends `signal` to the whole process group. */
  signal(signal: NodeJS.Signals): void;
  /** SIGTERM, then SIGKILL after `graceMs` if still running. */
  stop(graceMs: number): void;
}

function append(run: FakeJobRun, stream: 'stdout' | 'stderr', chunk: Buffer): void {
  if (run[stream].length < MAX_OUTPUT) run[stream] += chunk.toString('utf8');
}

/**
 * Spawns `run.command run.args` with exactly `run.env` in `cwd`, filling `run` (start, end, exit
 * code or signal, output). A process that cannot be started ends with exit code 128 and the reason
 * on stderr, as a container runtime's `StartError`.
 */
export function startPodProcess(run: FakeJobRun, cwd: string): PodProcess {
  let child: ChildProcess | undefined;
  let running = true;
  let killTimer: NodeJS.Timeout | undefined;
  run.startedAt = new Date();
  const exited = new Promise<void>((resolve) => {
    const done = (code: number | null, signal: NodeJS.Signals | null): void => {
      if (!running) return;
      running = false;
      if (killTimer) clearTimeout(killTimer);
      run.exitCode = code;
      run.signal = signal;
      run.endedAt = new Date();
      resolve();
    };
    try {
      child = spawn(run.command, run.args, {
        cwd,
        env: run.env,
        detached: true,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
    } catch (error) {
      run.stderr += `StartError: ${(error as Error).message}\n`;
      done(128, null);
      return;
    }
    child.stdout?.on('data', (chunk: Buffer) => append(run, 'stdout', chunk));
    child.stderr?.on('data', (chunk: Buffer) => append(run, 'stderr', chunk));
    child.on('error', (error) => {
      run.stderr += `StartError: ${error.message}\n`;
      done(128, null);
    });
    // The container ends with its main process: whatever it left running goes too.
    child.on('exit', () => {
      try {
        if (child?.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // the group is already empty
      }
    });
    child.on('close', (code, signal) => done(code, signal));
  });

  function signal(sig: NodeJS.Signals): void {
    if (!running || child?.pid === undefined) return;
    try {
      process.kill(-child.pid, sig);
    } catch {
      try {
        child.kill(sig);
      } catch {
        // already gone
      }
    }
  }

  function stop(graceMs: number): void {
    if (!running) return;
    signal('SIGTERM');
    killTimer ??= setTimeout(() => signal('SIGKILL'), Math.max(0, graceMs));
    killTimer.unref();
  }

  return { exited, signal, stop };
}
