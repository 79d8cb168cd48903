/**
 * Zod schemas of the Gitea/Forgejo webhook payload fields reviewbot reads. Source: Gitea's
 * `modules/structs` (`hook.go`: `IssueCommentPayload`, `PullRequestPayload`, `ReviewPayload`;
 * `issue.go`, `issue_comment.go`, `pull.go`: `PullRequest`, `PRBranchInfo`; `repo.go`; `user.go`),
 * which Forgejo shares. Lenient where Gitea is: only the fields used are declared, unknown keys are
 * dropped, optional and nullable fields accept `null` (`pull_request` in a comment payload is a
 * later addition to `IssueCommentPayload`: it may be absent). Strict where a value goes on to an API URL, a
 * workspace path or a git command: owner and repository names follow Gitea's rules (`names.ts`),
 * pull request numbers are 1..2^31-1, ids positive, SHAs, branch names and clone URLs follow git's
 * rules (`../git-names.ts`). Built once at import time.
 */
import { z } from 'zod';
import { COMMIT_SHA, isBranchName, isDecimalId, isHttpUrl, isPrNumber } from '../git-names.js';
import { isGiteaFullName, isGiteaUsername } from './names.js';

/** A Gitea id (int64): a positive integer in JSON, or its decimal text. */
export const GiteaId = z
  .union([z.int().positive(), z.string()])
  .transform(String)
  .refine(isDecimalId, 'not a positive decimal id');

/** A user (`user`, `sender`, `poster`): `login` by Gitea's `IsValidUsername`. */
export const GiteaUser = z.object({
  login: z.string().refine(isGiteaUsername, 'not a Gitea username'),
});

/** A pull request number (`number`, `index`): an integer in 1..2^31-1. */
const PrNumber = z.number().refine(isPrNumber, 'not a pull request number (1..2147483647)');
/** A commit SHA: 40 (SHA-1) or 64 (SHA-256 repositories, Gitea ≥ 1.22) lowercase hex digits. */
const Sha = z.string().regex(COMMIT_SHA, 'not a commit SHA');
/** A branch name by `git check-ref-format --branch` (Gitea's `GitRefName` binding is no looser). */
const Branch = z.string().refine(isBranchName, 'not a valid branch name');
/** A clone URL: http(s) only, no credentials. */
const CloneUrl = z.string().refine(isHttpUrl, 'not an http(s) URL');

/** `repository` (`structs.Repository`): `full_name` is `owner/name`. */
export const GiteaRepository = z.object({
  full_name: z.string().refine(isGiteaFullName, 'not a Gitea owner/repo name'),
  clone_url: CloneUrl,
});

/** `PRBranchInfo`: `repo` is null when the head repository (a fork) was deleted. */
const BranchInfo = z.object({
  ref: Branch,
  sha: Sha,
  repo: z.object({ clone_url: CloneUrl }).nullish(),
});

/** `structs.PullRequest`, the fields reviewbot reads. */
export const GiteaPullRequest = z.object({
  number: PrNumber,
  title: z.string().nullish(),
  draft: z.boolean().nullish(),
  head: BranchInfo,
  base: BranchInfo,
});

/**
 * `IssueCommentPayload` (event `issue_comment`; event type `issue_comment` on an issue,
 * `pull_request_comment` on a pull request): `issue.pull_request` (`PullRequestMeta`) and `is_pull`
 * mark a pull request; `pull_request` carries its branches where Gitea sends it.
 */
export const GiteaCommentEvent = z.object({
  issue: z.object({
    number: PrNumber,
    title: z.string().nullish(),
    pull_request: z.object({}).nullish(),
  }),
  pull_request: GiteaPullRequest.nullish(),
  comment: z.object({ id: GiteaId, body: z.string().nullish(), user: GiteaUser.nullish() }),
  repository: GiteaRepository,
  sender: GiteaUser.nullish(),
  is_pull: z.boolean().nullish(),
});

/**
 * `PullRequestPayload` (event `pull_request`: `opened`, `reopened`, `synchronized` (event type
 * `pull_request_sync`), …; and the review events `pull_request_comment`/`_approved`/`_rejected`
 * with action `reviewed` and `review` = `ReviewPayload` {type, content}).
 */
export const GiteaPullRequestEvent = z.object({
  number: PrNumber.nullish(),
  pull_request: GiteaPullRequest,
  repository: GiteaRepository,
  sender: GiteaUser,
  review: z.object({ type: z.string().nullish(), content: z.string().nullish() }).nullish(),
});

/** Parsed `IssueCommentPayload`. */
export type GiteaCommentEvent = z.infer<typeof GiteaCommentEvent>;
/** Parsed `PullRequestPayload`. */
export type GiteaPullRequestEvent = z.infer<typeof GiteaPullRequestEvent>;
/** Parsed `structs.PullRequest`. */
export type GiteaPullRequest = z.infer<typeof GiteaPullRequest>;
