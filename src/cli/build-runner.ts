/** Chooses the agent runner from the configuration (provider API runner; code-agent CLI later). */
import { createApiRunner } from '../agent/api-runner.js';
import type { AgentRunner } from '../agent/types.js';
import type { RawConfig } from '../config/schema.js';
import { UsageError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { SecretMasker } from '../secrets.js';

/**
 * Builds the agent runner for `config.agent`.
 * @throws UsageError when no provider is set (the code-agent CLI runner is not available yet), or
 *   ConfigError when the provider's key is missing.
 */
export function buildRunner(
  config: RawConfig,
  env: NodeJS.ProcessEnv,
  masker: SecretMasker,
  logger: Logger,
): AgentRunner {
  const { provider, model, base_url: baseUrl } = config.agent;
  if (!provider) {
    throw new UsageError(
      'agent.provider is not set: set AGENT_PROVIDER (e.g. anthropic, openai, google) and its API key variable (e.g. ANTHROPIC_API_KEY)',
    );
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
