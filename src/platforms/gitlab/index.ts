/**
 * Registers the GitLab platform factory (import for its side effect). The gitbeaker-based platform
 * is loaded only when `GITLAB_TOKEN` is set.
 */
import { registerPlatform } from '../registry.js';
import { readGitLabSettings } from './settings.js';

registerPlatform('gitlab', async ({ env, logger, fetch }) => {
  const settings = readGitLabSettings(env);
  if (!settings) return undefined;
  const { createGitLabPlatform } = await import('./platform.js');
  return createGitLabPlatform({ settings, logger, ...(fetch ? { fetch } : {}) });
});

export { readGitLabSettings, type GitLabSettings } from './settings.js';
