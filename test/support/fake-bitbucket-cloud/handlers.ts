/** The fake Bitbucket Cloud's operations (paths relative to `/2.0`, as in the OpenAPI description). */
import { fileAt, lineInPatch, mergeBase, revParse, specDiff, specFiles, commitsBetween } from './git.js';
import { listPullRequests } from './handlers-list.js';
import type { AddPullRequest, StoredComment, StoredStatus } from './types.js';

/** What a handler answers. */
export interface Answer {
  status: number;
  body?: unknown;
  text?: string;
  headers?: Record<string, string>;
}

/** A pull request with its comments. */
export type PullState = AddPullRequest & {
  comments: StoredComment[];
  /** `OPEN` unless set with `setPullRequestState`. */
  state?: 'OPEN' | 'MERGED' | 'DECLINED' | 'SUPERSEDED';
  createdOn?: string;
  /** Time of the last state change. */
  updatedOn?: string;
};

/** Everything the fake holds. */
export interface World {
  url: string;
  pageSize: number;
  bot: { nickname: string; accountId: string };
  pulls: Map<string, PullState>;
  nextCommentId: number;
  statuses: StoredStatus[];
}

const R = '/repositories/{workspace}/{repo_slug}';
const PR = `${R}/pullrequests/{pull_request_id}`;
const error = (status: number, message: string): Answer => ({
  status,
  body: { type: 'error', error: { message } },
});
const notFound = (): Answer => error(404, 'Resource not found');

/** The account `login` (a nickname, not unique): its id is `accountId` when given. */
function account(world: World, login: string, accountId?: string) {
  const id = accountId ?? (login === world.bot.nickname ? world.bot.accountId : `557058:${login}`);
  const bot = id === world.bot.accountId;
  return {
    type: 'user',
    nickname: login,
    display_name: login,
    account_id: id,
    uuid: `{${bot ? '00000000-0000-0000-0000-00000000b07' : '00000000-0000-0000-0000-000000000001'}}`,
  };
}

/** One page of `all` (`page` 1-based, `pagelen`), with `next` while more remain. */
function paged(world: World, url: URL, all: unknown[]): Answer {
  const pagelen = Math.min(Number(url.searchParams.get('pagelen') ?? world.pageSize) || world.pageSize, 100);
  const page = Math.max(1, Number(url.searchParams.get('page') ?? '1') || 1);
  const values = all.slice((page - 1) * pagelen, page * pagelen);
  const body: Record<string, unknown> = { pagelen, page, size: all.length, values };
  if (page * pagelen < all.length) {
    const next = new URL(url);
    next.searchParams.set('page', String(page + 1));
    body.next = next.toString();
  }
  return { status: 200, body };
}

function commentJson(world: World, pull: PullState, c: StoredComment) {
  return {
    type: 'pullrequest_comment',
    id: c.id,
    created_on: c.createdOn,
    updated_on: c.createdOn,
    content: { raw: c.raw, markup: 'markdown', html: '' },
    user: account(world, c.author, c.authorAccountId),
    deleted: false,
    ...(c.inline ? { inline: c.inline } : {}),
    ...(c.parentId !== undefined ? { parent: { type: 'pullrequest_comment', id: c.parentId } } : {}),
    ...(c.resolved
      ? {
          resolution: {
            type: 'comment_resolution',
            user: account(world, c.resolvedBy ?? world.bot.nickname),
          },
        }
      : {}),
    links: { html: { href: `${world.url}/${pull.repo}/pull-requests/${pull.id}#comment-${c.id}` } },
  };
}

/** Head and base of a pull request now (full SHAs). */
async function shas(pull: PullState): Promise<{ head: string; base: string }> {
  const head = await revParse(pull.bareRepoPath, `refs/heads/${pull.headBranch}`);
  const base = await revParse(pull.bareRepoPath, `refs/heads/${pull.baseBranch}`);
  if (!head || !base) throw new Error(`fake Bitbucket: a branch of ${pull.repo}#${pull.id} is missing`);
  return { head, base };
}

function diffstat(files: Awaited<ReturnType<typeof specFiles>>) {
  return files.map((f) => ({
    type: 'diffstat',
    status: f.status === 'changed' || f.status === 'copied' ? 'modified' : f.status,
    lines_added: f.additions,
    lines_removed: f.deletions,
    // Bitbucket's description types `old`/`new` as objects: a side the file lacks is left out.
    ...(f.status === 'added' ? {} : { old: { type: 'commit_file', path: f.previousFilename ?? f.filename } }),
    ...(f.status === 'removed' ? {} : { new: { type: 'commit_file', path: f.filename } }),
  }));
}

/** A new comment: checks Bitbucket's anchoring rules, then stores it. */
async function createComment(
  world: World,
  pull: PullState,
  body: Record<string, unknown>,
  violation: (m: string) => void,
) {
  const content = body.content as { raw?: string } | undefined;
  if (!content?.raw) return error(400, 'content.raw: This field is required.');
  const inline = body.inline as StoredComment['inline'] | undefined;
  if (inline) {
    const { head, base } = await shas(pull);
    const file = (await specFiles(pull.bareRepoPath, head, base)).find((f) => f.filename === inline.path);
    const side = inline.to !== undefined ? 'to' : inline.from !== undefined ? 'from' : undefined;
    const line = inline.to ?? inline.from;
    if (!side || line === undefined || !lineInPatch(file, side, line)) {
      violation(
        `inline comment on ${inline.path} ${side ?? 'no line'} ${line ?? ''} is not on a line of the diff`,
      );
      return error(400, 'Invalid inline comment: line not in the diff');
    }
  }
  const parent = body.parent as { id?: number } | undefined;
  if (parent?.id !== undefined && !pull.comments.some((c) => c.id === parent.id))
    return error(400, 'Invalid parent');
  const stored: StoredComment = {
    id: world.nextCommentId++,
    raw: content.raw,
    author: world.bot.nickname,
    createdOn: new Date(Date.now() + world.nextCommentId).toISOString(),
    ...(inline ? { inline } : {}),
    ...(parent?.id !== undefined ? { parentId: parent.id } : {}),
    resolved: false,
  };
  pull.comments.push(stored);
  return { status: 201, body: commentJson(world, pull, stored) };
}

/** Answers one validated API request. */
export async function handle(
  world: World,
  template: string,
  method: string,
  params: Record<string, string>,
  url: URL,
  body: unknown,
  violation: (message: string) => void,
): Promise<Answer> {
  if (template === '/user') {
    // `GET /user` answers the token's account as `account`/`user` objects are, with its links.
    const me = account(world, world.bot.nickname);
    const html = `${world.url}/%7B${me.uuid.slice(1, -1)}%7D/`;
    return {
      status: 200,
      body: {
        ...me,
        created_on: '2024-01-01T00:00:00.000000+00:00',
        links: {
          self: { href: `${world.url}/2.0/users/%7B${me.uuid.slice(1, -1)}%7D` },
          html: { href: html },
          avatar: { href: `${world.url}/account/${world.bot.accountId}/avatar` },
        },
      },
    };
  }
  const repo = `${params.workspace}/${params.repo_slug}`;
  // A fork is served from the bare repository of the pull request it is the source of.
  const anyPull = [...world.pulls.values()].find((p) => p.repo === repo || p.sourceRepo === repo);
  if (!anyPull) return notFound();
  const bare = anyPull.bareRepoPath;
  const pull = world.pulls.get(`${repo}#${params.pull_request_id}`);
  switch (`${method} ${template}`) {
    case `GET ${R}/pullrequests`:
      return listPullRequests(world, repo, url);
    case `GET ${R}`:
      return {
        status: 200,
        body: {
          type: 'repository',
          full_name: repo,
          links: {
            clone: [{ name: 'https', href: `${world.url.replace('//', '//reviewbot@')}/${repo}.git` }],
          },
        },
      };
    case `GET ${R}/commit/{commit}`: {
      const hash = await revParse(bare, params.commit ?? '');
      return hash ? { status: 200, body: { type: 'commit', hash } } : notFound();
    }
    case `POST ${R}/commit/{commit}/statuses/build`: {
      const status = body as { key: string; state: string; url?: string; description?: string };
      if (!(await revParse(bare, params.commit ?? ''))) return notFound();
      if (!status.url) return error(400, 'url: This field is required.');
      world.statuses.push({
        commit: params.commit ?? '',
        key: status.key,
        state: status.state,
        url: status.url,
        ...(status.description !== undefined ? { description: status.description } : {}),
      });
      return { status: 201, body: { type: 'commitstatus', ...status } };
    }
    case `GET ${R}/merge-base/{revspec}`: {
      const [a = '', b = ''] = (params.revspec ?? '').split('..');
      const [ra, rb] = [await revParse(bare, a), await revParse(bare, b)];
      if (!ra || !rb) return notFound();
      return { status: 200, body: { type: 'commit', hash: await mergeBase(bare, ra, rb) } };
    }
    case `GET ${R}/diff/{spec}`:
    case `GET ${R}/diffstat/{spec}`: {
      const [a = '', b = ''] = (params.spec ?? '').split('..');
      const [ra, rb] = [await revParse(bare, a), await revParse(bare, b)];
      if (!ra || !rb) return notFound();
      if (template.endsWith('/diff/{spec}')) return { status: 200, text: await specDiff(bare, ra, rb) };
      return paged(world, url, diffstat(await specFiles(bare, ra, rb)));
    }
    case `GET ${R}/src/{commit}/{path}`: {
      const text = await fileAt(bare, params.commit ?? '', params.path ?? '');
      return text === undefined ? notFound() : { status: 200, text };
    }
  }
  if (!pull) return notFound();
  const { head, base } = await shas(pull);
  switch (`${method} ${template}`) {
    case `GET ${PR}`: {
      const end = (branch: string, hash: string, fullName = repo) => ({
        branch: { name: branch },
        commit: { hash: hash.slice(0, 12) },
        repository: { type: 'repository', full_name: fullName },
      });
      return {
        status: 200,
        body: {
          type: 'pullrequest',
          id: pull.id,
          title: pull.title ?? '',
          description: pull.description ?? '',
          state: pull.state ?? 'OPEN',
          author: account(world, pull.author ?? 'alice'),
          source: end(pull.headBranch, head, pull.sourceRepo),
          destination: end(pull.baseBranch, base),
          links: { html: { href: `${world.url}/${repo}/pull-requests/${pull.id}` } },
        },
      };
    }
    case `GET ${PR}/diff`:
      // Bitbucket redirects to the repository diff of the topic branch.
      return {
        status: 302,
        headers: { location: `${world.url}/2.0/repositories/${repo}/diff/${head}..${base}?topic=true` },
      };
    case `GET ${PR}/diffstat`:
      return paged(world, url, diffstat(await specFiles(bare, head, base)));
    case `GET ${PR}/commits`:
      return paged(
        world,
        url,
        (await commitsBetween(bare, base, head)).map((hash) => ({ type: 'commit', hash })),
      );
    case `GET ${PR}/comments`:
      return paged(
        world,
        url,
        pull.comments.map((c) => commentJson(world, pull, c)),
      );
    case `POST ${PR}/comments`:
      return createComment(world, pull, body as Record<string, unknown>, violation);
    case `POST ${PR}/comments/{comment_id}/resolve`: {
      const c = pull.comments.find((x) => String(x.id) === params.comment_id);
      if (!c) return notFound();
      if (!c.inline || c.parentId !== undefined)
        return error(400, 'Only top-level inline comments can be resolved');
      if (c.resolved) return error(409, 'Comment is already resolved');
      c.resolved = true;
      return { status: 200, body: { type: 'comment_resolution', created_on: new Date().toISOString() } };
    }
  }
  violation(`the fake does not serve ${method} ${template}`);
  return notFound();
}
