/**
 * The fake Bitbucket Data Center's operations (templates as in the OpenAPI description,
 * `/api/latest/…`). Data Center's rules on top of the description: an inline comment's anchor must
 * name a line of the pull request's effective diff with its type (`ADDED`/`CONTEXT` on the `TO`
 * file, `REMOVED`/`CONTEXT` on the `FROM` file), else 400 ("not created due to a validation
 * error"); a reply's parent must exist (404); an update must carry the comment's current `version`
 * (409) and only the author may change its text; a build status needs `key`, `state` and `url`.
 */
import { computeFullDiff } from '../fake-github/diff.js';
import { changedFiles, commitsBetween, fileAt, hunksOf, restDiff, restPath, revParse } from './git.js';
import type { AddPullRequest, StoredComment, StoredStatus } from './types.js';

/** What a handler answers. */
export interface Answer {
  status: number;
  body?: unknown;
  text?: string;
}

/** A pull request with its root comments. */
export type PullState = AddPullRequest & { comments: StoredComment[] };

/** Everything the fake holds. */
export interface World {
  url: string;
  pageSize: number;
  username: string;
  pulls: Map<string, PullState>;
  nextCommentId: number;
  statuses: StoredStatus[];
}

const R = '/api/latest/projects/{projectKey}/repos/{repositorySlug}';
const PR = `${R}/pull-requests/{pullRequestId}`;

/** Data Center's error body. */
export const error = (status: number, message: string): Answer => ({
  status,
  body: { errors: [{ message }] },
});
const notFound = (what = 'resource'): Answer => error(404, `The ${what} does not exist.`);

function user(login: string) {
  return {
    name: login,
    emailAddress: `${login}@example.com`,
    id: login.length,
    displayName: login,
    active: true,
    slug: login.toLowerCase(),
    type: 'NORMAL',
  };
}

/** One page of `all` from `start` (Atlassian REST "Paged APIs"). */
function paged(world: World, url: URL, all: unknown[]): Answer {
  const limit = Math.min(
    Number(url.searchParams.get('limit') ?? world.pageSize) || world.pageSize,
    world.pageSize,
  );
  const start = Math.max(0, Number(url.searchParams.get('start') ?? '0') || 0);
  const values = all.slice(start, start + limit);
  const isLastPage = start + limit >= all.length;
  return {
    status: 200,
    body: {
      size: values.length,
      limit,
      isLastPage,
      start,
      values,
      ...(isLastPage ? {} : { nextPageStart: start + limit }),
    },
  };
}

function commentJson(c: StoredComment): Record<string, unknown> {
  return {
    id: c.id,
    version: c.version,
    text: c.text,
    author: user(c.author),
    createdDate: c.createdDate,
    updatedDate: c.createdDate,
    comments: c.replies.map(commentJson),
    severity: 'NORMAL',
    state: 'OPEN',
    threadResolved: c.threadResolved,
    ...(c.anchor ? { anchor: { ...c.anchor, diffType: c.anchor.diffType ?? 'EFFECTIVE' } } : {}),
  };
}

function find(comments: StoredComment[], id: number): StoredComment | undefined {
  for (const c of comments) {
    if (c.id === id) return c;
    const inner = find(c.replies, id);
    if (inner) return inner;
  }
  return undefined;
}

/** Every comment of a pull request, replies included. */
export function flatten(comments: StoredComment[]): StoredComment[] {
  return comments.flatMap((c) => [c, ...flatten(c.replies)]);
}

function repoJson(world: World, repo: string) {
  const [key = '', slug = ''] = repo.split('/');
  return {
    slug,
    id: 1,
    name: slug,
    scmId: 'git',
    state: 'AVAILABLE',
    forkable: true,
    project: { key, id: 1, name: key, type: 'NORMAL' },
    public: false,
    links: {
      clone: [
        {
          href: `${world.url.replace('//', '//reviewbot@')}/scm/${key.toLowerCase()}/${slug}.git`,
          name: 'http',
        },
        { href: `ssh://git@127.0.0.1:7999/${key.toLowerCase()}/${slug}.git`, name: 'ssh' },
      ],
      self: [{ href: `${world.url}/projects/${key}/repos/${slug}/browse` }],
    },
  };
}

async function shas(pull: PullState): Promise<{ head: string; base: string }> {
  const head = await revParse(pull.bareRepoPath, `refs/heads/${pull.headBranch}`);
  const base = await revParse(pull.bareRepoPath, `refs/heads/${pull.baseBranch}`);
  if (!head || !base)
    throw new Error(`fake Bitbucket Data Center: a branch of ${pull.repo}#${pull.id} is missing`);
  return { head, base };
}

function changes(files: Awaited<ReturnType<typeof changedFiles>>) {
  const type = { added: 'ADD', removed: 'DELETE', renamed: 'MOVE', copied: 'COPY' } as Record<string, string>;
  return files.map((f) => ({
    contentId: f.sha,
    path: restPath(f.filename),
    ...(f.previousFilename ? { srcPath: restPath(f.previousFilename) } : {}),
    executable: false,
    percentUnchanged: -1,
    type: type[f.status] ?? 'MODIFY',
    nodeType: 'FILE',
    srcExecutable: false,
  }));
}

/** True when `anchor` names a line of the pull request's effective diff with its type. */
async function anchorInDiff(pull: PullState, anchor: NonNullable<StoredComment['anchor']>): Promise<boolean> {
  if (anchor.line === undefined) return true; // a file comment
  const { head, base } = await shas(pull);
  const file = (await changedFiles(pull.bareRepoPath, base, head)).find((f) => f.filename === anchor.path);
  const lines = hunksOf(file?.patch).flatMap((h) => h.lines);
  const onTo = anchor.fileType !== 'FROM';
  return lines.some(
    (l) =>
      l.type === anchor.lineType &&
      (onTo
        ? l.type !== 'REMOVED' && l.destination === anchor.line
        : l.type !== 'ADDED' && l.source === anchor.line),
  );
}

async function createComment(
  world: World,
  pull: PullState,
  body: Record<string, unknown>,
  violation: (m: string) => void,
) {
  const text = typeof body.text === 'string' ? body.text : '';
  if (text.trim() === '') return error(400, 'Comment text must be provided.');
  const parentId = (body.parent as { id?: number } | undefined)?.id;
  const anchor = body.anchor as StoredComment['anchor'] | undefined;
  const parent = parentId !== undefined ? find(pull.comments, parentId) : undefined;
  if (parentId !== undefined && !parent) return notFound('parent comment');
  if (anchor) {
    if (anchor.diffType !== undefined && anchor.diffType !== 'EFFECTIVE')
      violation(`anchor diffType ${anchor.diffType} without fromHash/toHash`);
    if (!(await anchorInDiff(pull, anchor))) {
      violation(
        `anchor ${anchor.path} ${anchor.fileType ?? ''} ${anchor.lineType ?? ''} ${anchor.line ?? ''} is not a line of the diff`,
      );
      return error(400, 'The comment anchor is not part of the pull request diff.');
    }
  }
  const stored: StoredComment = {
    id: world.nextCommentId++,
    version: 0,
    text,
    author: world.username,
    createdDate: Date.now(),
    ...(anchor && !parent ? { anchor } : {}),
    ...(parent ? { parentId: parent.id } : {}),
    threadResolved: false,
    replies: [],
  };
  (parent ? parent.replies : pull.comments).push(stored);
  return { status: 201, body: commentJson(stored) };
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
  if (template === '/api/latest/application-properties')
    return {
      status: 200,
      body: {
        version: '8.19.0',
        buildNumber: '8019000',
        buildDate: '1700000000000',
        displayName: 'Bitbucket',
      },
    };
  const repo = `${params.projectKey}/${params.repositorySlug}`;
  const anyPull = [...world.pulls.values()].find((p) => p.repo === repo);
  if (!anyPull) return notFound('repository');
  const bare = anyPull.bareRepoPath;
  const q = (name: string) => url.searchParams.get(name) ?? '';
  switch (`${method} ${template}`) {
    case `POST ${R}/commits/{commitId}/builds`: {
      const status = body as { key: string; state: string; url: string; description?: string };
      if (!(await revParse(bare, params.commitId ?? ''))) return notFound('commit');
      world.statuses.push({
        commit: params.commitId ?? '',
        key: status.key,
        state: status.state,
        url: status.url,
        ...(status.description !== undefined ? { description: status.description } : {}),
      });
      return { status: 204 };
    }
    case `GET ${R}/compare/commits`:
    case `GET ${R}/compare/changes`:
    case `GET ${R}/compare/diff{path}`: {
      const [from, to] = [await revParse(bare, q('from')), await revParse(bare, q('to'))];
      if (!from || !to) return notFound('commit');
      if (template.endsWith('/commits'))
        return paged(
          world,
          url,
          (await commitsBetween(bare, to, from)).map((id) => ({ id, displayId: id.slice(0, 11) })),
        );
      const files = await changedFiles(bare, to, from);
      if (template.endsWith('/changes')) return paged(world, url, changes(files));
      return {
        status: 200,
        body: { fromHash: to, toHash: from, contextLines: 10, whitespace: 'SHOW', ...restDiff(files) },
      };
    }
    case `GET ${R}/raw/{path}`: {
      const at = q('at') || 'HEAD';
      const text = await fileAt(bare, at, params.path ?? '');
      return text === undefined ? notFound('path') : { status: 200, text };
    }
  }
  const pull = world.pulls.get(`${repo}#${params.pullRequestId}`);
  if (!pull) return notFound('pull request');
  const { head, base } = await shas(pull);
  const ref = (branch: string, sha: string) => ({
    id: `refs/heads/${branch}`,
    displayId: branch,
    latestCommit: sha,
    type: 'BRANCH',
    repository: repoJson(world, repo),
  });
  switch (`${method} ${template}`) {
    case `GET ${PR}`:
      return {
        status: 200,
        body: {
          id: pull.id,
          version: 0,
          title: pull.title ?? '',
          description: pull.description ?? '',
          state: 'OPEN',
          open: true,
          closed: false,
          locked: false,
          author: {
            user: user(pull.author ?? 'alice'),
            role: 'AUTHOR',
            approved: false,
            status: 'UNAPPROVED',
          },
          fromRef: ref(pull.headBranch, head),
          toRef: ref(pull.baseBranch, base),
          links: {
            self: [
              {
                href: `${world.url}/projects/${repo.split('/')[0]}/repos/${repo.split('/')[1]}/pull-requests/${pull.id}`,
              },
            ],
          },
        },
      };
    case `GET ${PR}.diff`:
      return { status: 200, text: await computeFullDiff(bare, base, head) };
    case `GET ${PR}/changes`:
      return paged(world, url, changes(await changedFiles(bare, base, head)));
    case `GET ${PR}/commits`:
      return paged(
        world,
        url,
        (await commitsBetween(bare, base, head)).map((id) => ({ id, displayId: id.slice(0, 11) })),
      );
    case `GET ${PR}/activities`: {
      // Newest first, one COMMENTED activity per comment (a reply's activity names the reply).
      const all = flatten(pull.comments)
        .sort((a, b) => b.id - a.id)
        .map((c) => ({
          id: c.id,
          createdDate: c.createdDate,
          user: user(c.author),
          action: 'COMMENTED',
          commentAction: 'ADDED',
          comment: commentJson(c),
          ...(c.anchor ? { commentAnchor: { ...c.anchor, diffType: c.anchor.diffType ?? 'EFFECTIVE' } } : {}),
        }));
      all.push({ id: 1, createdDate: 0, user: user(pull.author ?? 'alice'), action: 'OPENED' } as never);
      return paged(world, url, all);
    }
    case `POST ${PR}/comments`:
      return createComment(world, pull, body as Record<string, unknown>, violation);
    case `GET ${PR}/comments/{commentId}`:
    case `PUT ${PR}/comments/{commentId}`: {
      const c = find(pull.comments, Number(params.commentId));
      if (!c) return notFound('comment');
      if (method === 'GET') return { status: 200, body: commentJson(c) };
      const update = body as { version?: number; text?: string; threadResolved?: boolean };
      if (update.version !== c.version)
        return error(
          409,
          `You are attempting to modify a comment based on out-of-date information (version ${c.version}).`,
        );
      if (update.text !== undefined && update.text !== c.text && c.author !== world.username)
        return error(400, 'Only the author of a comment may update its text.');
      if (update.threadResolved !== undefined && c.parentId !== undefined)
        return error(400, 'Only the root comment of a thread can resolve it.');
      if (update.text !== undefined) c.text = update.text;
      if (update.threadResolved !== undefined) c.threadResolved = update.threadResolved;
      c.version++;
      return { status: 200, body: commentJson(c) };
    }
  }
  violation(`the fake does not serve ${method} ${template}`);
  return notFound();
}
