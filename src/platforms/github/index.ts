/**
 * Registers the GitHub platform factory (import for its side effect). The Octokit-based platform is
 * loaded only when GitHub credentials are set.
 */
import { registerPlatform } from '../registry.js';
import { readGitHubSettings } from './credentials.js';

registerPlatform('github', async ({ env, logger, fetch }) => {
  const settings = readGitHubSettings(env);
  if (!settings) return undefined;
  const { createGitHubPlatform } = await import('./platform.js');
  return createGitHubPlatform({ settings, logger, ...(fetch ? { fetch } : {}) });
});

export { readGitHubSettings, type GitHubSettings } from './credentials.js';
