/**
 * Chooses the agent runner from the configuration: `agent.provider` set → the provider API runner;
 * unset → the code-agent CLI runner (Claude Code through the optional Agent SDK).
 */
import { resolveClaudeCredential } from '../agent/claude-code/environment.js';
import { isClaudeAgentSdkInstalled, MISSING_SDK_MESSAGE } from '../agent/claude-code/sdk-loader.js';
import { resolveApiKey, resolveModelChoice } from '../agent/providers.js';
import type { ToolSandbox } from '../agent/sandbox/types.js';
import type { AgentRunner } from '../agent/types.js';
import type { RawConfig } from '../config/schema.js';
import { UsageError } from '../errors.js';
import { onceUntilRejected } from '../once-until-rejected.js';
import type { Logger } from '../logger.js';
import type { SecretMasker } from '../secrets.js';

/** Dependencies of `buildRunner` that tests replace. */
export interface BuildRunnerDeps {
  /** Whether `@anthropic-ai/claude-agent-sdk` can be loaded; default: resolves it. */
  sdkInstalled?: () => boolean;
  /** Sandbox of WORKER `Bash` detected at start-up (`setUpToolSandbox`); default: detected on first use. */
  sandbox?: ToolSandbox;
}

/**
 * Builds the agent runner for `config.agent`. Credentials are checked at once; the runner's code
 * (AI SDK, or the Claude Code runner) is loaded by its first run (`lazyRunner`).
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
): LazyAgentRunner {
  const { provider, model, base_url: baseUrl, cli_path: cliPath, max_turns: maxTurns } = config.agent;
  if (!provider) {
    if (!(deps.sdkInstalled ?? isClaudeAgentSdkInstalled)()) throw new UsageError(MISSING_SDK_MESSAGE);
    // Checked now (a missing credential is a start-up error); the runner is loaded by the first job.
    masker.add(resolveClaudeCredential(env).value);
    return lazyRunner(async () =>
      (await import('../agent/claude-code/runner.js')).createClaudeCodeRunner({
        ...(model ? { model } : {}),
        ...(cliPath ? { cliPath } : {}),
        ...(baseUrl ? { baseUrl } : {}),
        maxTurns,
        workspaceBaseDir: config.workspace.base_dir,
        env,
        masker,
        logger,
        ...(deps.sandbox ? { sandbox: deps.sandbox } : {}),
      }),
    );
  }
  // Checked now (a missing key is a start-up error); the AI SDK is loaded by the first job.
  resolveModelChoice({ provider, ...(model ? { model } : {}), ...(baseUrl ? { baseUrl } : {}) }, env);
  masker.add(resolveApiKey(provider, env));
  return lazyRunner(async () =>
    (await import('../agent/api-runner.js')).createApiRunner({
      provider,
      ...(model ? { model } : {}),
      ...(baseUrl ? { baseUrl } : {}),
      env,
      masker,
      logger,
      ...(deps.sandbox ? { sandbox: deps.sandbox } : {}),
    }),
  );
}

/** An `AgentRunner` whose code is loaded on demand (`lazyRunner`). */
export interface LazyAgentRunner extends AgentRunner {
  /**
   * Loads the runner's code and its own `preload` (the provider SDK) now; the server does so before
   * it listens, so that compiling an SDK never delays a webhook's answer. Rejects when it cannot be
   * loaded (e.g. ConfigError: the provider's package is missing); a later call retries.
   */
  preload(): Promise<void>;
}

/**
 * A runner whose implementation is created by `load` on its first run or `preload()` (and again
 * after `load` failed), so a CLI run or Job pod loads only the runner it uses, when it uses it.
 */
export function lazyRunner(load: () => Promise<AgentRunner>): LazyAgentRunner {
  const loaded = onceUntilRejected(load);
  return {
    async run(options) {
      return (await loaded()).run(options);
    },
    async preload() {
      await (await loaded()).preload?.();
    },
  };
}
