/**
 * Loading `@anthropic-ai/claude-agent-sdk`, an optional dependency (its native binary is ~380 MB, so
 * single-provider images leave it out). Nothing imports it statically: the project builds and runs
 * without it, and only the default agent runner needs it.
 */
import { createRequire } from 'node:module';
import type * as ClaudeAgentSdkModule from '@anthropic-ai/claude-agent-sdk';
import { UsageError } from '../../errors.js';

/** The package name of the Agent SDK. */
export const CLAUDE_AGENT_SDK = '@anthropic-ai/claude-agent-sdk';

/** The SDK module's type (types only; erased at run time, so the SDK may be absent). */
export type ClaudeAgentSdk = typeof ClaudeAgentSdkModule;

/** The operator-facing fix when the SDK is missing and no provider is configured. */
export const MISSING_SDK_MESSAGE =
  `agent.provider is not set, so the default agent runner (Claude Code) is used, but ${CLAUDE_AGENT_SDK} ` +
  `is not installed: run \`npm install @anthropic-ai/claude-agent-sdk\`, or set AGENT_PROVIDER ` +
  `(e.g. anthropic, openai, google) and its API key variable to call a provider API instead`;

/**
 * True when the SDK can be resolved from this package (a synchronous check, for start-up).
 * `resolve` is injectable for tests; default: Node's resolution from this module.
 */
export function isClaudeAgentSdkInstalled(
  resolve: (id: string) => string = createRequire(import.meta.url).resolve,
): boolean {
  try {
    resolve(CLAUDE_AGENT_SDK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Imports the SDK dynamically.
 * @throws UsageError with `MISSING_SDK_MESSAGE` when it is not installed.
 */
export async function loadClaudeAgentSdk(): Promise<ClaudeAgentSdk> {
  try {
    return await import(CLAUDE_AGENT_SDK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException | undefined)?.code;
    if (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND')
      throw new UsageError(MISSING_SDK_MESSAGE);
    throw error;
  }
}
