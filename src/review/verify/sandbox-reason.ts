/** Whether this host can run verifications and probes (CONTRACT §22): only inside bubblewrap. */
import type { ToolSandbox } from '../../agent/sandbox/types.js';

/** Why a host cannot run verifications, or undefined when it can (bubblewrap is there). */
export function sandboxSkipReason(sandbox: ToolSandbox): string | undefined {
  const { status } = sandbox;
  if (status.kind === 'bwrap') return undefined;
  if (status.kind === 'off')
    return 'the tool sandbox is off (agent.sandbox: off); findings are never verified unsandboxed';
  return `no tool sandbox is available (${status.reason})`;
}
