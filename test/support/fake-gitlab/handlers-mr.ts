/** Read-only routes: the token's user, projects, merge requests, their diffs and diff versions. */
import { currentVersion } from './diff.js';
import { paginate } from './http-util.js';
import { mergeRequestOf, projectOf, type Route } from './routes.js';
import { diffJson, mergeRequestJson, projectJson, userJson, versionJson } from './shapes.js';

/** `GET /user`, `GET /projects/:id`, `GET .../merge_requests/:iid`, `.../diffs`, `.../versions[/:id]`. */
export const mergeRequestRoutes: Route[] = [
  {
    method: 'GET',
    path: ['user'],
    handle: (ctx) => ({
      status: 200,
      body: {
        ...userJson(ctx.shape, ctx.user),
        bio: '',
        created_at: '2026-01-01T09:00:00.000Z',
        public_email: null,
        bot: false,
        email: `${ctx.user.username}@example.invalid`,
        two_factor_enabled: false,
        can_create_project: true,
      },
    }),
  },
  {
    method: 'GET',
    path: ['projects', ':id'],
    handle(ctx) {
      const project = projectOf(ctx);
      return 'status' in project ? project : { status: 200, body: projectJson(ctx.shape, project) };
    },
  },
  {
    method: 'GET',
    path: ['projects', ':id', 'merge_requests', ':iid'],
    async handle(ctx) {
      const mr = mergeRequestOf(ctx);
      if ('status' in mr) return mr;
      await currentVersion(ctx.state, mr);
      return { status: 200, body: mergeRequestJson(ctx.shape, mr) };
    },
  },
  {
    method: 'GET',
    path: ['projects', ':id', 'merge_requests', ':iid', 'diffs'],
    async handle(ctx) {
      const mr = mergeRequestOf(ctx);
      if ('status' in mr) return mr;
      const version = await currentVersion(ctx.state, mr);
      const page = paginate(version.files.map(diffJson), ctx.url);
      return { status: 200, body: page.items, headers: page.headers };
    },
  },
  {
    method: 'GET',
    path: ['projects', ':id', 'merge_requests', ':iid', 'versions'],
    async handle(ctx) {
      const mr = mergeRequestOf(ctx);
      if ('status' in mr) return mr;
      await currentVersion(ctx.state, mr);
      const page = paginate(
        [...mr.versions].reverse().map((v) => versionJson(mr, v)),
        ctx.url,
      );
      return { status: 200, body: page.items, headers: page.headers };
    },
  },
  {
    method: 'GET',
    path: ['projects', ':id', 'merge_requests', ':iid', 'versions', ':version'],
    async handle(ctx) {
      const mr = mergeRequestOf(ctx);
      if ('status' in mr) return mr;
      await currentVersion(ctx.state, mr);
      const version = mr.versions.find((v) => String(v.id) === ctx.params.version);
      if (!version) return { status: 404, body: { message: '404 Not found' } };
      return {
        status: 200,
        body: { ...versionJson(mr, version), commits: [], diffs: version.files.map(diffJson) },
      };
    },
  },
];
