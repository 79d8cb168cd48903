/**
 * The project's error classes. Each carries an operator-facing message (never a secret) and the
 * CLI exit code it maps to (CONTRACT §2: 1 runtime failure, 2 usage/validation error).
 */

/** Base class: `exitCode` is what the CLI exits with when this error ends a command. */
export class ReviewbotError extends Error {
  readonly exitCode: 1 | 2;
  constructor(message: string, options?: { cause?: unknown; exitCode?: 1 | 2 }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.exitCode = options?.exitCode ?? 1;
  }
}

/** Bad command-line usage (e.g. a malformed pull request reference). Exit code 2. */
export class UsageError extends ReviewbotError {
  constructor(message: string) {
    super(message, { exitCode: 2 });
  }
}

/** Invalid configuration; `issues` lists every problem, each naming its key. Exit code 2. */
export class ConfigError extends ReviewbotError {
  readonly issues: string[];
  constructor(issues: string[]) {
    super(`invalid configuration:\n  - ${issues.join('\n  - ')}`, { exitCode: 2 });
    this.issues = issues;
  }
}

/** The platform rejected our credentials (HTTP 401/403 on auth). Exit code 1. */
export class AuthError extends ReviewbotError {}

/**
 * A platform API call failed. `status` is the HTTP status when there was a response. Retrying is
 * the HTTP layer's (`src/platforms/http/`): by the time this is thrown, it has retried what could
 * succeed on a second try.
 */
export class PlatformError extends ReviewbotError {
  readonly status: number | undefined;
  constructor(message: string, options: { status?: number; cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.status = options.status;
  }
}

/** A git command failed; the message holds git's stderr with credentials removed. */
export class GitError extends ReviewbotError {}

/** The agent (LLM provider or code-agent CLI) failed: API error, turn limit, timeout. */
export class AgentError extends ReviewbotError {}

/** Returns a one-line, secret-free description of any thrown value. */
export function describeError(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}
