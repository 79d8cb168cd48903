/** The `Edit` tool (WORKER only): exact string replacement in a workspace file (CONTRACT §8). */
import { tool } from 'ai';
import { z } from 'zod';
import { guardExecute, type ToolContext } from './context.js';
import { resolveToolPath } from './confine.js';
import { openConfinedForWrite } from './confined-open.js';
import { readTextFile } from './text-file.js';
import { ToolError } from './tool-error.js';

/** Arguments of `Edit`, as the code-agent CLI names them. */
export interface EditInput {
  file_path: string;
  old_string: string;
  new_string: string;
  replace_all?: boolean;
}

const editInput = z.object({
  file_path: z.string().describe('Path of the file, relative to the repository root'),
  old_string: z.string().describe('Exact text to replace; must occur exactly once unless replace_all is set'),
  new_string: z.string().describe('Replacement text'),
  replace_all: z.boolean().optional().describe('Replace every occurrence of old_string (default false)'),
});

/**
 * Replaces `old_string` by `new_string` in `text` (literally, no `$` patterns). Throws `ToolError`
 * when `old_string` is empty, equals `new_string`, does not occur, or occurs more than once without
 * `replace_all`. Returns the new text and the number of replacements.
 */
export function replaceExact(
  text: string,
  input: Omit<EditInput, 'file_path'>,
  shown: string,
): { text: string; count: number } {
  if (input.old_string === '') throw new ToolError('old_string is empty; use Write to create a file');
  if (input.old_string === input.new_string) throw new ToolError('old_string and new_string are identical');
  const parts = text.split(input.old_string);
  const count = parts.length - 1;
  if (count === 0) throw new ToolError(`old_string was not found in ${shown}`);
  if (count > 1 && !input.replace_all) {
    throw new ToolError(
      `old_string occurs ${count} times in ${shown}; include more surrounding context to make it unique, ` +
        'or set replace_all',
    );
  }
  return { text: parts.join(input.new_string), count };
}

/** Builds `Edit`. */
export function createEditTool(ctx: ToolContext) {
  return tool({
    description:
      'Replaces an exact string in a file of the repository. old_string must match the file exactly ' +
      '(including indentation) and be unique unless replace_all is true.',
    inputSchema: editInput,
    execute: guardExecute(ctx, async (input: EditInput) => {
      const target = await resolveToolPath(ctx.rootReal, input.file_path);
      const before = await readTextFile(ctx.rootReal, target);
      const after = replaceExact(before, input, target.relative);
      const { handle } = await openConfinedForWrite(ctx.rootReal, target.relative);
      try {
        await handle.writeFile(after.text, 'utf8');
      } finally {
        await handle.close();
      }
      return `Edited ${target.relative}: ${after.count} replacement${after.count === 1 ? '' : 's'}.`;
    }),
  });
}
