/** The `Write` tool (WORKER only): creates or replaces a workspace file (CONTRACT §8). */
import { tool } from 'ai';
import { z } from 'zod';
import { guardExecute, type ToolContext } from './context.js';
import { resolveToolPath } from './confine.js';
import { openConfinedForWrite } from './confined-open.js';
import { ToolError } from './tool-error.js';

/** Arguments of `Write`, as the code-agent CLI names them. */
export interface WriteInput {
  file_path: string;
  content: string;
}

const writeInput = z.object({
  file_path: z.string().describe('Path of the file, relative to the repository root'),
  content: z.string().describe('The complete new content of the file'),
});

/** Builds `Write`: creates missing parent directories; refuses directories and paths out of the workspace. */
export function createWriteTool(ctx: ToolContext) {
  return tool({
    description:
      'Writes a file of the repository, replacing it if it exists. Parent directories are created. ' +
      'Prefer Edit for changes to existing files.',
    inputSchema: writeInput,
    execute: guardExecute(ctx, async (input: WriteInput) => {
      const target = await resolveToolPath(ctx.rootReal, input.file_path);
      if (target.relative === '.') throw new ToolError('file_path names the workspace root, not a file');
      const { handle, created } = await openConfinedForWrite(ctx.rootReal, target.relative);
      try {
        await handle.writeFile(input.content, 'utf8');
      } finally {
        await handle.close();
      }
      const bytes = Buffer.byteLength(input.content, 'utf8');
      return `${created ? 'Created' : 'Replaced'} ${target.relative} (${bytes} bytes).`;
    }),
  });
}
