/**
 * The parts of Bitbucket Cloud API 2.0 answers reviewbot reads, validated with zod (the generated
 * OpenAPI types of `@coderabbitai/bitbucket` type most objects through `allOf` as `{}`, so answers
 * are checked here). Unknown fields are kept out; absent optional fields stay undefined.
 */
import { z } from 'zod';

const Link = z.object({ href: z.string() }).partial();
const Links = z.object({ html: Link }).partial();

/** `account` (a user, team or app user). */
export const Account = z
  .object({ nickname: z.string(), display_name: z.string(), account_id: z.string(), uuid: z.string() })
  .partial();

/** `commit` (the hash only). */
export const Commit = z.object({ hash: z.string() });

const Endpoint = z
  .object({
    branch: z.object({ name: z.string() }).partial(),
    commit: z.object({ hash: z.string() }).partial(),
    repository: z.object({ full_name: z.string() }).partial().nullish(),
  })
  .partial();

/** `pullrequest`. */
export const PullRequest = z.object({
  id: z.number().int(),
  title: z.string().default(''),
  description: z.string().nullish(),
  state: z.string(),
  author: Account.nullish(),
  source: Endpoint,
  destination: Endpoint,
  links: Links.optional(),
});

/** `pullrequest_comment`. */
export const Comment = z.object({
  id: z.number().int(),
  created_on: z.string().default(''),
  content: z.object({ raw: z.string().nullish() }).partial().optional(),
  user: Account.nullish(),
  deleted: z.boolean().optional(),
  parent: z.object({ id: z.number().int() }).nullish(),
  inline: z
    .object({ path: z.string(), from: z.number().int().nullish(), to: z.number().int().nullish() })
    .nullish(),
  /** `comment_resolution` (`user`: who resolved the thread), or null/absent when unresolved. */
  resolution: z.object({ user: Account.nullish() }).passthrough().nullish(),
  links: Links.optional(),
});

/** `repository` (its clone links). */
export const Repository = z.object({
  links: z
    .object({ clone: z.array(z.object({ name: z.string(), href: z.string() }).partial()) })
    .partial()
    .optional(),
});

/** One page of a paginated answer (Bitbucket "Pagination"). */
export function pageOf<T extends z.ZodType>(item: T) {
  return z.object({ values: z.array(item).default([]), next: z.string().optional() });
}

/** `diffstat`. */
export const DiffStat = z
  .object({
    status: z.string(),
    lines_added: z.number(),
    lines_removed: z.number(),
    old: z.object({ path: z.string() }).partial().nullish(),
    new: z.object({ path: z.string() }).partial().nullish(),
  })
  .partial();
