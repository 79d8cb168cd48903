/** The `Grep` tool: a JavaScript regular expression over the workspace's text files (CONTRACT §8). */
import { stat } from 'node:fs/promises';
import { tool } from 'ai';
import { z } from 'zod';
import { guardExecute, type ToolContext } from './context.js';
import { resolveToolPath } from './confine.js';
import { compareCodePoints, matchToolGlob } from './glob.js';
import { runGrepWorker } from './grep-worker.js';
import { MAX_TEXT_FILE_BYTES } from './text-file.js';
import { ToolError } from './tool-error.js';
import { walkFiles } from './walk.js';

/** Most matching lines one Grep returns. */
export const MAX_GREP_MATCHES = 250;
/** Longest matched line shown, characters. */
export const MAX_GREP_LINE_CHARS = 300;
/** Wall-clock limit of one Grep, ms. */
export const GREP_TIMEOUT_MS = 30_000;

/** Arguments of `Grep`, as the code-agent CLI names them. */
export interface GrepInput {
  pattern: string;
  path?: string;
  glob?: string;
  '-i'?: boolean;
}

const grepInput = z.object({
  pattern: z.string().min(1).describe('JavaScript regular expression searched in each line'),
  path: z
    .string()
    .optional()
    .describe('File or directory to search, relative to the repository root (default: root)'),
  glob: z.string().optional().describe('Only search files matching this glob, e.g. "*.ts" or "src/**/*.py"'),
  '-i': z.boolean().optional().describe('Case-insensitive search'),
});

/**
 * Searches the file or directory `targetRelative` of the workspace for lines matching `input.pattern`
 * (JavaScript RegExp; `-i` adds the `i` flag), optionally only in files matching `input.glob`
 * (picomatch, matched in a worker thread; a pattern without `/` matches the base name). Skips `.git`, binary files, files over
 * `MAX_TEXT_FILE_BYTES` and symlinks leaving the workspace. Returns `path:line:text` lines sorted by
 * path, at most `MAX_GREP_MATCHES`, or "No matches found.". Throws `ToolError` for an invalid
 * pattern or after `timeoutMs`.
 */
export async function grepFiles(
  rootReal: string,
  targetRelative: string,
  input: GrepInput,
  signal?: AbortSignal,
  timeoutMs = GREP_TIMEOUT_MS,
  isVisible?: (relative: string) => boolean,
): Promise<string> {
  const flags = input['-i'] ? 'i' : '';
  try {
    new RegExp(input.pattern, flags);
  } catch (error) {
    throw new ToolError(`invalid regular expression: ${(error as Error).message}`);
  }
  const info = await stat(`${rootReal}/${targetRelative}`).catch(() => undefined);
  if (!info) throw new ToolError(`${targetRelative} does not exist`);
  let files: string[];
  let walkTruncated = false;
  if (info.isDirectory()) {
    const walk = await walkFiles(rootReal, targetRelative, signal, undefined, isVisible);
    walkTruncated = walk.truncated;
    const prefix = targetRelative === '.' ? '' : `${targetRelative}/`;
    const matching = input.glob
      ? await matchToolGlob('Grep', input.glob, walk.files, prefix, { timeoutMs, signal, basename: true })
      : walk.files;
    files = [...matching].sort(compareCodePoints);
  } else {
    files = [targetRelative];
  }
  const outcome = await runGrepWorker(
    {
      rootReal,
      files,
      pattern: input.pattern,
      flags,
      maxMatches: MAX_GREP_MATCHES,
      maxFileBytes: MAX_TEXT_FILE_BYTES,
      maxLineChars: MAX_GREP_LINE_CHARS,
    },
    timeoutMs,
    signal,
  );
  const out = outcome.lines.length > 0 ? [...outcome.lines] : ['No matches found.'];
  if (outcome.truncated)
    out.push(`(stopped after ${MAX_GREP_MATCHES} matches; narrow the pattern, path or glob)`);
  if (walkTruncated) out.push('(the search stopped early: too many files)');
  return out.join('\n');
}

/** Builds `Grep`. */
export function createGrepTool(ctx: ToolContext) {
  return tool({
    description:
      'Searches file contents of the repository with a JavaScript regular expression. Returns matching ' +
      'lines as path:line:text. Use glob to restrict file names and path to restrict the directory.',
    inputSchema: grepInput,
    execute: guardExecute(ctx, async (input: GrepInput) => {
      const target = await resolveToolPath(ctx.rootReal, input.path ?? '.', ctx.isVisible);
      return grepFiles(ctx.rootReal, target.relative, input, ctx.signal, undefined, ctx.isVisible);
    }),
  });
}
