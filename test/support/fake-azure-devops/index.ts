export * from './fake-azure-devops.js';
export type * from './types.js';
export * from './service-hooks.js';
