/** Steps every agent runner takes at the start of a run, shared by the API and Claude Code runners. */
import { realpath } from 'node:fs/promises';
import { AgentError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { AgentEvent } from './types.js';

/** Wraps a run's `onEvent` so a throwing listener is logged and never ends the run. */
export function safeEmitter(
  onEvent: ((event: AgentEvent) => void) | undefined,
  log: Logger | undefined,
): (event: AgentEvent) => void {
  return (event) => {
    try {
      onEvent?.(event);
    } catch (error) {
      log?.warn({ err: String(error) }, 'agent event handler threw');
    }
  };
}

/**
 * The workspace's real path (symlinks resolved), the root every tool is confined to.
 * @throws AgentError when the directory does not exist.
 */
export function workspaceRoot(workspaceDir: string): Promise<string> {
  return realpath(workspaceDir).catch(() => {
    throw new AgentError(`workspace ${workspaceDir} does not exist`);
  });
}
