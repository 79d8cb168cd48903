/**
 * Registers the Bitbucket Data Center platform factory (import for its side effect). The
 * platform's code and its API client are loaded only when `BITBUCKET_SERVER_TOKEN` is set.
 */
import { registerPlatform } from '../registry.js';
import { readBitbucketServerSettings } from './settings.js';

registerPlatform('bitbucket-server', async ({ env, logger, fetch }) => {
  const settings = readBitbucketServerSettings(env);
  if (!settings) return undefined;
  const { createBitbucketServerPlatform } = await import('./platform.js');
  return createBitbucketServerPlatform({ settings, logger, ...(fetch ? { fetch } : {}) });
});

export { readBitbucketServerSettings, type BitbucketServerSettings } from './settings.js';
