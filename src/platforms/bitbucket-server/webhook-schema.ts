/**
 * Zod schemas of the Bitbucket Data Center webhook payload fields reviewbot reads (Atlassian,
 * "Event payload": `pr:opened` and `pr:from_ref_updated` carry `actor` and `pullRequest`;
 * `pr:comment:added` adds `comment` and, for a reply, `commentParentId`). Lenient where Bitbucket
 * is: only used fields are declared, unknown keys dropped. Strict where a value goes on to an API
 * URL, a workspace path or a git command: project keys and slugs by Data Center's rules
 * (`names.ts`), pull request ids 1..2^31-1, comment ids positive, commit hashes 40 hex digits,
 * branch names by git's rules, anchor paths as repository paths.
 */
import { z } from 'zod';
import { COMMIT_SHA, isBranchName, isPrNumber, isRepoFilePath } from '../git-names.js';
import { isProjectKey, isRepositorySlug } from './names.js';

/** A user (`actor`, `comment.author`): reviewbot compares its `name`. */
export const ServerUser = z.object({
  name: z.string().min(1).max(255).optional(),
  slug: z.string().max(255).optional(),
  displayName: z.string().max(255).optional(),
});

const Repository = z.object({
  slug: z.string().refine(isRepositorySlug, 'not a Bitbucket Data Center repository slug'),
  project: z.object({ key: z.string().refine(isProjectKey, 'not a Bitbucket Data Center project key') }),
});

const Ref = z.object({
  displayId: z.string().refine(isBranchName, 'not a valid branch name'),
  latestCommit: z.string().regex(COMMIT_SHA, 'not a full commit SHA'),
  repository: Repository,
});

/** `pullRequest`, the fields read. */
export const ServerPullRequest = z.object({
  id: z.number().refine(isPrNumber, 'not a pull request id (1..2147483647)'),
  title: z.string().nullish(),
  fromRef: Ref,
  toRef: Ref,
});

/** A lifecycle event (`pr:opened`, `pr:from_ref_updated`). */
export const ServerPullRequestEvent = z.object({
  actor: ServerUser,
  pullRequest: ServerPullRequest,
});

const Id = z.number().int().positive().max(Number.MAX_SAFE_INTEGER);

/** `pr:comment:added`. */
export const ServerCommentEvent = ServerPullRequestEvent.extend({
  comment: z.object({
    id: Id,
    text: z.string().nullish(),
    author: ServerUser.nullish(),
    anchor: z
      .object({
        path: z.string().refine(isRepoFilePath, 'not a repository file path'),
        line: z.number().int().positive().nullish(),
        // `FROM`: `line` is numbered in the source (old) file; `TO`: in the new one.
        lineType: z.enum(['ADDED', 'REMOVED', 'CONTEXT']).nullish(),
        fileType: z.enum(['FROM', 'TO']).nullish(),
      })
      .nullish(),
  }),
  commentParentId: Id.nullish(),
});
