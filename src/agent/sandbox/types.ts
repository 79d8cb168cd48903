/** Shapes of the tool sandbox (CONTRACT §16): the configured mode and what detection found. */
import type { Logger } from '../../logger.js';

/** `agent.sandbox`: `auto` (sandbox when available, else refuse `Bash`), `required`, `off`. */
export type SandboxMode = 'auto' | 'required' | 'off';

/**
 * What start-up detection found:
 * - `bwrap`: bubblewrap works here; every tool subprocess runs inside it;
 * - `off`: `agent.sandbox: off`; tool subprocesses run unsandboxed (logged as unsafe);
 * - `unavailable`: `auto` without a working bubblewrap; WORKER `Bash` is refused with `reason`.
 */
export type SandboxStatus =
  | { kind: 'bwrap'; bwrapPath: string; version: string; pidsCgroup?: string }
  | { kind: 'off' }
  | { kind: 'unavailable'; reason: string };

/** The sandbox a run's tools use: the detected status plus the network allowlist. */
export interface ToolSandbox {
  status: SandboxStatus;
  /** `agent.sandbox_network`: hosts (optionally `host:port`) reachable through the proxy; `[]` = none. */
  networkHosts: readonly string[];
  /** Receives "blocked" lines of the network proxy. */
  logger?: Logger;
}
