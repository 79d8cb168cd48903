/**
 * `startFakeGitHub`: a real `node:http` server on 127.0.0.1 that answers like api.github.com for
 * the operations reviewbot uses, rejects what GitHub rejects, checks every request (and its own
 * responses) against GitHub's OpenAPI description, and serves the repositories over git smart HTTP.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { appPublicKey, mintInstallationToken } from './app-auth.js';
import type { AuthConfig } from './auth.js';
import { createGitService } from './git-service.js';
import { appRoutes } from './handlers-app.js';
import { checkRoutes, checkRunsJson, statusJson } from './handlers-checks.js';
import { commentRoutes } from './handlers-comments.js';
import { memoryRoutes } from './handlers-memory.js';
import { isGraphqlMutation, listThreads } from './graphql.js';
import { pullRoutes } from './handlers-pulls.js';
import { reviewRoutes } from './handlers-reviews.js';
import type { FakeServices } from './route-types.js';
import { createSeeder } from './seed.js';
import { createRequestListener, type Fault, type LatencyRule, type PipelineDeps } from './server.js';
import type { AppIdentity, ShapeContext } from './shapes-core.js';
import { issueCommentJson, reactionJson, reviewCommentJson, reviewJson } from './shapes-pull.js';
import { createState } from './state.js';
import type { FakeGitHub, FakeGitHubOptions, RecordedRequest, Violation } from './types.js';

function appConfig(options: FakeGitHubOptions): AuthConfig['app'] {
  const app = options.app;
  if (!app) return undefined;
  const pem = app.publicKeyPem ?? app.privateKeyPem;
  if (!pem) throw new Error('fake GitHub: app needs publicKeyPem or privateKeyPem');
  const identity: AppIdentity = {
    appId: app.appId,
    installationId: app.installationId,
    slug: app.slug ?? 'reviewbot-app',
  };
  return { identity, key: appPublicKey(pem), clientId: `Iv1.${app.appId.toString(16).padStart(16, '0')}` };
}

/**
 * Starts the fake on 127.0.0.1 (a free port). Throws when `options.app` has no usable key.
 * Call `close()` when done; it also removes the fake's temporary directory.
 */
export async function startFakeGitHub(options: FakeGitHubOptions): Promise<FakeGitHub> {
  const auth: AuthConfig = {
    token: options.token,
    login: options.login ?? 'reviewbot-test',
    app: appConfig(options),
    installationTokens: new Map(),
  };
  const state = createState();
  const shape: ShapeContext = { state, baseUrl: '' };
  const gitRoot = mkdtempSync(join(tmpdir(), 'fake-github-git-'));
  const git = createGitService(gitRoot, auth);
  const services: FakeServices = {
    state,
    shape,
    app: auth.app?.identity,
    appOwner: options.app?.owner ?? 'reviewbot-org',
    ...(options.app?.installationPermissions
      ? { installationPermissions: options.app.installationPermissions }
      : {}),
    pullFacts: (pull, commit) => git.pullFacts(pull, commit),
    hasCommit: (pull, sha) => git.hasCommit(pull, sha),
    pullDiff: (pull) => git.pullDiff(pull),
    mintToken(scope = {}) {
      const minted = { ...mintInstallationToken(Date.now()), ...scope };
      auth.installationTokens.set(minted.token, minted);
      return {
        token: minted.token,
        expiresAt: new Date(minted.expiresAtMs).toISOString().replace(/\.\d{3}Z$/, 'Z'),
      };
    },
  };
  const requests: RecordedRequest[] = [];
  const violations: Violation[] = [];
  const latency: LatencyRule[] = [];
  const faults: Fault[] = [];
  const deps: PipelineDeps = {
    services,
    routes: {
      ...pullRoutes,
      ...commentRoutes,
      ...reviewRoutes,
      ...appRoutes,
      ...memoryRoutes,
      ...checkRoutes,
    },
    auth,
    baseUrl: () => shape.baseUrl,
    handleGit: (req, res) => git.handle(req, res),
    requests,
    violations,
    latency,
    faults,
  };
  // Idle keep-alive connections stay open a minute, as GitHub's do. With Node's 5 s default, a test
  // whose process is blocked for 5 s (a synchronous git command on a loaded machine) has the server
  // close the idle socket just as the client reuses it: ECONNRESET.
  const server = createServer({ keepAliveTimeout: 60_000 }, createRequestListener(deps));
  await new Promise<void>((resolveListen, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolveListen());
  });
  shape.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const seeder = createSeeder(state, git, shape);

  return {
    url: shape.baseUrl,
    gitUrl: (owner, repo) => `${shape.baseUrl}/git/${owner}/${repo}.git`,
    requests,
    gitRequests: git.http.requests,
    violations,
    get reviews() {
      return state.reviews.map((r) => reviewJson(shape, r));
    },
    get issueComments() {
      return state.issueComments.map((c) => issueCommentJson(shape, c));
    },
    get reviewComments() {
      return state.reviewComments.map((c) => reviewCommentJson(shape, c));
    },
    get reactions() {
      return state.reactions.map((r) => ({
        ...reactionJson(shape, r),
        subject_type: r.subject,
        subject_id: r.commentId,
      }));
    },
    get reviewThreads() {
      return listThreads(state);
    },
    get checkRuns() {
      return checkRunsJson(services, state.checkRuns);
    },
    get statuses() {
      return state.statuses.map((s) => statusJson(services, s));
    },
    get installationTokens() {
      return [...auth.installationTokens.keys()];
    },
    writeRequests: () =>
      requests.filter(
        (r) =>
          r.method !== 'GET' &&
          r.method !== 'HEAD' &&
          r.operationId !== 'apps/create-installation-access-token' &&
          !(r.operationId === 'graphql' && !isGraphqlMutation(r.body)),
      ),
    addRepository(owner, repo, bareRepoPath, defaultBranch) {
      seeder.addRepository(owner, repo, bareRepoPath, defaultBranch);
    },
    addPullRequest: (o) => seeder.addPullRequest(o),
    setPullRequestState: (owner, repo, number, next) => seeder.setPullRequestState(owner, repo, number, next),
    addIssueComment: (seed) => seeder.addIssueComment(seed),
    addReviewComment: (seed) => seeder.addReviewComment(seed),
    addReview: (seed) => seeder.addReview(seed),
    addReaction(seed) {
      state.reactions.push({ id: state.nextId(), ...seed, createdAt: state.now() });
    },
    setLatency(ms, match) {
      if (ms <= 0 && !match) {
        latency.length = 0;
        return;
      }
      const i = latency.findIndex((r) => String(r.match) === String(match));
      if (i >= 0) latency.splice(i, 1);
      if (ms > 0) latency.push({ ms, match });
    },
    failNext(method, path, status, body, headers) {
      faults.push({ method, path, status, body, headers });
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((done) => server.close(() => done()));
      rmSync(gitRoot, { recursive: true, force: true });
    },
  };
}
