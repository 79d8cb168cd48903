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

/**
 * Returns the AI SDK tool set holding exactly the tools named in `names` (duplicates ignored),
 * keyed by their CONTRACT §8 names, all bound to `ctx`.
 */
export function buildTools(names: readonly ToolName[], ctx: ToolContext): ToolSet {
  const tools: ToolSet = {};
  for (const name of names) tools[name] = FACTORIES[name](ctx);
  return tools;
}
