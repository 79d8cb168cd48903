/**
 * The parts of Bitbucket Data Center REST answers reviewbot reads (Atlassian REST API 1.0:
 * `RestPullRequest`, `RestComment`, `RestPullRequestActivity`, `RestChange`, `RestDiff`), validated
 * with zod. Only the fields read are declared; unknown keys are dropped.
 */
import { z } from 'zod';

/** `RestApplicationUser`: `name` is the username (mentions, `X-AUSERNAME`), `slug` its URL form. */
export const User = z
  .object({ name: z.string(), slug: z.string(), displayName: z.string(), type: z.string() })
  .partial();

const Link = z.object({ href: z.string() }).partial();

/** `RestRepository`, the fields read (clone links: `name` `http` or `ssh`). */
export const Repository = z.object({
  slug: z.string(),
  project: z.object({ key: z.string() }),
  links: z
    .object({ clone: z.array(z.object({ href: z.string(), name: z.string() }).partial()) })
    .partial()
    .optional(),
});

const Ref = z.object({
  id: z.string(),
  displayId: z.string(),
  latestCommit: z.string(),
  repository: Repository,
});

/** `RestPullRequest`. */
export const PullRequest = z.object({
  id: z.number().int(),
  version: z.number().int().optional(),
  title: z.string().default(''),
  description: z.string().nullish(),
  state: z.string(),
  author: z.object({ user: User }).partial().nullish(),
  fromRef: Ref,
  toRef: Ref,
  links: z
    .object({ self: z.array(Link) })
    .partial()
    .optional(),
});

/** `RestComment.anchor` as Data Center reports it (`path` is the file path text). */
export const Anchor = z
  .object({
    path: z.string(),
    srcPath: z.string(),
    line: z.number().int(),
    lineType: z.enum(['ADDED', 'REMOVED', 'CONTEXT']),
    fileType: z.enum(['FROM', 'TO']),
    diffType: z.string(),
    fromHash: z.string(),
    toHash: z.string(),
  })
  .partial();

/** `RestComment` with its replies (`comments`). */
export interface CommentShape {
  id: number;
  version: number;
  text: string;
  author?: z.infer<typeof User> | undefined;
  createdDate: number;
  anchor?: z.infer<typeof Anchor> | undefined;
  threadResolved?: boolean | undefined;
  /** Who resolved the thread (`RestComment.threadResolver`, Data Center 8.9+). */
  threadResolver?: z.infer<typeof User> | null | undefined;
  state?: string | undefined;
  comments: CommentShape[];
}

/** `RestComment`. */
export const Comment: z.ZodType<CommentShape, unknown> = z.lazy(() =>
  z.object({
    id: z.number().int(),
    version: z.number().int().default(0),
    text: z.string().default(''),
    author: User.optional(),
    createdDate: z.number().default(0),
    anchor: Anchor.optional(),
    threadResolved: z.boolean().optional(),
    threadResolver: User.nullish(),
    state: z.string().optional(),
    comments: z.array(Comment).default([]),
  }),
);

/** `RestPullRequestActivity` (a `COMMENTED` one carries `comment` and `commentAnchor`). */
export const Activity = z.object({
  action: z.string(),
  commentAction: z.string().optional(),
  comment: z.unknown().optional(),
  commentAnchor: Anchor.optional(),
});

/** `RestPath`: `components` joined by `/` is the path. */
const Path = z.object({ components: z.array(z.string()) }).partial();

/** `RestChange`. */
export const Change = z.object({
  type: z.string().optional(),
  path: Path.optional(),
  srcPath: Path.nullish(),
});

/** `RestCommit` (the id only). */
export const Commit = z.object({ id: z.string() });

const DiffLine = z.object({ line: z.string().default('') });
const Segment = z.object({ type: z.string(), lines: z.array(DiffLine).default([]) });
const Hunk = z.object({
  sourceLine: z.number().int().default(0),
  sourceSpan: z.number().int().default(0),
  destinationLine: z.number().int().default(0),
  destinationSpan: z.number().int().default(0),
  segments: z.array(Segment).default([]),
});

/** `RestDiff`: one entry per file. */
export const Diff = z.object({
  diffs: z
    .array(
      z.object({
        source: Path.nullish(),
        destination: Path.nullish(),
        hunks: z.array(Hunk).default([]),
        truncated: z.boolean().optional(),
      }),
    )
    .default([]),
  truncated: z.boolean().optional(),
});

/** The path text of a `RestPath`, or undefined. */
export function pathText(path: { components?: string[] | undefined } | null | undefined): string | undefined {
  const parts = path?.components;
  return parts && parts.length > 0 ? parts.join('/') : undefined;
}
