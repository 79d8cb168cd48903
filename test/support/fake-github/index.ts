/**
 * The fake GitHub for end-to-end tests: start it with `startFakeGitHub({ token })`, point Octokit's
 * `baseUrl` at `fake.url`, register repositories and pull requests, then assert on what was posted
 * (`fake.reviews`, `fake.issueComments`, …) and on `fake.violations` being empty.
 */
export { startFakeGitHub } from './fake-github.js';
export { generateAppKeyPair, type AppKeyPair } from './app-auth.js';
export type * from './types.js';
export type {
  GitHubDiffEntry,
  GitHubIssueComment,
  GitHubPullRequest,
  GitHubReaction,
  GitHubReview,
  GitHubReviewComment,
} from './shapes-pull.js';
