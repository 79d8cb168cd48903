/** The error of a tool command refused for want of a sandbox. */

/** Thrown when a command may not run because no sandbox is available (`agent.sandbox: auto`). */
export class SandboxUnavailableError extends Error {
  constructor(readonly reason: string) {
    super(
      `Bash is unavailable: no working sandbox on this host (${reason}). Commands are never run unsandboxed ` +
        'while agent.sandbox is auto; the operator can install bubblewrap, or set agent.sandbox: off (unsafe).',
    );
    this.name = 'SandboxUnavailableError';
  }
}
