/**
 * Routes for identities: `GET /user` (403 for an installation token, as GitHub: an App has no
 * user), `GET /app` and `POST /app/installations/{id}/access_tokens` (App JWT only).
 */
import { errorResult, notFound, type Route } from './route-types.js';
import { appJson, authenticatedUserJson } from './shapes-core.js';

const getAuthenticatedUser: Route = {
  auth: 'user',
  handle(ctx) {
    if (ctx.identity.kind === 'installation')
      return errorResult(403, 'Resource not accessible by integration');
    return { status: 200, body: authenticatedUserJson(ctx.shape, ctx.identity.login) };
  },
};

const getApp: Route = {
  auth: 'app',
  handle(ctx) {
    if (!ctx.app) return notFound();
    return { status: 200, body: appJson(ctx.shape, ctx.app, ctx.appOwner) };
  },
};

/** What an installation grants unless a test says otherwise. */
const DEFAULT_INSTALLATION_PERMISSIONS: Record<string, string> = {
  contents: 'write',
  issues: 'write',
  pull_requests: 'write',
  checks: 'write',
  metadata: 'read',
};

const createInstallationToken: Route = {
  auth: 'app',
  handle(ctx) {
    if (!ctx.app || Number(ctx.params.installation_id) !== ctx.app.installationId) return notFound();
    // GitHub restricts the token to the requested repositories and permissions (a subset of the
    // installation's); the fake keeps them on the token and enforces contents:write on git pushes.
    const body = (ctx.body ?? {}) as { repositories?: string[]; permissions?: Record<string, string> };
    const granted = ctx.installationPermissions ?? DEFAULT_INSTALLATION_PERMISSIONS;
    const rank = { read: 1, write: 2 } as Record<string, number>;
    const denied = Object.entries(body.permissions ?? {}).filter(
      ([name, level]) => (rank[granted[name] ?? ''] ?? 0) < (rank[level] ?? 3),
    );
    if (denied.length > 0) {
      return {
        status: 422,
        body: {
          message: 'The permissions requested are not granted to this installation.',
          documentation_url:
            'https://docs.github.com/rest/apps/apps#create-an-installation-access-token-for-an-app',
          status: '422',
        },
      };
    }
    const { token, expiresAt } = ctx.mintToken({
      ...(body.repositories ? { repositories: body.repositories } : {}),
      ...(body.permissions ? { permissions: body.permissions } : {}),
    });
    return {
      status: 201,
      body: {
        token,
        expires_at: expiresAt,
        permissions: body.permissions
          ? { ...body.permissions, metadata: 'read' }
          : { contents: 'write', issues: 'write', pull_requests: 'write', checks: 'write', metadata: 'read' },
        repository_selection: body.repositories ? 'selected' : 'all',
      },
    };
  },
};

/** Routes of this module by OpenAPI operation id. */
export const appRoutes: Record<string, Route> = {
  'users/get-authenticated': getAuthenticatedUser,
  'apps/get-authenticated': getApp,
  'apps/create-installation-access-token': createInstallationToken,
};
