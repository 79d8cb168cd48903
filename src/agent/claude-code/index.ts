/** The code-agent CLI runner (Claude Code through the Agent SDK), the default agent runner. */
export { createClaudeCodeRunner, DEFAULT_TIMEOUT_MS, type ClaudeCodeRunnerOptions } from './runner.js';
export { AGENT_DIR_NAME, resolveClaudeCredential } from './environment.js';
export { isClaudeAgentSdkInstalled, MISSING_SDK_MESSAGE } from './sdk-loader.js';
