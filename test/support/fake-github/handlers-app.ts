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

const createInstallationToken: Route = {
  auth: 'app',
  handle(ctx) {
    if (!ctx.app || Number(ctx.params.installation_id) !== ctx.app.installationId) return notFound();
    const { token, expiresAt } = ctx.mintToken();
    return {
      status: 201,
      body: {
        token,
        expires_at: expiresAt,
        permissions: { contents: 'read', issues: 'write', pull_requests: 'write', metadata: 'read' },
        repository_selection: 'all',
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
