/**
 * The `Bash` tool (WORKER only): `/bin/sh -c <command>` in the workspace, inside the tool sandbox
 * (CONTRACT §16: bubblewrap, scrubbed environment, no network unless allowlisted; refused when no
 * sandbox is available and `agent.sandbox` is not `off`), with a timeout and capped, secret-masked
 * output (CONTRACT §8).
 */
import { tool } from 'ai';
import { z } from 'zod';
import { runToolCommand, SandboxUnavailableError } from '../sandbox/index.js';
import { guardExecute, type ToolContext } from './context.js';
import { ToolError } from './tool-error.js';

/** Default command timeout, ms (the code-agent CLI's default). */
export const DEFAULT_BASH_TIMEOUT_MS = 120_000;
/** Largest timeout the model may ask for, ms. */
export const MAX_BASH_TIMEOUT_MS = 600_000;
/** Output shown to the model, characters; the middle of longer output is left out. */
export const MAX_BASH_OUTPUT_CHARS = 30_000;

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

/** Keeps the first and last halves of `text` when it is longer than `max` characters. */
export function capMiddle(text: string, max = MAX_BASH_OUTPUT_CHARS): string {
  if (text.length <= max) return text;
  const half = Math.floor(max / 2);
  return `${text.slice(0, half)}\n… [${text.length - 2 * half} characters omitted] …\n${text.slice(-half)}`;
}

/**
 * Builds `Bash`. Exit code 0 returns the output; a non-zero exit code or a timeout is a tool error
 * carrying the output; without a sandbox (`auto`) every call is a tool error saying why. The
 * policy is `ctx.sandbox` (default: `auto` as detected on this host).
 */
export function createBashTool(ctx: ToolContext) {
  return tool({
    description:
      'Runs a shell command (/bin/sh -c) in the repository root and returns its combined stdout and ' +
      'stderr. No credentials are available in its environment.',
    inputSchema: bashInput,
    execute: guardExecute(ctx, async (input: BashInput) => {
      const timeoutMs = input.timeout ?? DEFAULT_BASH_TIMEOUT_MS;
      const outcome = await runToolCommand(input.command, {
        workspace: ctx.rootReal,
        home: ctx.homeDir,
        timeoutMs,
        ...(ctx.signal ? { signal: ctx.signal } : {}),
        ...(ctx.sandbox ? { sandbox: ctx.sandbox } : {}),
        ...(ctx.launcher ? { launcher: ctx.launcher } : {}),
      }).catch((error: unknown) => {
        if (error instanceof SandboxUnavailableError) throw new ToolError(error.message);
        throw error;
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
