/**
 * Routes the bot's review memory uses (CONTRACT §13, §14), answered from git like GitLab:
 * `GET /projects/:id/repository/files/:file_path/raw?ref=` (404 `File Not Found`),
 * `GET /projects/:id/repository/merge_base?refs[]=&refs[]=`, `GET /projects/:id/repository/compare`
 * (`from`, `to`, `straight`: diffs in the merge request `diffs` shape),
 * `GET /projects/:id/merge_requests/:iid/commits` (the current version's commits, newest first) and
 * `PUT /projects/:id/merge_requests/:iid/discussions/:discussion_id` with `resolved` (400 for a
 * discussion that is not resolvable, as GitLab; 403 below the Developer role unless the token user
 * wrote the merge request: GitLab grants `resolve_note` to Developer and above and to the author of
 * the noteable, "Roles and permissions" → "Resolve threads").
 */
import { gitOutput } from '../fake-github/diff.js';
import { currentVersion, diffFiles } from './diff.js';
import { paginate } from './http-util.js';
import { forbiddenBelow, mergeRequestOf, projectOf, type Route, type RouteContext } from './routes.js';
import { diffJson, discussionJson } from './shapes.js';
import type { ProjectRecord } from './state.js';

async function resolveCommit(project: ProjectRecord, rev: string): Promise<string | undefined> {
  try {
    const sha = (
      await gitOutput(project.bareRepoPath, ['rev-parse', '--verify', '--quiet', `${rev}^{commit}`])
    ).trim();
    return sha || undefined;
  } catch {
    return undefined;
  }
}

async function commitJson(
  ctx: RouteContext,
  project: ProjectRecord,
  sha: string,
): Promise<Record<string, unknown>> {
  const raw = await gitOutput(project.bareRepoPath, ['show', '-s', '--format=%P%n%an%n%ae%n%aI%n%s', sha]);
  const [parents = '', name = '', email = '', date = '', title = ''] = raw.split('\n');
  return {
    id: sha,
    short_id: sha.slice(0, 8),
    title,
    message: title,
    author_name: name,
    author_email: email,
    authored_date: date,
    committer_name: name,
    committer_email: email,
    committed_date: date,
    created_at: date,
    parent_ids: parents.split(' ').filter(Boolean),
    web_url: `${ctx.shape.baseUrl}/${project.path}/-/commit/${sha}`,
  };
}

function truthy(value: unknown): boolean | undefined {
  if (value === true || value === 'true') return true;
  if (value === false || value === 'false') return false;
  return undefined;
}

/** Routes of this module. */
export const memoryRoutes: Route[] = [
  {
    method: 'GET',
    path: ['projects', ':id', 'merge_requests', ':iid', 'commits'],
    async handle(ctx) {
      const mr = mergeRequestOf(ctx);
      if ('status' in mr) return mr;
      const project = projectOf(ctx);
      if ('status' in project) return project;
      const version = await currentVersion(ctx.state, mr);
      const shas = (
        await gitOutput(project.bareRepoPath, ['rev-list', `${version.baseSha}..${version.headSha}`])
      )
        .split('\n')
        .filter(Boolean);
      const page = paginate(shas, ctx.url);
      const body = await Promise.all(page.items.map((sha) => commitJson(ctx, project, sha)));
      return { status: 200, body, headers: page.headers };
    },
  },
  {
    method: 'GET',
    path: ['projects', ':id', 'repository', 'files', ':file_path', 'raw'],
    async handle(ctx) {
      const project = projectOf(ctx);
      if ('status' in project) return project;
      const ref = ctx.url.searchParams.get('ref') ?? project.defaultBranch;
      const sha = await resolveCommit(project, ref);
      if (!sha) return { status: 404, body: { message: '404 Commit Not Found' } };
      try {
        const text = await gitOutput(project.bareRepoPath, [
          'cat-file',
          'blob',
          `${sha}:${ctx.params.file_path ?? ''}`,
        ]);
        return { status: 200, text };
      } catch {
        return { status: 404, body: { message: '404 File Not Found' } };
      }
    },
  },
  {
    method: 'GET',
    path: ['projects', ':id', 'repository', 'merge_base'],
    async handle(ctx) {
      const project = projectOf(ctx);
      if ('status' in project) return project;
      const refs = ctx.url.searchParams.getAll('refs[]');
      if (refs.length < 2) return { status: 400, body: { message: 'Provide at least 2 refs' } };
      const shas = await Promise.all(refs.map((r) => resolveCommit(project, r)));
      const unknown = refs.find((_, i) => !shas[i]);
      if (unknown !== undefined) return { status: 404, body: { message: `Commit ${unknown} not found` } };
      try {
        const base = (await gitOutput(project.bareRepoPath, ['merge-base', ...(shas as string[])])).trim();
        return { status: 200, body: await commitJson(ctx, project, base) };
      } catch {
        return { status: 404, body: { message: '404 Not Found' } };
      }
    },
  },
  {
    method: 'GET',
    path: ['projects', ':id', 'repository', 'compare'],
    async handle(ctx) {
      const project = projectOf(ctx);
      if ('status' in project) return project;
      const from = await resolveCommit(project, ctx.url.searchParams.get('from') ?? '');
      const to = await resolveCommit(project, ctx.url.searchParams.get('to') ?? '');
      if (!from || !to) return { status: 404, body: { message: '404 Ref Not Found' } };
      const straight = ctx.url.searchParams.get('straight') === 'true';
      const start = straight
        ? from
        : (await gitOutput(project.bareRepoPath, ['merge-base', from, to])).trim();
      const files = await diffFiles({ project, tooLarge: new Set() }, start, to);
      const shas = (await gitOutput(project.bareRepoPath, ['rev-list', '--reverse', `${start}..${to}`]))
        .split('\n')
        .filter(Boolean);
      const commits = await Promise.all(shas.map((sha) => commitJson(ctx, project, sha)));
      return {
        status: 200,
        body: {
          commit: commits.at(-1) ?? null,
          commits,
          diffs: files.map(diffJson),
          compare_timeout: false,
          compare_same_ref: from === to,
          web_url: `${ctx.shape.baseUrl}/${project.path}/-/compare/${from}...${to}`,
        },
      };
    },
  },
  {
    method: 'PUT',
    path: ['projects', ':id', 'merge_requests', ':iid', 'discussions', ':discussion'],
    handle(ctx) {
      const mr = mergeRequestOf(ctx);
      if ('status' in mr) return mr;
      const discussion = ctx.state.discussions.find((d) => d.mr === mr && d.id === ctx.params.discussion);
      if (!discussion) return { status: 404, body: { message: '404 Discussion Not Found' } };
      const forbidden = mr.author === ctx.user ? undefined : forbiddenBelow(ctx, 'developer');
      if (forbidden) return forbidden;
      const fromBody =
        ctx.body && typeof ctx.body === 'object' ? (ctx.body as Record<string, unknown>).resolved : undefined;
      const resolved = truthy(fromBody ?? ctx.url.searchParams.get('resolved'));
      if (resolved === undefined) return { status: 400, body: { error: 'resolved is missing' } };
      if (!discussion.notes.some((n) => n.resolvable)) {
        return { status: 400, body: { message: '400 Bad request - Discussion is not resolvable' } };
      }
      discussion.resolved = resolved;
      if (resolved) discussion.resolvedBy = ctx.user;
      else delete discussion.resolvedBy;
      return { status: 200, body: discussionJson(ctx.shape, discussion) };
    },
  },
];
