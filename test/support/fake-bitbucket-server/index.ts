/** The fake Bitbucket Data Center for tests (see `fake-bitbucket-server.ts`). */
export { startFakeBitbucketServer } from './fake-bitbucket-server.js';
export type * from './types.js';
