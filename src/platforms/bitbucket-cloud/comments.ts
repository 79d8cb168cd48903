/**
 * Pull request comments on Bitbucket Cloud: `GET …/pullrequests/{id}/comments` (paginated) mapped
 * to `ExistingComment`s and review threads. Bitbucket has no review object: a comment with
 * `inline` is an inline comment (`inline.to` = new-file line, `inline.from` = old-file line), one
 * without is a conversation comment; replies carry `parent`. Bodies are `content.raw` with the
 * memory marker read back into the project's form (`fromWire`). Deleted comments are skipped.
 */
import type { ExistingComment, LocatedComment, ReviewThread } from '../types.js';
import { repoParams, type BitbucketClient } from './client.js';
import type { PlatformCall as BitbucketCall } from '../http/index.js';
import { fromWire } from '../wire-markers.js';
import { Comment } from './schemas.js';

/** The fields of a Bitbucket account read here. */
export interface Account {
  readonly nickname?: string | undefined;
  readonly display_name?: string | undefined;
  readonly account_id?: string | undefined;
  readonly uuid?: string | undefined;
}

/**
 * Who `user` is, as reviewbot compares authors (the bot itself, `allowed_users`): `{<account id>}`,
 * the form Bitbucket's editor stores for a mention, else the account's `uuid` (already in braces),
 * else `''` (nobody). Never the nickname or display name: Atlassian's GDPR API changes
 * ("Bitbucket Cloud REST APIs are changing to improve user privacy") made the account id the
 * unique, stable identifier and the nickname a non-unique, changeable name anyone can copy.
 */
export function identityOf(user: Account | null | undefined): string {
  if (user?.account_id) return `{${user.account_id}}`;
  return user?.uuid && /^\{[^{}]+\}$/.test(user.uuid) ? user.uuid : '';
}

/** A human-readable name of `user` for text (never compared): the nickname, else the display name. */
export function displayNameOf(user: Account | null | undefined): string {
  return user?.nickname ?? user?.display_name ?? '';
}

/** One comment as read here. */
export interface BitbucketComment {
  id: number;
  body: string;
  /** The author's identity (`identityOf`): `{<account id>}`. */
  author: string;
  createdAt: string;
  inline?: { path: string; line?: number; side?: 'RIGHT' | 'LEFT' };
  parentId?: number;
  resolved: boolean;
  /** Who resolved the thread (`identityOf` of `resolution.user`), when resolved and reported. */
  resolvedBy?: string;
}

/** Every live comment of pull request `id`, oldest first. */
export async function listBitbucketComments(
  client: BitbucketClient,
  call: BitbucketCall,
  repo: string,
  id: number,
): Promise<BitbucketComment[]> {
  const values = await call(`list the comments of ${repo}#${id}`, async () =>
    client.all(
      Comment,
      client.ok(
        await client.api.GET(
          '/repositories/{workspace}/{repo_slug}/pullrequests/{pull_request_id}/comments',
          {
            params: { path: { ...repoParams(repo), pull_request_id: id }, query: { pagelen: 100 } as never },
          },
        ),
      ),
    ),
  );
  const out: BitbucketComment[] = [];
  for (const c of values) {
    if (c.deleted) continue;
    const inline = c.inline;
    const line = inline?.to ?? inline?.from ?? undefined;
    out.push({
      id: c.id,
      body: fromWire(c.content?.raw ?? ''),
      author: identityOf(c.user),
      createdAt: c.created_on ?? '',
      ...(inline?.path
        ? {
            inline: {
              path: inline.path,
              ...(line ? { line, side: inline.to ? ('RIGHT' as const) : ('LEFT' as const) } : {}),
            },
          }
        : {}),
      ...(c.parent ? { parentId: c.parent.id } : {}),
      resolved: c.resolution != null,
      ...(identityOf(c.resolution?.user) ? { resolvedBy: identityOf(c.resolution?.user) } : {}),
    });
  }
  return out.sort((a, b) => a.createdAt.localeCompare(b.createdAt));
}

/** `comments` as `ExistingComment`s. */
export function toExistingComments(comments: BitbucketComment[]): ExistingComment[] {
  return comments.map((c) => ({
    id: String(c.id),
    kind: c.inline ? 'review_comment' : 'issue_comment',
    authorUsername: c.author,
    body: c.body,
    ...(c.inline ? { path: c.inline.path } : {}),
    ...(c.inline?.line ? { line: c.inline.line, side: c.inline.side ?? 'RIGHT' } : {}),
    createdAt: c.createdAt,
    ...(c.inline ? { resolved: c.resolved } : {}),
  }));
}

/**
 * The inline threads: each top-level inline comment with its resolution and who resolved it
 * (`resolution.user`, in the `{<account id>}` form authors are compared in; Bitbucket reports no
 * "outdated" flag in the API; a thread on a line the diff no longer has reads as not outdated).
 */
export function toReviewThreads(comments: BitbucketComment[]): ReviewThread[] {
  return comments
    .filter((c) => c.inline && c.parentId === undefined)
    .map((c) => ({
      id: String(c.id),
      path: c.inline?.path ?? '',
      ...(c.inline?.line ? { line: c.inline.line, side: c.inline.side ?? 'RIGHT' } : {}),
      resolved: c.resolved,
      outdated: false,
      authorUsername: c.author,
      body: c.body,
      ...(c.resolved && c.resolvedBy ? { resolvedBy: c.resolvedBy } : {}),
    }));
}

/**
 * The inline thread of comment `id` among `comments`: the top comment reached through the `parent`
 * chain (a reply may answer a reply), its id, path, line and side; undefined when `id` is unknown, the chain
 * breaks (a deleted comment) or the top comment is not inline.
 */
export function threadOf(comments: BitbucketComment[], id: number): LocatedComment | undefined {
  const byId = new Map(comments.map((c) => [c.id, c]));
  let current = byId.get(id);
  for (let hops = 0; current?.parentId !== undefined && hops < comments.length; hops++) {
    current = byId.get(current.parentId);
  }
  if (!current?.inline || current.parentId !== undefined) return undefined;
  const { path, line, side } = current.inline;
  return { discussionId: String(current.id), path, ...(line ? { line, side: side ?? 'RIGHT' } : {}) };
}
