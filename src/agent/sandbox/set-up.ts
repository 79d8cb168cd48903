/** Start-up wiring of the tool sandbox from `agent.sandbox` and `agent.sandbox_network`. */
import type { Logger } from '../../logger.js';
import { detectSandbox, type DetectOptions } from './detect.js';
import type { SandboxMode, ToolSandbox } from './types.js';

/**
 * Detects the sandbox (logging one line) and returns the policy the runners' tools use. Network
 * hosts are logged when the sandbox is active.
 * @throws ConfigError (exit 2) under `agent.sandbox: required` without a working sandbox.
 */
export async function setUpToolSandbox(
  agent: { sandbox: SandboxMode; sandbox_network: readonly string[] },
  logger: Logger,
  options: DetectOptions = {},
): Promise<ToolSandbox> {
  const status = await detectSandbox(agent.sandbox, logger, options);
  if (status.kind === 'bwrap' && agent.sandbox_network.length > 0) {
    logger.info(
      { hosts: agent.sandbox_network },
      'tool sandbox network: only these hosts, through the proxy',
    );
  }
  return { status, networkHosts: [...agent.sandbox_network], logger };
}
