/**
 * Zod schemas of the GitHub webhook payload fields reviewbot reads (source: GitHub's "Webhook events
 * and payloads" reference; shapes as in `@octokit/webhooks-examples`). Lenient like the API: only
 * the fields we use are declared, unknown keys are dropped, nullable fields accept `null`. Built
 * once at import time; nothing is compiled per request.
 */
import { z } from 'zod';

/** A GitHub id: an integer in JSON (int64 on GitHub; exact below 2^53), tolerated as a string. */
export const GitHubId = z.union([z.int(), z.string().regex(/^[0-9]+$/)]).transform(String);

/** An account reference (`user`, `sender`); only the login is read. */
export const Account = z.object({ login: z.string().min(1) });

/** The repository a webhook is about (`repository`); `full_name` is `owner/repo`. */
export const Repository = z.object({
  full_name: z.string().regex(/^[^/\s]+\/[^/\s]+$/),
  clone_url: z.string(),
});

/** `pull_request.head`: `repo` is `null` when the head repository (a fork) was deleted. */
export const PullRequestHead = z.object({
  ref: z.string(),
  sha: z.string(),
  repo: z.object({ clone_url: z.string() }).nullish(),
});

/** `pull_request.base`. */
export const PullRequestBase = z.object({
  ref: z.string(),
  sha: z.string(),
  repo: z.object({ clone_url: z.string() }).nullish(),
});

/** The `pull_request` object of `pull_request*` events. */
export const PullRequest = z.object({
  number: z.int().positive(),
  title: z.string().nullish(),
  draft: z.boolean().nullish(),
  head: PullRequestHead,
  base: PullRequestBase,
});

/** `issue_comment` (any action): `issue.pull_request` is present only when the issue is a PR. */
export const IssueCommentEvent = z.object({
  issue: z.object({
    number: z.int().positive(),
    title: z.string().nullish(),
    pull_request: z.object({}).nullish(),
  }),
  comment: z.object({ id: GitHubId, body: z.string().nullish(), user: Account.nullish() }),
  repository: Repository,
  sender: Account.nullish(),
});

/**
 * `pull_request_review_comment`: `line` is null on outdated comments (then `original_line`);
 * `in_reply_to_id` names the thread's root comment of a reply.
 */
export const ReviewCommentEvent = z.object({
  comment: z.object({
    id: GitHubId,
    body: z.string().nullish(),
    path: z.string(),
    line: z.int().nullish(),
    original_line: z.int().nullish(),
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
