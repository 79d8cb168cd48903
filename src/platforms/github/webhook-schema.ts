/**
 * Zod schemas of the GitHub webhook payload fields reviewbot reads (source: GitHub's "Webhook events
 * and payloads" reference; shapes as in `@octokit/webhooks-examples`). Lenient where the API is:
 * only the fields we use are declared, unknown keys are dropped, nullable fields accept `null`.
 * Strict where a value goes on to an API URL, a workspace path or a git command: repository names
 * (`names.ts`), pull request numbers (1..2^31-1), ids, SHAs, branch names, file paths and clone URLs
 * (`../git-names.ts`) must follow GitHub's and git's own rules, so a signed but hostile payload
 * (`acme/..`, `a/.git`, `../../etc`, a number of 0 or 2^31) is refused here, before anything uses it.
 * Built once at import time; nothing is compiled per request.
 */
import { z } from 'zod';
import {
  COMMIT_SHA,
  isBranchName,
  isDecimalId,
  isHttpUrl,
  isPrNumber,
  isRepoFilePath,
} from '../git-names.js';
import { isGitHubFullName } from './names.js';

/** A GitHub id: a positive integer in JSON (int64 on GitHub; exact below 2^53), or its decimal text. */
export const GitHubId = z
  .union([z.int().positive(), z.string()])
  .transform(String)
  .refine(isDecimalId, 'not a positive decimal id');

/**
 * A login (`user`, `sender`): GitHub's account characters (letters, digits, `-`, and `_` of
 * managed users), at most 39, optionally with the `[bot]` suffix of an App account.
 */
export const Account = z.object({
  login: z.string().regex(/^[A-Za-z0-9_-]{1,39}(?:\[bot\])?$/, 'not a GitHub login'),
});

/** A pull request number: an integer in 1..2^31-1. */
const PrNumber = z.number().refine(isPrNumber, 'not a pull request number (1..2147483647)');
/** A commit SHA (40 or 64 lowercase hex digits). */
const Sha = z.string().regex(COMMIT_SHA, 'not a commit SHA');
/** A branch name by `git check-ref-format --branch`. */
const Branch = z.string().refine(isBranchName, 'not a valid branch name');
/** A clone URL: http(s) only, no credentials. */
const CloneUrl = z.string().refine(isHttpUrl, 'not an http(s) URL');

/** The repository a webhook is about (`repository`); `full_name` is `owner/repo` (see `names.ts`). */
export const Repository = z.object({
  full_name: z.string().refine(isGitHubFullName, 'not a GitHub owner/repo name'),
  clone_url: CloneUrl,
});

/** `pull_request.head`: `repo` is `null` when the head repository (a fork) was deleted. */
export const PullRequestHead = z.object({
  ref: Branch,
  sha: Sha,
  repo: z.object({ clone_url: CloneUrl }).nullish(),
});

/** `pull_request.base`. */
export const PullRequestBase = z.object({
  ref: Branch,
  sha: Sha,
  repo: z.object({ clone_url: CloneUrl }).nullish(),
});

/** The `pull_request` object of `pull_request*` events. */
export const PullRequest = z.object({
  number: PrNumber,
  title: z.string().nullish(),
  draft: z.boolean().nullish(),
  head: PullRequestHead,
  base: PullRequestBase,
});

/** `issue_comment` (any action): `issue.pull_request` is present only when the issue is a PR. */
export const IssueCommentEvent = z.object({
  issue: z.object({
    number: PrNumber,
    title: z.string().nullish(),
    pull_request: z.object({}).nullish(),
  }),
  comment: z.object({ id: GitHubId, body: z.string().nullish(), user: Account.nullish() }),
  repository: Repository,
  sender: Account.nullish(),
});

/** A line number in a file: a positive integer. */
const Line = z.int().positive();

/**
 * `pull_request_review_comment`: `line` is null on outdated comments (then `original_line`);
 * `side` is the side of the diff both are numbered on (`LEFT` = old file, a removed line);
 * `in_reply_to_id` names the thread's root comment of a reply.
 */
export const ReviewCommentEvent = z.object({
  comment: z.object({
    id: GitHubId,
    body: z.string().nullish(),
    path: z.string().refine(isRepoFilePath, 'not a relative file path'),
    line: Line.nullish(),
    original_line: Line.nullish(),
    side: z.string().nullish(),
    diff_hunk: z.string().nullish(),
    in_reply_to_id: GitHubId.nullish(),
    user: Account.nullish(),
  }),
  pull_request: PullRequest,
  repository: Repository,
  sender: Account.nullish(),
});

/** `pull_request_review`: `review.body` is null when the review was submitted without one. */
export const ReviewEvent = z.object({
  review: z.object({ id: GitHubId, body: z.string().nullish(), user: Account.nullish() }),
  pull_request: PullRequest,
  repository: Repository,
  sender: Account.nullish(),
});

/** `pull_request` (lifecycle actions). */
export const PullRequestEvent = z.object({
  pull_request: PullRequest,
  repository: Repository,
  sender: Account,
});

/** Types of the parsed payloads. */
export type IssueCommentEvent = z.infer<typeof IssueCommentEvent>;
/** Parsed `pull_request_review_comment` payload. */
export type ReviewCommentEvent = z.infer<typeof ReviewCommentEvent>;
/** Parsed `pull_request_review` payload. */
export type ReviewEvent = z.infer<typeof ReviewEvent>;
/** Parsed `pull_request` payload. */
export type PullRequestEvent = z.infer<typeof PullRequestEvent>;
/** Parsed `pull_request` object. */
export type PullRequest = z.infer<typeof PullRequest>;
