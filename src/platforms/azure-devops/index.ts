/**
 * Registers the Azure DevOps platform factory (import for its side effect). The platform's code and
 * its API client are loaded only when `AZURE_DEVOPS_TOKEN` is set.
 */
import { registerPlatform } from '../registry.js';
import { readAzureDevOpsSettings } from './settings.js';

registerPlatform('azure-devops', async ({ env, logger, fetch }) => {
  const settings = readAzureDevOpsSettings(env);
  if (!settings) return undefined;
  const { createAzureDevOpsPlatform } = await import('./platform.js');
  return createAzureDevOpsPlatform({ settings, logger, ...(fetch ? { fetch } : {}) });
});

export { readAzureDevOpsSettings, type AzureDevOpsSettings } from './settings.js';
