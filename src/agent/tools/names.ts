/**
 * The tool sets of the two bot types (CONTRACT §8), apart from the tools' code so a job module can
 * name them without loading the AI SDK.
 */
import type { ToolName } from '../types.js';

/** Tools of a REVIEWER run (read-only plus `submit_review`). */
export const REVIEWER_TOOLS: readonly ToolName[] = ['Read', 'Glob', 'Grep', 'submit_review'];
/** Tools of a WORKER run (everything but `submit_review`). */
export const WORKER_TOOLS: readonly ToolName[] = ['Read', 'Glob', 'Grep', 'Write', 'Edit', 'Bash'];
