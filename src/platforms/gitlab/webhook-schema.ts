/**
 * Zod schemas of the GitLab webhook payloads reviewbot reads (GitLab docs, "Webhook events":
 * "Comment on a merge request" = `Note Hook`, "Merge request events" = `Merge Request Hook`). Only
 * the fields used are declared; everything else is ignored. Lenient where GitLab is: fields added in
 * later GitLab versions (`action` on notes, `discussion_id`, `position`) are optional.
 */
import { z } from 'zod';

const Id = z.union([z.number(), z.string()]).transform(String);

const User = z.object({ username: z.string() });

const Project = z.object({
  path_with_namespace: z.string(),
  git_http_url: z.string().nullish(),
});

const LastCommit = z.object({ id: z.string() }).nullish();

/** A DiffNote's `position`: line numbers on the new (`new_line`) or old (`old_line`) side. */
const NotePosition = z.object({
  new_path: z.string().nullish(),
  old_path: z.string().nullish(),
  new_line: z.number().nullish(),
  old_line: z.number().nullish(),
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
    discussion_id: z.string().nullish(),
    position: NotePosition.nullish(),
  }),
  merge_request: z
    .object({
      iid: z.number(),
      title: z.string().nullish(),
      source_branch: z.string(),
      target_branch: z.string(),
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
    iid: z.number(),
    title: z.string().nullish(),
    source_branch: z.string(),
    target_branch: z.string(),
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
