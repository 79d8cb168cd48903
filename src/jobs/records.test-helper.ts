/** Typed factories with overrides for the job layer's records (tests only). */
import type { Platform, ReviewComment } from '../platforms/types.js';
import type { BotType, JobPayload } from './types.js';

/** A mention comment on `acme/widgets#7` by `alice`; override any field. */
export function makeComment(overrides: Partial<ReviewComment> = {}): ReviewComment {
  return {
    platform: 'github',
    repoFullName: 'acme/widgets',
    prNumber: 7,
    prBranch: 'feature',
    baseBranch: 'main',
    headSha: '',
    prTitle: 'Tune the service constants',
    commentId: '1001',
    commentType: 'issue_comment',
    authorUsername: 'alice',
    body: '@rb-review please check',
    cloneUrl: '',
    deliveryId: 'delivery-1',
    eventType: 'comment',
    ...overrides,
  };
}

/** A lifecycle event (`pr_opened` unless overridden) on `acme/widgets#7`. */
export function makeLifecycle(overrides: Partial<ReviewComment> = {}): ReviewComment {
  return makeComment({
    commentId: '',
    commentType: 'lifecycle',
    body: '',
    eventType: 'pr_opened',
    authorUsername: 'octocat',
    ...overrides,
  });
}

let counter = 0;

/** A JobPayload for `comment` with a fresh job id. */
export function makePayload(
  botType: BotType,
  prompt: string,
  comment: ReviewComment = makeComment(),
): JobPayload {
  counter += 1;
  return {
    version: 1,
    jobId: `00000000-0000-4000-8000-${String(counter).padStart(12, '0')}`,
    botType,
    comment,
    prompt,
    enqueuedAt: new Date().toISOString(),
  };
}

/**
 * A Platform whose methods are the given overrides; any other method rejects (or throws) naming
 * itself, so a test fails on an unexpected call.
 */
export function stubPlatform(overrides: Partial<Platform> = {}): Platform {
  const unexpected = (method: string) => () => {
    throw new Error(`unexpected call to Platform.${method}`);
  };
  return {
    name: 'github',
    getPullRequest: unexpected('getPullRequest'),
    listPullRequestFiles: unexpected('listPullRequestFiles'),
    listComments: unexpected('listComments'),
    getBotUsernames: unexpected('getBotUsernames'),
    addReaction: unexpected('addReaction'),
    postReply: unexpected('postReply'),
    submitReview: unexpected('submitReview'),
    getGitCredentials: unexpected('getGitCredentials'),
    renderSuggestion: unexpected('renderSuggestion'),
    ...overrides,
  };
}
