/**
 * The `Bash` tool (WORKER only): `/bin/sh -c <command>` in the workspace with a scrubbed
 * environment (no token, key or store URL; HOME outside the workspace), a timeout, capped and
 * secret-masked output (CONTRACT §8).
 */
import { spawn } from 'node:child_process';
import { tool } from 'ai';
import { z } from 'zod';
import { scrubbedEnv } from '../../secrets.js';
import { guardExecute, type ToolContext } from './context.js';
import { ToolError } from './tool-error.js';

/** Default command timeout, ms (the code-agent CLI's default). */
export const DEFAULT_BASH_TIMEOUT_MS = 120_000;
/** Largest timeout the model may ask for, ms. */
export const MAX_BASH_TIMEOUT_MS = 600_000;
/** Output shown to the model, characters; the middle of longer output is left out. */
export const MAX_BASH_OUTPUT_CHARS = 30_000;
/** Output kept in memory while the command runs, bytes; the rest is discarded. */
const MAX_CAPTURE_BYTES = 1024 * 1024;

/** Arguments of `Bash`, as the code-agent CLI names them; `timeout` is in ms. */
export interface BashInput {
  command: string;
  timeout?: number;
}

const bashInput = z.object({
  command: z.string().min(1).describe('Shell command, run with /bin/sh -c in the repository root'),
  timeout: z
    .number()
    .int()
    .min(1)
    .max(MAX_BASH_TIMEOUT_MS)
    .optional()
    .describe(`Timeout in milliseconds (default ${DEFAULT_BASH_TIMEOUT_MS}, at most ${MAX_BASH_TIMEOUT_MS})`),
});

/** How a command ended: its combined stdout+stderr (capped) and exit code, or a timeout. */
export interface ShellOutcome {
  output: string;
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
}

/**
 * Runs `command` with `/bin/sh -c` in `cwd` with exactly `env`, in its own process group so that a
 * timeout or abort kills every process it started (SIGKILL). stdin is closed.
 */
export function runShell(
  command: string,
  options: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs: number; signal?: AbortSignal },
): Promise<ShellOutcome> {
  return new Promise((resolve, reject) => {
    options.signal?.throwIfAborted();
    const child = spawn('/bin/sh', ['-c', command], {
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

/** Keeps the first and last halves of `text` when it is longer than `max` characters. */
export function capMiddle(text: string, max = MAX_BASH_OUTPUT_CHARS): string {
  if (text.length <= max) return text;
  const half = Math.floor(max / 2);
  return `${text.slice(0, half)}\n… [${text.length - 2 * half} characters omitted] …\n${text.slice(-half)}`;
}

/**
 * Builds `Bash`. Exit code 0 returns the output; a non-zero exit code or a timeout is a tool error
 * carrying the output. The environment is `scrubbedEnv(process.env, ctx.homeDir)`.
 */
export function createBashTool(ctx: ToolContext) {
  return tool({
    description:
      'Runs a shell command (/bin/sh -c) in the repository root and returns its combined stdout and ' +
      'stderr. No credentials are available in its environment.',
    inputSchema: bashInput,
    execute: guardExecute(ctx, async (input: BashInput) => {
      const timeoutMs = input.timeout ?? DEFAULT_BASH_TIMEOUT_MS;
      const outcome = await runShell(input.command, {
        cwd: ctx.rootReal,
        env: scrubbedEnv(process.env, ctx.homeDir),
        timeoutMs,
        signal: ctx.signal,
      });
      const output = capMiddle(outcome.output);
      if (outcome.timedOut) throw new ToolError(`Command timed out after ${timeoutMs} ms.\n${output}`);
      if (outcome.exitCode !== 0) {
        const how =
          outcome.exitCode === null ? `killed by ${outcome.signal}` : `exited with code ${outcome.exitCode}`;
        throw new ToolError(`Command ${how}.\n${output}`);
      }
      return output === '' ? '(no output)' : output;
    }),
  });
}
