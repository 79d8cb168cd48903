/**
 * The "platform" of `reviewbot review --local` (CONTRACT §17): it serves the local changes to the
 * same review core (`executeReview`: triage, agent, filter) that pull requests go through, with
 * no comments and no bot; it has no API, no token, and refuses to post anything.
 */
import { UsageError } from '../errors.js';
import type { Platform, PullRequestInfo } from '../platforms/types.js';
import type { LocalChanges } from './local-changes.js';
import { renderGitHubSuggestion } from '../platforms/github/suggestion.js';

/** Repository name the local review reports (there is no remote repository). */
export const LOCAL_REPO_NAME = 'local/repository';

/** The local changes described as the pull request `executeReview` reviews. */
export function localPullRequest(changes: LocalChanges): PullRequestInfo {
  return {
    repoFullName: LOCAL_REPO_NAME,
    number: 1,
    title: `Local changes on ${changes.branch} against ${changes.baseRef}`,
    body: '',
    state: 'open',
    authorUsername: 'local',
    headBranch: changes.branch,
    headSha: changes.headSha,
    baseBranch: changes.baseRef,
    baseSha: changes.mergeBase,
    headCloneUrl: '',
    headRepoFullName: LOCAL_REPO_NAME,
    isFork: false,
    htmlUrl: '',
  };
}

function nothingToPost(): never {
  throw new UsageError('a local review posts nothing');
}

/**
 * A read-only Platform over `changes`. Its `name` is `github` only because suggestions render in
 * GitHub's ```` ```suggestion ```` syntax; it never talks to GitHub.
 */
export function createLocalPlatform(changes: LocalChanges): Platform {
  const pullRequest = localPullRequest(changes);
  return {
    name: 'github',
    async getPullRequest() {
      return pullRequest;
    },
    async listPullRequestFiles() {
      return changes.files;
    },
    async listComments() {
      return [];
    },
    async getBotUsernames() {
      return [];
    },
    async addReaction() {
      nothingToPost();
    },
    async postReply() {
      return nothingToPost();
    },
    async submitReview() {
      return nothingToPost();
    },
    async getGitCredentials() {
      // Nothing is cloned: `executeReview` uses the repository in place (`workspaceDir`).
      return { username: '', password: '' };
    },
    renderSuggestion: renderGitHubSuggestion,
  };
}
