/**
 * Registers the Bitbucket Cloud platform factory (import for its side effect). The platform's code
 * and its API client are loaded only when `BITBUCKET_TOKEN` is set.
 */
import { registerPlatform } from '../registry.js';
import { readBitbucketSettings } from './settings.js';

registerPlatform('bitbucket', async ({ env, logger, fetch }) => {
  const settings = readBitbucketSettings(env);
  if (!settings) return undefined;
  const { createBitbucketPlatform } = await import('./platform.js');
  return createBitbucketPlatform({ settings, logger, ...(fetch ? { fetch } : {}) });
});

export { readBitbucketSettings, type BitbucketSettings } from './settings.js';
