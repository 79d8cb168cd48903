/** The fake Bitbucket Cloud for tests (see `fake-bitbucket-cloud.ts`). */
export { startFakeBitbucketCloud } from './fake-bitbucket-cloud.js';
export type * from './types.js';
