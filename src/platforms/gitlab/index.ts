/** Registers the GitLab platform factory (import for its side effect). */
import { registerPlatform } from '../registry.js';
import { createGitLabPlatform } from './platform.js';
import { readGitLabSettings } from './settings.js';

registerPlatform('gitlab', ({ env, logger, fetch }) => {
  const settings = readGitLabSettings(env);
  return settings ? createGitLabPlatform({ settings, logger, ...(fetch ? { fetch } : {}) }) : undefined;
});

export { createGitLabPlatform, type GitLabPlatformOptions } from './platform.js';
export { readGitLabSettings, type GitLabSettings } from './settings.js';
export { createGitLabWebhookHandler } from './webhook.js';
export { lineCode } from './positions.js';
