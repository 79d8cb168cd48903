/**
 * Zod schemas of the Bitbucket Cloud webhook payload fields reviewbot reads (Atlassian, "Event
 * payloads": `pullrequest:comment_created` carries `actor`, `repository`, `pullrequest`, `comment`;
 * `pullrequest:created`/`updated` carry `actor`, `repository`, `pullrequest`). Lenient where
 * Bitbucket is: only used fields are declared, unknown keys dropped. Strict where a value goes on to
 * an API URL, a workspace path or a git command: `workspace/slug` by Bitbucket's rules
 * (`names.ts`), pull request ids 1..2^31-1, comment ids positive, commit hashes hex (Bitbucket sends
 * 12 characters), branch names by git's rules, inline paths as repository paths.
 */
import { z } from 'zod';
import { isBranchName, isPrNumber, isRepoFilePath } from '../git-names.js';
import { isBitbucketFullName, isCommitHash } from './names.js';

/** An account (`actor`, `user`, `author`): reviewbot compares its account id (`identityOf`). */
export const BitbucketAccount = z.object({
  nickname: z.string().min(1).max(100).optional(),
  display_name: z.string().max(255).optional(),
  account_id: z.string().max(128).optional(),
  uuid: z.string().max(128).optional(),
});

const Repository = z.object({
  full_name: z.string().refine(isBitbucketFullName, 'not a Bitbucket workspace/slug'),
});

const Endpoint = z.object({
  branch: z.object({ name: z.string().refine(isBranchName, 'not a valid branch name') }),
  commit: z.object({ hash: z.string().refine(isCommitHash, 'not a commit hash') }),
  repository: Repository.nullish(),
});

/** `pullrequest`, the fields read. */
export const BitbucketPullRequest = z.object({
  id: z.number().refine(isPrNumber, 'not a pull request id (1..2147483647)'),
  title: z.string().nullish(),
  draft: z.boolean().nullish(),
  source: Endpoint,
  destination: Endpoint,
});

/** A lifecycle event (`pullrequest:created`, `pullrequest:updated`). */
export const BitbucketPullRequestEvent = z.object({
  actor: BitbucketAccount,
  repository: Repository,
  pullrequest: BitbucketPullRequest,
});

/** `pullrequest:comment_created`. */
export const BitbucketCommentEvent = BitbucketPullRequestEvent.extend({
  comment: z.object({
    id: z.number().int().positive().max(Number.MAX_SAFE_INTEGER),
    content: z.object({ raw: z.string().nullish() }),
    user: BitbucketAccount.nullish(),
    parent: z.object({ id: z.number().int().positive() }).nullish(),
    inline: z
      .object({
        path: z.string().refine(isRepoFilePath, 'not a repository file path'),
        from: z.number().int().positive().nullish(),
        to: z.number().int().positive().nullish(),
      })
      .nullish(),
  }),
});
