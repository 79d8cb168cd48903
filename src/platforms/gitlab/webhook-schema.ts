/**
 * Zod schemas of the GitLab webhook payloads reviewbot reads (GitLab docs, "Webhook events":
 * "Comment on a merge request" = `Note Hook`, "Merge request events" = `Merge Request Hook`). Only
 * the fields used are declared; everything else is ignored. Lenient where GitLab is: fields added in
 * later GitLab versions (`action` on notes, `discussion_id`, `position`) are optional. Strict where a
 * value goes on to an API URL, a workspace path or a git command: the project path follows GitLab's
 * path rules (`names.ts`), merge request iids are 1..2^31-1, note ids positive, SHAs, branch names,
 * file paths and clone URLs follow git's rules (`../git-names.ts`), discussion ids are hex.
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
import { isGitLabNamespace, isGitLabProjectPath } from './names.js';

/** A note id: a positive integer, or its decimal text. */
const Id = z
  .union([z.int().positive(), z.string()])
  .transform(String)
  .refine(isDecimalId, 'not a positive decimal id');

/** A username: GitLab's namespace rules (letters, digits, `_`, `-`, `.`; not ending in `.`). */
const User = z.object({ username: z.string().refine(isGitLabNamespace, 'not a GitLab username') });

/** A merge request iid: an integer in 1..2^31-1. */
const Iid = z.number().refine(isPrNumber, 'not a merge request iid (1..2147483647)');
/** A branch name by `git check-ref-format --branch`. */
const Branch = z.string().refine(isBranchName, 'not a valid branch name');
/** A clone URL: http(s) only, no credentials. */
const CloneUrl = z.string().refine(isHttpUrl, 'not an http(s) URL');
/** A repository file path. */
const FilePath = z.string().refine(isRepoFilePath, 'not a relative file path');
/** A line number: a positive integer. */
const Line = z.int().positive();

const Project = z.object({
  path_with_namespace: z.string().refine(isGitLabProjectPath, 'not a GitLab project path'),
  git_http_url: CloneUrl.nullish(),
});

const LastCommit = z.object({ id: z.string().regex(COMMIT_SHA, 'not a commit SHA') }).nullish();

/** A DiffNote's `position`: line numbers on the new (`new_line`) or old (`old_line`) side. */
const NotePosition = z.object({
  new_path: FilePath.nullish(),
  old_path: FilePath.nullish(),
  new_line: Line.nullish(),
  old_line: Line.nullish(),
});

/** `Note Hook`: a comment; `merge_request` is present when `noteable_type` is `MergeRequest`. */
export const NoteEvent = z.object({
  user: User,
  project: Project,
  object_attributes: z.object({
    id: Id,
    note: z.string().nullish(),
    noteable_type: z.string(),
    system: z.boolean().nullish(),
    /** `create` or `update` (GitLab 16.11+); absent on older instances, which only send creations. */
    action: z.string().nullish(),
    /** `null`, `DiscussionNote` or `DiffNote`. */
    type: z.string().nullish(),
    /** A SHA-1 hex digest on GitLab; it becomes part of an API path (`/discussions/:id`). */
    discussion_id: z
      .string()
      .regex(/^[0-9a-f]{1,64}$/i, 'not a discussion id')
      .nullish(),
    position: NotePosition.nullish(),
  }),
  merge_request: z
    .object({
      iid: Iid,
      title: z.string().nullish(),
      source_branch: Branch,
      target_branch: Branch,
      last_commit: LastCommit,
      source: Project.nullish(),
    })
    .nullish(),
});
export type NoteEvent = z.infer<typeof NoteEvent>;

/** `Merge Request Hook`. `oldrev` is present only when the update brought new code. */
export const MergeRequestEvent = z.object({
  user: User,
  project: Project,
  object_attributes: z.object({
    iid: Iid,
    title: z.string().nullish(),
    source_branch: Branch,
    target_branch: Branch,
    action: z.string().nullish(),
    oldrev: z.string().nullish(),
    last_commit: LastCommit,
    source: Project.nullish(),
  }),
  changes: z
    .object({
      draft: z.object({ previous: z.boolean().nullish(), current: z.boolean().nullish() }).nullish(),
    })
    .nullish(),
});
export type MergeRequestEvent = z.infer<typeof MergeRequestEvent>;
