/**
 * Hooks that hold Claude Code's tools to CONTRACT §8: before a tool runs, its paths must lie inside
 * the workspace (no `..`, absolute path, `~` or symlink out of it, nothing under `.git`) and the
 * tool must be one the run allows; Bash never runs in the background (`BACKGROUND_REFUSAL`) and its
 * shell drops the Anthropic credential first (or runs in the sandbox); after
 * a tool runs, every secret the masker knows is masked in its output before the model sees it.
 */
import path from 'node:path';
import type {
  HookCallbackMatcher,
  HookEvent,
  HookJSONOutput,
  HookInput,
} from '@anthropic-ai/claude-agent-sdk';
import type { SecretMasker } from '../../secrets.js';
import { MAX_GLOB_PATTERN_CHARS } from '../../patterns/glob-match.js';
import { SandboxUnavailableError } from '../sandbox/errors.js';
import { isInsideRoot, resolveToolPath } from '../tools/confine.js';
import { CREDENTIAL_VARS } from './environment.js';

/** Input of `createToolGuardHooks`. */
export interface ToolGuardOptions {
  /** The workspace as given to the run (the child's cwd). */
  workspaceDir: string;
  /** Real path of the workspace (symlinks resolved). */
  rootReal: string;
  /** Claude Code tool names the run may use (built-in and MCP). */
  allowedTools: readonly string[];
  masker: SecretMasker;
  /** Paths a tool may name (`AgentRunOptions.isVisible`, e.g. `review --local`); absent: all. */
  isVisible?: (relative: string) => boolean;
  /**
   * Rewrites a Bash command to run inside the tool sandbox (CONTRACT §16, `openCommandWrapper`);
   * rejects with the reason when no sandbox is available, and the call is refused with it.
   * Without it the command only has the credential variables unset (`withCredentialsUnset`).
   */
  wrapBash?: (command: string) => Promise<string>;
}

/** Which input fields of each built-in tool name a file or directory. */
const PATH_FIELDS: Record<string, readonly string[]> = {
  Read: ['file_path'],
  Write: ['file_path'],
  Edit: ['file_path'],
  NotebookEdit: ['notebook_path'],
  Glob: ['path'],
  Grep: ['path'],
};

/** Input fields that hold a glob pattern, which must not climb out of the search root either. */
const PATTERN_FIELDS: Record<string, readonly string[]> = { Glob: ['pattern'], Grep: ['glob'] };

/**
 * Checks one path argument of a tool. Relative paths are taken from the workspace; absolute ones
 * must point into it (under its given or its real path). Returns the refusal reason, or `undefined`
 * when the path is allowed.
 */
export async function checkClaudeToolPath(
  workspaceDir: string,
  rootReal: string,
  input: string,
  isVisible?: (relative: string) => boolean,
): Promise<string | undefined> {
  if (input.startsWith('~')) return `paths under the home directory are not allowed (${input})`;
  const absolute = path.resolve(workspaceDir, input);
  let relative: string | undefined;
  for (const root of [rootReal, path.resolve(workspaceDir)]) {
    if (isInsideRoot(root, absolute)) {
      relative = path.relative(root, absolute).split(path.sep).join('/') || '.';
      break;
    }
  }
  if (relative === undefined) return `path is outside the workspace (${input})`;
  try {
    await resolveToolPath(rootReal, relative, isVisible);
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/**
 * Refusal reason for a glob pattern that is absolute, starts at `~`, has a `..` segment or is
 * longer than `MAX_GLOB_PATTERN_CHARS` (the limit our own Glob tool applies; Claude Code matches
 * patterns in its own process, so a slow one cannot block the server's event loop).
 */
export function checkGlobPattern(pattern: string): string | undefined {
  if (pattern.length > MAX_GLOB_PATTERN_CHARS) {
    return `pattern too long (over ${MAX_GLOB_PATTERN_CHARS} characters)`;
  }
  const slashed = pattern.replaceAll('\\', '/');
  if (slashed.startsWith('/') || slashed.startsWith('~') || /^[a-zA-Z]:\//.test(slashed)) {
    return `absolute patterns are not allowed (${pattern}); use a pattern relative to the workspace`;
  }
  if (slashed.split('/').includes('..')) return `patterns must not contain ".." (${pattern})`;
  return undefined;
}

/**
 * Why Bash's `run_in_background` is refused: every process an agent starts ends with its tool call
 * (CONTRACT §16), so the product's own git never runs beside a live agent process.
 */
export const BACKGROUND_REFUSAL =
  'run_in_background is not available: every command must finish within its tool call (processes ' +
  'left running are stopped). Run the command in the foreground, with a timeout if it may be slow.';

/** The reason to refuse a tool call, or `undefined` to let it run. */
export async function reviewToolCall(
  options: ToolGuardOptions,
  toolName: string,
  toolInput: unknown,
): Promise<string | undefined> {
  if (!options.allowedTools.includes(toolName)) return `the tool ${toolName} is not available in this run`;
  const input = (typeof toolInput === 'object' && toolInput !== null ? toolInput : {}) as Record<
    string,
    unknown
  >;
  if (toolName === 'Bash' && input.run_in_background !== undefined && input.run_in_background !== false)
    return BACKGROUND_REFUSAL;
  for (const field of PATTERN_FIELDS[toolName] ?? []) {
    const value = input[field];
    if (typeof value === 'string') {
      const reason = checkGlobPattern(value);
      if (reason) return reason;
    }
  }
  for (const field of PATH_FIELDS[toolName] ?? []) {
    const value = input[field];
    if (typeof value === 'string' && value !== '') {
      const reason = await checkClaudeToolPath(
        options.workspaceDir,
        options.rootReal,
        value,
        options.isVisible,
      );
      if (reason) return reason;
    }
  }
  return undefined;
}

/** The Bash command actually run: the credential variables are unset in the shell first. */
export function withCredentialsUnset(command: string): string {
  return `unset ${CREDENTIAL_VARS.join(' ')}\n${command}`;
}

/** `value` with `mask` applied to every string inside it (objects and arrays copied). */
export function maskDeep(value: unknown, mask: (text: string) => string): unknown {
  if (typeof value === 'string') return mask(value);
  if (Array.isArray(value)) return value.map((item) => maskDeep(item, mask));
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) out[key] = maskDeep(item, mask);
    return out;
  }
  return value;
}

function deny(reason: string): HookJSONOutput {
  return {
    hookSpecificOutput: {
      hookEventName: 'PreToolUse',
      permissionDecision: 'deny',
      permissionDecisionReason: reason,
    },
  };
}

/**
 * Builds the `hooks` option of `query()`: a PreToolUse hook that refuses disallowed tools and
 * out-of-workspace paths (the model gets the reason as a tool error) and rewrites Bash commands to
 * run in the sandbox (`wrapBash`; refused with the reason where none is available), and a PostToolUse hook that masks secrets in tool output. A hook that
 * fails refuses the call rather than letting it through.
 */
export function createToolGuardHooks(
  options: ToolGuardOptions,
): Partial<Record<HookEvent, HookCallbackMatcher[]>> {
  async function preToolUse(input: HookInput): Promise<HookJSONOutput> {
    if (input.hook_event_name !== 'PreToolUse') return {};
    try {
      const reason = await reviewToolCall(options, input.tool_name, input.tool_input);
      if (reason !== undefined) return deny(options.masker.mask(reason));
      const toolInput = input.tool_input as Record<string, unknown> | undefined;
      if (input.tool_name === 'Bash' && typeof toolInput?.command === 'string') {
        return {
          hookSpecificOutput: {
            hookEventName: 'PreToolUse',
            updatedInput: {
              ...toolInput,
              command: options.wrapBash
                ? await options.wrapBash(toolInput.command)
                : withCredentialsUnset(toolInput.command),
            },
          },
        };
      }
      return {};
    } catch (error) {
      if (error instanceof SandboxUnavailableError) return deny(error.message);
      return deny(`the tool call could not be checked: ${options.masker.mask(String(error))}`);
    }
  }

  async function postToolUse(input: HookInput): Promise<HookJSONOutput> {
    if (input.hook_event_name !== 'PostToolUse') return {};
    const original = JSON.stringify(input.tool_response) ?? '';
    if (options.masker.mask(original) === original) return {};
    const mask = (text: string) => options.masker.mask(text);
    return {
      hookSpecificOutput: {
        hookEventName: 'PostToolUse',
        updatedToolOutput: maskDeep(input.tool_response, mask),
      },
    };
  }

  return {
    PreToolUse: [{ hooks: [preToolUse] }],
    PostToolUse: [{ hooks: [postToolUse] }],
  };
}
