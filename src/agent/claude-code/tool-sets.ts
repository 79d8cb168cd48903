/**
 * Which Claude Code tools a run gets (CONTRACT §8): REVIEWER `Read`, `Glob`, `Grep` and
 * `submit_review`; WORKER adds `Write`, `Edit`, `Bash`. Everything else Claude Code has — web
 * access, subagents, skills, workflows, scheduling, notebooks — is disallowed explicitly.
 */
import type { ToolName } from '../types.js';
import { SUBMIT_TOOL_FULL_NAME } from './submit-review-server.js';

/** Built-in Claude Code tools reviewbot may enable; names and parameters match CONTRACT §8. */
const BUILT_IN: readonly ToolName[] = ['Read', 'Glob', 'Grep', 'Write', 'Edit', 'Bash'];

/**
 * Claude Code tools never enabled (as of Claude Code 2.1): web access, subagents and teams,
 * skills and workflows, scheduling, worktrees, notebooks, interactive prompts.
 */
export const NEVER_TOOLS: readonly string[] = [
  'WebFetch',
  'WebSearch',
  'Task',
  'Agent',
  'TaskStop',
  'TaskOutput',
  'SendMessage',
  'ListAgents',
  'Skill',
  'SlashCommand',
  'Workflow',
  'ToolSearch',
  'Monitor',
  'CronCreate',
  'CronDelete',
  'CronList',
  'ScheduleWakeup',
  'RemoteTrigger',
  'ReportFindings',
  'EnterWorktree',
  'ExitWorktree',
  'NotebookEdit',
  'TodoWrite',
  'BashOutput',
  'KillShell',
  'KillBash',
  'AskUserQuestion',
  'EnterPlanMode',
  'ExitPlanMode',
  'ListMcpResourcesTool',
  'ReadMcpResourceTool',
];

/** The `query()` tool options of one run. */
export interface ClaudeToolSet {
  /** `tools`: the built-in tools offered. */
  builtIn: string[];
  /** `allowedTools`: every tool the run may use without a prompt (built-in and MCP). */
  allowed: string[];
  /** `disallowedTools`: every other known tool. */
  disallowed: string[];
  /** True when `submit_review` is offered (through the in-process MCP server). */
  submitReview: boolean;
}

/** Maps a run's tool names to Claude Code's tool options (duplicates ignored). Pure. */
export function claudeToolSet(tools: readonly ToolName[]): ClaudeToolSet {
  const builtIn = BUILT_IN.filter((name) => tools.includes(name));
  const submitReview = tools.includes('submit_review');
  const disallowed = [...BUILT_IN.filter((name) => !builtIn.includes(name)), ...NEVER_TOOLS];
  return {
    builtIn: [...builtIn],
    allowed: [...builtIn, ...(submitReview ? [SUBMIT_TOOL_FULL_NAME] : [])],
    disallowed,
    submitReview,
  };
}
