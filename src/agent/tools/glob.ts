/** The `Glob` tool: workspace files matching a glob pattern, sorted (CONTRACT §8). */
import { stat } from 'node:fs/promises';
import { tool } from 'ai';
import { z } from 'zod';
import { filterByGlob, GlobPatternError } from '../../patterns/glob-match.js';
import { guardExecute, type ToolContext } from './context.js';
import { resolveToolPath } from './confine.js';
import { ToolError } from './tool-error.js';
import { walkFiles } from './walk.js';

/** Most paths one Glob returns. */
export const MAX_GLOB_RESULTS = 500;
/**
 * Budget of matching one Glob (or Grep `glob`) pattern, ms, counted from when the worker thread
 * starts matching (its start is not counted): ordinary patterns take milliseconds.
 */
export const GLOB_TIMEOUT_MS = 2_000;
/**
 * Hard deadline of matching one tool glob, ms from the call, the worker's start included: the
 * worker is terminated then, so a pathological pattern answers (with a tool error) within 5 s
 * even when the machine is loaded and the worker starts slowly.
 */
export const GLOB_DEADLINE_MS = 4_000;

/** Arguments of `Glob`, as the code-agent CLI names them. */
export interface GlobInput {
  pattern: string;
  path?: string;
}

const globInput = z.object({
  pattern: z.string().min(1).describe('Glob pattern, e.g. "**/*.ts" or "src/**/*.test.ts"'),
  path: z
    .string()
    .optional()
    .describe('Directory to search in, relative to the repository root (default: root)'),
});

/**
 * Returns the files under `dirRelative` whose path relative to that directory matches `pattern`
 * (picomatch syntax, dotfiles included), as workspace-relative paths sorted by code point, at most
 * `MAX_GLOB_RESULTS`, followed by a note when more matched. Skips `.git` and symlinks leaving the
 * workspace. The pattern comes from the model, so it is compiled and matched in a worker thread
 * (`filterByGlob`), never on the event loop. Throws `ToolError` when `dirRelative` is not a
 * directory, or the pattern is too long, invalid or too complex (its matching outlasts
 * `timeoutMs`, or `GLOB_DEADLINE_MS` passes).
 */
export async function globFiles(
  rootReal: string,
  dirRelative: string,
  pattern: string,
  signal?: AbortSignal,
  isVisible?: (relative: string) => boolean,
  timeoutMs = GLOB_TIMEOUT_MS,
): Promise<string> {
  const dirInfo = await stat(`${rootReal}/${dirRelative}`).catch(() => undefined);
  if (!dirInfo?.isDirectory()) throw new ToolError(`${dirRelative} is not a directory`);
  const walk = await walkFiles(rootReal, dirRelative, signal, undefined, isVisible);
  const prefix = dirRelative === '.' ? '' : `${dirRelative}/`;
  const matches = (await matchToolGlob('Glob', pattern, walk.files, prefix, { timeoutMs, signal })).sort(
    compareCodePoints,
  );
  if (matches.length === 0)
    return walk.truncated ? 'No files found (the search stopped early).' : 'No files found.';
  const shown = matches.slice(0, MAX_GLOB_RESULTS);
  if (matches.length > shown.length) {
    shown.push(`(${matches.length - shown.length} more matches not shown; use a narrower pattern or path)`);
  }
  if (walk.truncated) shown.push('(the search stopped early: too many files)');
  return shown.join('\n');
}

/**
 * The files (workspace-relative) whose path after `prefix` matches the model's `pattern`, matched
 * in a worker thread with a matching budget of at most `options.timeoutMs` and `GLOB_TIMEOUT_MS`
 * and a hard deadline of `GLOB_DEADLINE_MS`; a pattern that cannot be evaluated becomes a
 * `ToolError` naming `toolName` (e.g. "Glob: pattern too complex (matching timed out after 2000
 * ms); use a simpler pattern").
 */
export async function matchToolGlob(
  toolName: string,
  pattern: string,
  files: readonly string[],
  prefix: string,
  options: { timeoutMs: number; signal?: AbortSignal | undefined; basename?: boolean },
): Promise<string[]> {
  const relative = files.map((file) => file.slice(prefix.length));
  try {
    const matched = new Set(
      await filterByGlob(pattern, relative, {
        ...options,
        timeoutMs: Math.min(options.timeoutMs, GLOB_TIMEOUT_MS),
        deadlineMs: GLOB_DEADLINE_MS,
      }),
    );
    return files.filter((_, i) => matched.has(relative[i]!));
  } catch (error) {
    if (!(error instanceof GlobPatternError)) throw error;
    if (error.message.startsWith('timed out'))
      throw new ToolError(
        `${toolName}: pattern too complex (matching ${error.message}); use a simpler pattern`,
      );
    throw new ToolError(`${toolName}: ${error.message}`);
  }
}

/** Orders strings by UTF-16 code units, the same on every machine (no locale). */
export function compareCodePoints(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Builds `Glob`. */
export function createGlobTool(ctx: ToolContext) {
  return tool({
    description:
      'Finds files of the repository by glob pattern (e.g. "**/*.ts"). Returns matching paths relative ' +
      'to the repository root, sorted.',
    inputSchema: globInput,
    execute: guardExecute(ctx, async (input: GlobInput) => {
      const dir = await resolveToolPath(ctx.rootReal, input.path ?? '.', ctx.isVisible);
      return globFiles(ctx.rootReal, dir.relative, input.pattern, ctx.signal, ctx.isVisible);
    }),
  });
}
