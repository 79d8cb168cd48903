/**
 * Chooses the agent runner from the configuration: `agent.provider` set → the provider API runner;
 * unset → the code-agent CLI runner (Claude Code through the optional Agent SDK).
 */
import { createApiRunner } from '../agent/api-runner.js';
import { createClaudeCodeRunner } from '../agent/claude-code/runner.js';
import { isClaudeAgentSdkInstalled, MISSING_SDK_MESSAGE } from '../agent/claude-code/sdk-loader.js';
import type { AgentRunner } from '../agent/types.js';
import type { RawConfig } from '../config/schema.js';
import { UsageError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { SecretMasker } from '../secrets.js';

/** Dependencies of `buildRunner` that tests replace. */
export interface BuildRunnerDeps {
  /** Whether `@anthropic-ai/claude-agent-sdk` can be loaded; default: resolves it. */
  sdkInstalled?: () => boolean;
}

/**
 * Builds the agent runner for `config.agent`.
 * - `agent.provider` set: the provider API runner (`agent.model`, `agent.base_url`).
 * - unset: the Claude Code runner (`agent.model`, `agent.cli_path`, `agent.max_turns`,
 *   `agent.base_url` or `ANTHROPIC_BASE_URL`, sessions under `workspace.base_dir`).
 * @throws UsageError (exit 2) when no provider is set and the Agent SDK is not installed, naming
 *   both fixes (`npm install @anthropic-ai/claude-agent-sdk`, or set AGENT_PROVIDER); ConfigError
 *   when the chosen runner's credential is missing.
 */
export function buildRunner(
  config: RawConfig,
  env: NodeJS.ProcessEnv,
  masker: SecretMasker,
  logger: Logger,
  deps: BuildRunnerDeps = {},
): AgentRunner {
  const { provider, model, base_url: baseUrl, cli_path: cliPath, max_turns: maxTurns } = config.agent;
  if (!provider) {
    if (!(deps.sdkInstalled ?? isClaudeAgentSdkInstalled)()) throw new UsageError(MISSING_SDK_MESSAGE);
    return createClaudeCodeRunner({
      ...(model ? { model } : {}),
      ...(cliPath ? { cliPath } : {}),
      ...(baseUrl ? { baseUrl } : {}),
      maxTurns,
      workspaceBaseDir: config.workspace.base_dir,
      env,
      masker,
      logger,
    });
  }
  return createApiRunner({
    provider,
    ...(model ? { model } : {}),
    ...(baseUrl ? { baseUrl } : {}),
    env,
    masker,
    logger,
  });
}
