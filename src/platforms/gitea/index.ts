/**
 * Registers the Gitea/Forgejo platform factory (import for its side effect). The platform's code is
 * loaded only when `GITEA_TOKEN` is set.
 */
import { registerPlatform } from '../registry.js';
import { readGiteaSettings } from './settings.js';

registerPlatform('gitea', async ({ env, logger, fetch }) => {
  const settings = readGiteaSettings(env);
  if (!settings) return undefined;
  const { createGiteaPlatform } = await import('./platform.js');
  return createGiteaPlatform({ settings, logger, ...(fetch ? { fetch } : {}) });
});

export { readGiteaSettings, type GiteaSettings } from './settings.js';
