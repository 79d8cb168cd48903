/**
 * The fake Bitbucket Data Center's operations (templates as in the OpenAPI description,
 * `/api/latest/…`). Data Center's rules on top of the description: comments as `comments.ts`
 * checks them; a build status needs `key`, `state` and `url` (the description's `required`).
 */
import { computeFullDiff } from '../fake-github/diff.js';
import { commentJson, createComment, find, flatten, shas, updateComment, user } from './comments.js';
import { changedFiles, commitsBetween, fileAt, restDiff, restPath, revParse } from './git.js';
import { listPullRequests } from './handlers-list.js';
import { error, type Answer, type World } from './world.js';

export { flatten } from './comments.js';
export { error, type Answer, type PullState, type World } from './world.js';

const R = '/api/latest/projects/{projectKey}/repos/{repositorySlug}';
const PR = `${R}/pull-requests/{pullRequestId}`;

const notFound = (what = 'resource'): Answer => error(404, `The ${what} does not exist.`);

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
    case `GET ${R}/pull-requests`:
      return listPullRequests(world, repo, url, paged);
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
        body: { fromHash: to, toHash: from, contextLines: 3, whitespace: 'SHOW', ...restDiff(files) },
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
          state: pull.state ?? 'OPEN',
          open: (pull.state ?? 'OPEN') === 'OPEN',
          closed: (pull.state ?? 'OPEN') !== 'OPEN',
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
      // Data Center's raw diff names the sides `src://` and `dst://`, not git's `a/` and `b/`.
      return { status: 200, text: await computeFullDiff(bare, base, head, { src: 'src://', dst: 'dst://' }) };
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
      return updateComment(world, c, body as Record<string, unknown>);
    }
  }
  violation(`the fake does not serve ${method} ${template}`);
  return notFound();
}
