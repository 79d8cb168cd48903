/**
 * Spawns one tool command and collects its combined output with a memory cap, a timeout and abort,
 * killing its whole process group (SIGKILL) when either fires. stdin is closed; only the three
 * standard descriptors are passed (Node opens everything else close-on-exec).
 */
import { spawn } from 'node:child_process';

/** Output kept in memory while the command runs, bytes; the rest is discarded. */
export const MAX_CAPTURE_BYTES = 1024 * 1024;

/** How a command ended: its combined stdout+stderr (capped) and exit code, or a timeout. */
export interface ShellOutcome {
  output: string;
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
}

/** Options of `runProcess`. */
export interface RunProcessOptions {
  cwd: string;
  /** The child's complete environment. */
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
  signal?: AbortSignal;
}

/**
 * Runs `file args` in its own process group; resolves when its output pipes close (or 2 s after it
 * exited, when a daemon it left behind holds them). Rejects with the abort reason when `signal`
 * fires, or with the spawn error.
 */
export function runProcess(
  file: string,
  args: readonly string[],
  options: RunProcessOptions,
): Promise<ShellOutcome> {
  return new Promise((resolve, reject) => {
    options.signal?.throwIfAborted();
    const child = spawn(file, args, {
      cwd: options.cwd,
      env: options.env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    const chunks: Buffer[] = [];
    let captured = 0;
    let dropped = 0;
    let timedOut = false;
    const collect = (chunk: Buffer) => {
      if (captured >= MAX_CAPTURE_BYTES) {
        dropped += chunk.length;
        return;
      }
      chunks.push(chunk);
      captured += chunk.length;
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    const killGroup = () => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, options.timeoutMs);
    const onAbort = () => killGroup();
    options.signal?.addEventListener('abort', onAbort, { once: true });
    child.once('error', (error) => {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      reject(error);
    });
    // A daemon that escaped the process group may hold the pipes open: stop waiting soon after exit.
    child.once('exit', () => {
      setTimeout(() => {
        child.stdout.destroy();
        child.stderr.destroy();
      }, 2000).unref();
    });
    child.once('close', (exitCode, signal) => {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      if (options.signal?.aborted) {
        reject(options.signal.reason);
        return;
      }
      let output = Buffer.concat(chunks).toString('utf8');
      if (dropped > 0) output += `\n… [${dropped} more bytes of output discarded]`;
      resolve({ output, exitCode, signal, timedOut });
    });
  });
}
