/** The `Read` tool: a workspace text file, line-numbered like `cat -n` (CONTRACT §8). */
import { tool } from 'ai';
import { z } from 'zod';
import { guardExecute, type ToolContext } from './context.js';
import { resolveToolPath } from './confine.js';
import { readTextFile } from './text-file.js';
import { ToolError } from './tool-error.js';

/** Lines returned when `limit` is not given (the code-agent CLI's default). */
export const DEFAULT_READ_LINES = 2000;
/** Longest line shown, characters; the rest of the line is cut. */
export const MAX_READ_LINE_CHARS = 2000;
/** Most characters one Read returns; the listing stops before exceeding it. */
export const MAX_READ_OUTPUT_CHARS = 256 * 1024;

/** Arguments of `Read`, as the code-agent CLI names them. */
export interface ReadInput {
  file_path: string;
  offset?: number;
  limit?: number;
}

const readInput = z.object({
  file_path: z.string().describe('Path of the file, relative to the repository root'),
  offset: z.number().int().min(1).optional().describe('Line number to start reading from (1-based)'),
  limit: z
    .number()
    .int()
    .min(1)
    .optional()
    .describe(`Number of lines to read (default ${DEFAULT_READ_LINES})`),
});

/**
 * Formats `text` from line `offset` (1-based) for at most `limit` lines as `cat -n` does
 * (`     1\tline`), cutting lines over `MAX_READ_LINE_CHARS` and the whole output before it exceeds
 * `MAX_READ_OUTPUT_CHARS`; a trailing note says which lines were shown when not all were.
 */
export function formatNumberedLines(text: string, offset = 1, limit = DEFAULT_READ_LINES): string {
  if (text === '') return '(the file is empty)';
  const lines = text.split(/\r?\n/);
  if (lines.length > 1 && lines.at(-1) === '') lines.pop();
  if (offset > lines.length) {
    throw new ToolError(`offset ${offset} is past the end of the file (${lines.length} lines)`);
  }
  const out: string[] = [];
  let size = 0;
  let last = offset - 1;
  for (let n = offset; n <= lines.length && n < offset + limit; n++) {
    const raw = lines[n - 1] as string;
    const line =
      raw.length > MAX_READ_LINE_CHARS ? `${raw.slice(0, MAX_READ_LINE_CHARS)}… [line truncated]` : raw;
    const formatted = `${String(n).padStart(6)}\t${line}`;
    if (size + formatted.length + 1 > MAX_READ_OUTPUT_CHARS && out.length > 0) break;
    out.push(formatted);
    size += formatted.length + 1;
    last = n;
  }
  if (offset > 1 || last < lines.length) {
    out.push(
      `(showing lines ${offset}-${last} of ${lines.length}; use offset and limit to read other lines)`,
    );
  }
  return out.join('\n');
}

/** Builds `Read`: refuses paths out of the workspace, directories, binary and oversized files. */
export function createReadTool(ctx: ToolContext) {
  return tool({
    description:
      'Reads a text file of the repository. Returns its lines numbered like `cat -n`. ' +
      `Reads up to ${DEFAULT_READ_LINES} lines from the start by default; use offset and limit for long files.`,
    inputSchema: readInput,
    execute: guardExecute(ctx, async (input: ReadInput) => {
      const target = await resolveToolPath(ctx.rootReal, input.file_path, ctx.isVisible);
      const text = await readTextFile(ctx.rootReal, target, ctx.isVisible);
      return formatNumberedLines(text, input.offset, input.limit);
    }),
  });
}
