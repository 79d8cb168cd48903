/**
 * The fake GitLab for tests: start it with `startFakeGitLab({ token })`, set `GITLAB_URL` to
 * `fake.url`, register projects and merge requests (real bare repositories), then assert on what
 * was posted (`fake.notes`, `fake.diffNotes`, `fake.awards`) and on `fake.violations` being empty.
 */
export { startFakeGitLab } from './fake-gitlab.js';
export { sendGitLabWebhook } from './send-webhook.js';
export type * from './types.js';
