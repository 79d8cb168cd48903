/** Imports every platform module so each registers its factory, and re-exports the registry. */
import './github/index.js';
import './gitlab/index.js';
import './gitea/index.js';
import './bitbucket-cloud/index.js';
import './bitbucket-server/index.js';
import './azure-devops/index.js';

export { buildPlatforms, registeredPlatforms, registerPlatform } from './registry.js';
export type * from './types.js';
