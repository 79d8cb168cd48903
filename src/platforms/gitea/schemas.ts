/**
 * zod schemas of the Gitea API v1 responses the platform reads, named after the swagger
 * definitions (`templates/swagger/v1_json.tmpl`); only the fields used are declared, the rest pass.
 * Gitea serializes absent objects as `null` (e.g. `head.repo` of a deleted fork, `resolver`).
 */
import { z } from 'zod';

/** `User`. */
export const User = z.object({ id: z.number(), login: z.string() });
export type User = z.infer<typeof User>;

/** `Repository` (the parts of `PRBranchInfo.repo` used). */
export const Repository = z.object({ full_name: z.string(), clone_url: z.string() });

/** `PRBranchInfo`. */
export const BranchInfo = z.object({
  ref: z.string(),
  sha: z.string(),
  repo_id: z.number(),
  repo: Repository.nullish(),
});

/** `PullRequest`. */
export const PullRequest = z.object({
  number: z.number(),
  title: z.string(),
  body: z.string().nullish(),
  state: z.string(),
  merged: z.boolean().nullish(),
  html_url: z.string(),
  user: User.nullish(),
  head: BranchInfo,
  base: BranchInfo,
});
export type PullRequest = z.infer<typeof PullRequest>;

/** `ChangedFile` (`GET .../pulls/{index}/files`). */
export const ChangedFile = z.object({
  filename: z.string(),
  previous_filename: z.string().nullish(),
  status: z.string(),
  additions: z.number(),
  deletions: z.number(),
});
export type ChangedFile = z.infer<typeof ChangedFile>;

/** `Comment` (issue/pull request conversation comment). */
export const Comment = z.object({
  id: z.number(),
  body: z.string(),
  user: User.nullish(),
  html_url: z.string(),
  created_at: z.string(),
});
export type Comment = z.infer<typeof Comment>;

/** `PullReview`. */
export const PullReview = z.object({
  id: z.number(),
  body: z.string().nullish(),
  state: z.string(),
  user: User.nullish(),
  html_url: z.string(),
  submitted_at: z.string().nullish(),
  comments_count: z.number().nullish(),
});
export type PullReview = z.infer<typeof PullReview>;

/**
 * `PullReviewComment`: `position` is the new-file line of a comment on the new side,
 * `original_position` the old-file line of one on the old side (Gitea stores one signed line:
 * negative = old side; `services/convert/pull_review.go`).
 */
export const PullReviewComment = z.object({
  id: z.number(),
  body: z.string(),
  user: User.nullish(),
  resolver: User.nullish(),
  pull_request_review_id: z.number(),
  path: z.string(),
  position: z.number().nullish(),
  original_position: z.number().nullish(),
  diff_hunk: z.string().nullish(),
  html_url: z.string(),
  created_at: z.string(),
});
export type PullReviewComment = z.infer<typeof PullReviewComment>;

/** `Commit` as the compare API lists it (`GET .../compare/{base}...{head}`). */
export const Commit = z.object({
  sha: z.string(),
  parents: z.array(z.object({ sha: z.string() })).nullish(),
  files: z.array(z.object({ filename: z.string(), status: z.string().nullish() })).nullish(),
});

/** `Compare`. */
export const Compare = z.object({ total_commits: z.number().nullish(), commits: z.array(Commit).nullish() });

/** `Reaction` (`GET .../issues/comments/{id}/reactions`). */
export const Reaction = z.object({ content: z.string(), user: User.nullish() });
