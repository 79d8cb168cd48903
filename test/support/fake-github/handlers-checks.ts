/**
 * Routes of progress on a commit (reviewbot's CONTRACT §18), as GitHub answers them:
 * - `checks/create` and `checks/update` ("Create a check run", "Update a check run"): GitHub Apps
 *   only (a personal token gets 403 "You must authenticate via a GitHub App."), and an installation
 *   token restricted to `permissions` needs `checks: write` (403 "Resource not accessible by
 *   integration"); `conclusion` is required with `status: completed` or `completed_at` (422);
 * - `repos/create-commit-status` ("Create a commit status"): a `description` over 140 characters is
 *   422 ("description is too long (maximum is 140 characters)"); a restricted installation token
 *   needs `statuses: write`.
 * A `head_sha`/`sha` that is no commit of the repository is 422 "No commit found for SHA: …".
 */
import { gitOutput } from './diff.js';
import { findRepo } from './handlers-pulls.js';
import { errorResult, notFound, unprocessable, type Route, type RouteContext } from './route-types.js';
import { appJson, userJson } from './shapes-core.js';
import type { CheckRunRecord, RepoRecord, StatusRecord } from './state.js';

/** GitHub's limit on a commit status description, characters. */
export const STATUS_DESCRIPTION_MAX = 140;

async function isCommit(ctx: RouteContext, repo: RepoRecord, sha: string): Promise<boolean> {
  const repos = [
    repo,
    ...[...ctx.state.pulls.values()].filter((p) => p.repo === repo).map((p) => p.headRepo),
  ];
  for (const candidate of new Set(repos)) {
    try {
      const out = await gitOutput(candidate.bareRepoPath, ['cat-file', '-t', sha]);
      if (out.trim() === 'commit') return true;
    } catch {
      // not in this repository
    }
  }
  return false;
}

/** 403 when an installation token lacks `permission: write`; undefined when allowed. */
function lacksWrite(ctx: RouteContext, permission: string) {
  const granted = ctx.identity.permissions;
  if (ctx.identity.kind === 'installation' && granted && granted[permission] !== 'write') {
    return errorResult(403, 'Resource not accessible by integration');
  }
  return undefined;
}

function checkRunJson(ctx: RouteContext, run: CheckRunRecord) {
  const api = `${ctx.shape.baseUrl}/repos/${run.repo.owner}/${run.repo.name}`;
  return {
    id: run.id,
    head_sha: run.headSha,
    node_id: `CR_${Buffer.from(`check-run:${run.id}`).toString('base64url')}`,
    external_id: run.externalId,
    url: `${api}/check-runs/${run.id}`,
    html_url: `${ctx.shape.baseUrl}/${run.repo.owner}/${run.repo.name}/runs/${run.id}`,
    details_url: run.detailsUrl,
    status: run.status,
    conclusion: run.conclusion,
    started_at: run.startedAt,
    completed_at: run.completedAt,
    output: {
      ...run.output,
      annotations_count: 0,
      annotations_url: `${api}/check-runs/${run.id}/annotations`,
    },
    name: run.name,
    check_suite: { id: run.id + 1_000_000 },
    app: ctx.app ? appJson(ctx.shape, ctx.app, ctx.appOwner) : null,
    pull_requests: [],
  };
}

/** A commit status as GitHub returns it. */
export function statusJson(ctx: Pick<RouteContext, 'shape'>, status: StatusRecord) {
  const api = `${ctx.shape.baseUrl}/repos/${status.repo.owner}/${status.repo.name}`;
  return {
    url: `${api}/statuses/${status.sha}`,
    avatar_url: null,
    id: status.id,
    node_id: `SC_${Buffer.from(`status:${status.id}`).toString('base64url')}`,
    state: status.state,
    description: status.description,
    target_url: status.targetUrl,
    context: status.context,
    created_at: status.createdAt,
    updated_at: status.createdAt,
    creator: userJson(ctx.shape, status.user),
  };
}

interface CheckRunBody {
  name?: string;
  head_sha?: string;
  details_url?: string;
  external_id?: string;
  status?: 'queued' | 'in_progress' | 'completed';
  started_at?: string;
  conclusion?: string;
  completed_at?: string;
  output?: { title?: string; summary?: string; text?: string };
}

/** Applies `body` to `run`; a 422 result when GitHub would refuse it. */
function applyCheckRunBody(run: CheckRunRecord, body: CheckRunBody) {
  const completing = body.status === 'completed' || body.completed_at !== undefined;
  if (completing && body.conclusion === undefined) {
    return unprocessable('conclusion must be provided with status completed or completed_at');
  }
  if (body.output && (body.output.title === undefined || body.output.summary === undefined)) {
    return unprocessable('output must have a title and a summary');
  }
  if (body.name !== undefined) run.name = body.name;
  if (body.details_url !== undefined) run.detailsUrl = body.details_url;
  if (body.external_id !== undefined) run.externalId = body.external_id;
  if (body.status !== undefined) run.status = body.status;
  if (body.started_at !== undefined) run.startedAt = body.started_at;
  if (body.conclusion !== undefined) {
    run.conclusion = body.conclusion;
    run.status = 'completed';
    run.completedAt = body.completed_at ?? new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
  }
  if (body.output) {
    run.output = {
      title: body.output.title ?? null,
      summary: body.output.summary ?? null,
      text: body.output.text ?? null,
    };
  }
  return undefined;
}

const createCheckRun: Route = {
  auth: 'user',
  async handle(ctx) {
    if (ctx.identity.kind !== 'installation')
      return errorResult(403, 'You must authenticate via a GitHub App.');
    const denied = lacksWrite(ctx, 'checks');
    if (denied) return denied;
    const repo = findRepo(ctx);
    if (!repo) return notFound();
    const body = (ctx.body ?? {}) as CheckRunBody;
    if (!body.name || !body.head_sha) return unprocessable('name and head_sha are required');
    if (!(await isCommit(ctx, repo, body.head_sha))) {
      return errorResult(422, `No commit found for SHA: ${body.head_sha}`);
    }
    const run: CheckRunRecord = {
      id: ctx.state.nextId(),
      repo,
      name: body.name,
      headSha: body.head_sha,
      status: 'queued',
      conclusion: null,
      startedAt: ctx.state.now(),
      completedAt: null,
      detailsUrl: null,
      externalId: null,
      output: { title: null, summary: null, text: null },
      user: ctx.identity.login,
    };
    const refused = applyCheckRunBody(run, body);
    if (refused) return refused;
    ctx.state.checkRuns.push(run);
    return { status: 201, body: checkRunJson(ctx, run) };
  },
};

const updateCheckRun: Route = {
  auth: 'user',
  handle(ctx) {
    if (ctx.identity.kind !== 'installation')
      return errorResult(403, 'You must authenticate via a GitHub App.');
    const denied = lacksWrite(ctx, 'checks');
    if (denied) return denied;
    const repo = findRepo(ctx);
    const run = ctx.state.checkRuns.find((r) => r.repo === repo && String(r.id) === ctx.params.check_run_id);
    if (!run) return notFound();
    const copy = { ...run, output: { ...run.output } };
    const refused = applyCheckRunBody(copy, (ctx.body ?? {}) as CheckRunBody);
    if (refused) return refused;
    Object.assign(run, copy);
    return { status: 200, body: checkRunJson(ctx, run) };
  },
};

const createCommitStatus: Route = {
  auth: 'user',
  async handle(ctx) {
    const denied = lacksWrite(ctx, 'statuses');
    if (denied) return denied;
    const repo = findRepo(ctx);
    if (!repo) return notFound();
    const body = (ctx.body ?? {}) as {
      state: StatusRecord['state'];
      description?: string | null;
      target_url?: string | null;
      context?: string;
    };
    const sha = ctx.params.sha ?? '';
    if (!(await isCommit(ctx, repo, sha))) return errorResult(422, `No commit found for SHA: ${sha}`);
    if ((body.description ?? '').length > STATUS_DESCRIPTION_MAX) {
      return errorResult(422, 'Validation Failed', [
        {
          resource: 'Status',
          code: 'custom',
          field: 'description',
          message: `description is too long (maximum is ${STATUS_DESCRIPTION_MAX} characters)`,
        },
      ]);
    }
    const status: StatusRecord = {
      id: ctx.state.nextId(),
      repo,
      sha,
      state: body.state,
      description: body.description ?? null,
      targetUrl: body.target_url ?? null,
      context: body.context ?? 'default',
      user: ctx.identity.login,
      createdAt: ctx.state.now(),
    };
    ctx.state.statuses.push(status);
    return {
      status: 201,
      body: statusJson(ctx, status),
      headers: { location: `${ctx.shape.baseUrl}/repos/${repo.owner}/${repo.name}/statuses/${sha}` },
    };
  },
};

/** Routes of this module by OpenAPI operation id. */
export const checkRoutes: Record<string, Route> = {
  'checks/create': createCheckRun,
  'checks/update': updateCheckRun,
  'repos/create-commit-status': createCommitStatus,
};

/** The check runs of a fake, as GitHub returns them. */
export function checkRunsJson(ctx: Pick<RouteContext, 'shape' | 'app' | 'appOwner'>, runs: CheckRunRecord[]) {
  return runs.map((run) => checkRunJson(ctx as RouteContext, run));
}
