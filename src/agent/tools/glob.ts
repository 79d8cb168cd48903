/** The `Glob` tool: workspace files matching a glob pattern, sorted (CONTRACT §8). */
import { stat } from 'node:fs/promises';
import picomatch from 'picomatch';
import { tool } from 'ai';
import { z } from 'zod';
import { guardExecute, type ToolContext } from './context.js';
import { resolveToolPath } from './confine.js';
import { ToolError } from './tool-error.js';
import { walkFiles } from './walk.js';

/** Most paths one Glob returns. */
export const MAX_GLOB_RESULTS = 500;

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
 * workspace. Throws `ToolError` when `dirRelative` is not a directory.
 */
export async function globFiles(
  rootReal: string,
  dirRelative: string,
  pattern: string,
  signal?: AbortSignal,
  isVisible?: (relative: string) => boolean,
): Promise<string> {
  const dirInfo = await stat(`${rootReal}/${dirRelative}`).catch(() => undefined);
  if (!dirInfo?.isDirectory()) throw new ToolError(`${dirRelative} is not a directory`);
  const isMatch = picomatch(pattern, { dot: true });
  const walk = await walkFiles(rootReal, dirRelative, signal, undefined, isVisible);
  const prefix = dirRelative === '.' ? '' : `${dirRelative}/`;
  const matches = walk.files.filter((file) => isMatch(file.slice(prefix.length))).sort(compareCodePoints);
  if (matches.length === 0)
    return walk.truncated ? 'No files found (the search stopped early).' : 'No files found.';
  const shown = matches.slice(0, MAX_GLOB_RESULTS);
  if (matches.length > shown.length) {
    shown.push(`(${matches.length - shown.length} more matches not shown; use a narrower pattern or path)`);
  }
  if (walk.truncated) shown.push('(the search stopped early: too many files)');
  return shown.join('\n');
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
