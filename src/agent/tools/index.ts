/** Builds the tool set of one agent run from the run's list of tool names (CONTRACT §8). */
import type { ToolSet } from 'ai';
import type { ToolName } from '../types.js';
import { createBashTool } from './bash.js';
import type { ToolContext } from './context.js';
import { createEditTool } from './edit.js';
import { createGlobTool } from './glob.js';
import { createGrepTool } from './grep.js';
import { createReadTool } from './read.js';
import { createSubmitMatchesTool } from './submit-matches.js';
import { createSubmitReviewTool } from './submit-review.js';
import { createSubmitVerificationTool } from './submit-verification.js';
import { ToolCallLock } from './tool-lock.js';
import { createWriteTool } from './write.js';

export type { ToolContext } from './context.js';
export type { SubmitReviewInput } from './submit-review.js';
export type { SubmitMatchesInput } from './submit-matches.js';
export type { SubmitVerificationInput } from './submit-verification.js';
export { ToolError } from './tool-error.js';

export { REVIEWER_TOOLS, WORKER_TOOLS } from './names.js';

const FACTORIES: Record<ToolName, (ctx: ToolContext) => ToolSet[string]> = {
  Read: createReadTool,
  Glob: createGlobTool,
  Grep: createGrepTool,
  Write: createWriteTool,
  Edit: createEditTool,
  Bash: createBashTool,
  submit_review: createSubmitReviewTool,
  submit_matches: createSubmitMatchesTool,
  submit_verification: createSubmitVerificationTool,
};

/** Tools that touch the workspace: Bash alone, the file tools together (`ToolCallLock`). */
const LOCKED: Partial<Record<ToolName, 'exclusive' | 'shared'>> = {
  Bash: 'exclusive',
  Read: 'shared',
  Glob: 'shared',
  Grep: 'shared',
  Write: 'shared',
  Edit: 'shared',
};

/** `tool` whose `execute` runs under `lock`. */
function locked(tool: ToolSet[string], lock: ToolCallLock, exclusive: boolean): ToolSet[string] {
  const execute = tool.execute;
  if (!execute) return tool;
  return {
    ...tool,
    execute: (input: unknown, options: Parameters<typeof execute>[1]) =>
      lock.run(exclusive, async () => (await execute(input, options)) as unknown),
  } as ToolSet[string];
}

/**
 * Returns the AI SDK tool set holding exactly the tools named in `names` (duplicates ignored),
 * keyed by their CONTRACT §8 names, all bound to `ctx`. Calls of one tool set never overlap a Bash
 * call, whatever the caller's concurrency (one lock per set: build one set per run).
 */
export function buildTools(names: readonly ToolName[], ctx: ToolContext): ToolSet {
  const lock = new ToolCallLock();
  const tools: ToolSet = {};
  for (const name of names) {
    const kind = LOCKED[name];
    const tool = FACTORIES[name](ctx);
    tools[name] = kind ? locked(tool, lock, kind === 'exclusive') : tool;
  }
  return tools;
}
