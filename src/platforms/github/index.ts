/** Registers the GitHub platform factory (import for its side effect). */
import { registerPlatform } from '../registry.js';
import { readGitHubSettings } from './credentials.js';
import { createGitHubPlatform } from './platform.js';

registerPlatform('github', ({ env, logger, fetch }) => {
  const settings = readGitHubSettings(env);
  return settings ? createGitHubPlatform({ settings, logger, ...(fetch ? { fetch } : {}) }) : undefined;
});

export { createGitHubPlatform } from './platform.js';
export { readGitHubSettings, type GitHubSettings } from './credentials.js';
