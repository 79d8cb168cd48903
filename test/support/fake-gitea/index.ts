/**
 * The fake Gitea for tests: start it with `startFakeGitea({ token })`, set `GITEA_URL` to
 * `fake.url`, register repositories and pull requests (real bare repositories), then assert on what
 * was posted (`fake.reviews`, `fake.codeComments`, `fake.comments`, `fake.reactions`) and on
 * `fake.violations` being empty.
 */
export { startFakeGitea } from './fake-gitea.js';
export type * from './types.js';
