/**
 * Zod schemas of the GitLab REST v4 answers the platform reads, checked once at the boundary.
 * Lenient where GitLab is: fields GitLab documents as nullable or version-dependent are optional,
 * unknown fields are dropped. Shapes from GitLab's API docs (`merge_requests.md`, `discussions.md`,
 * `notes.md`, `projects.md`, `users.md`).
 */
import { z } from 'zod';

/** A user as embedded in notes and merge requests, or `GET /user`. */
export const GitLabUser = z.object({ id: z.number(), username: z.string() });

/** `diff_refs` of a merge request: the SHAs a diff position must carry. */
export const DiffRefs = z.object({ base_sha: z.string(), head_sha: z.string(), start_sha: z.string() });
export type DiffRefs = z.infer<typeof DiffRefs>;

/** `GET /projects/:id/merge_requests/:iid` (state: opened, closed, merged or locked). */
export const MergeRequest = z.object({
  iid: z.number(),
  title: z.string(),
  description: z.string().nullish(),
  state: z.string(),
  author: GitLabUser.nullish(),
  source_branch: z.string(),
  target_branch: z.string(),
  sha: z.string().nullish(),
  /** Null while GitLab is still preparing the merge request's diff. */
  diff_refs: DiffRefs.nullish(),
  source_project_id: z.number(),
  target_project_id: z.number(),
  web_url: z.string(),
});
export type MergeRequest = z.infer<typeof MergeRequest>;

/** `GET /projects/:id`. */
export const Project = z.object({
  id: z.number(),
  path_with_namespace: z.string(),
  http_url_to_repo: z.string(),
  web_url: z.string(),
});

/** One entry of `GET /projects/:id/merge_requests/:iid/diffs` (GitLab 15.7+). */
export const MergeRequestDiff = z.object({
  old_path: z.string(),
  new_path: z.string(),
  new_file: z.boolean(),
  renamed_file: z.boolean(),
  deleted_file: z.boolean(),
  /** The file's hunks from the first `@@` line; `""` when withheld, `Binary files ... differ` for binary files. */
  diff: z.string().nullish(),
  too_large: z.boolean().nullish(),
  collapsed: z.boolean().nullish(),
});
export type MergeRequestDiff = z.infer<typeof MergeRequestDiff>;

/** A DiffNote's position (`position_type` `text`; `image`/`file` positions carry no lines). */
export const NotePosition = z.object({
  old_path: z.string().nullish(),
  new_path: z.string().nullish(),
  old_line: z.number().nullish(),
  new_line: z.number().nullish(),
});

/** A note as listed in a discussion. `type`: null (plain note), `DiscussionNote` or `DiffNote`. */
export const Note = z.object({
  id: z.number(),
  type: z.string().nullish(),
  body: z.string(),
  author: GitLabUser,
  created_at: z.string(),
  system: z.boolean(),
  resolvable: z.boolean().nullish(),
  resolved: z.boolean().nullish(),
  /** Who resolved the discussion (on its resolvable notes, once resolved). */
  resolved_by: GitLabUser.nullish(),
  position: NotePosition.nullish(),
});
export type Note = z.infer<typeof Note>;

/** `GET /projects/:id/merge_requests/:iid/discussions` entries, and `POST .../discussions` answers. */
export const Discussion = z.object({
  id: z.string(),
  individual_note: z.boolean(),
  notes: z.array(Note),
});
export type Discussion = z.infer<typeof Discussion>;

/** `GET /projects/:id/merge_requests/:iid/versions` entries (newest first). */
export const DiffVersion = z.object({
  id: z.number(),
  head_commit_sha: z.string(),
  base_commit_sha: z.string(),
  start_commit_sha: z.string(),
});

/** `GET /projects/:id/merge_requests/:iid/versions/:version_id`: the version with its diffs. */
export const DiffVersionDetail = DiffVersion.extend({ diffs: z.array(MergeRequestDiff) });
