/**
 * "Set the pipeline status of a commit" (`POST /projects/:id/statuses/:sha`, GitLab commits API) as
 * GitLab answers it: `state` is required, one of `pending`, `running`, `success`, `failed`,
 * `canceled` (400 otherwise); `name` defaults to `default`; a `description` over 255 characters is
 * 400; an unknown commit is 404. A status still `pending`/`running` with the same name and ref is
 * moved on (GitLab's state machine: `pending` from created only, `running` from created/pending,
 * an end state from any unfinished one — a repeat such as `running` → `running` is 400 "Cannot
 * transition status via :run from :running"); once finished, the next call starts a new status.
 * Below the Developer role GitLab answers 403 (`create_commit_status`, "Roles and permissions").
 */
import { gitOutput } from '../fake-github/diff.js';
import { forbiddenBelow, projectOf, type Route, type RouteContext } from './routes.js';
import { userJson } from './shapes.js';
import type { CommitStatusRecord } from './state.js';

const STATES = ['pending', 'running', 'success', 'failed', 'canceled'] as const;
type State = (typeof STATES)[number];

/** GitLab's limit on a commit status description, characters. */
export const GITLAB_STATUS_DESCRIPTION_MAX = 255;

/** The commit status as GitLab returns it. */
export function commitStatusJson(ctx: Pick<RouteContext, 'shape'>, s: CommitStatusRecord) {
  return {
    id: s.id,
    sha: s.sha,
    ref: s.ref,
    status: s.status,
    name: s.name,
    target_url: s.targetUrl,
    description: s.description,
    created_at: s.createdAt,
    started_at: s.startedAt,
    finished_at: s.finishedAt,
    allow_failure: false,
    coverage: null,
    pipeline_id: 1,
    author: userJson(ctx.shape, s.author),
  };
}

/** The event GitLab fires for `state`, and the states it may leave. */
const TRANSITIONS: Record<State, { event: string; from: string[] }> = {
  pending: { event: 'enqueue', from: ['created'] },
  running: { event: 'run', from: ['created', 'pending'] },
  success: { event: 'success', from: ['created', 'pending', 'running'] },
  failed: { event: 'drop', from: ['created', 'pending', 'running'] },
  canceled: { event: 'cancel', from: ['created', 'pending', 'running'] },
};

function text(body: Record<string, unknown>, name: string): string | undefined {
  const value = body[name];
  return typeof value === 'string' ? value : undefined;
}

async function isCommit(path: string, sha: string): Promise<boolean> {
  try {
    return (await gitOutput(path, ['cat-file', '-t', sha])).trim() === 'commit';
  } catch {
    return false;
  }
}

const setStatus: Route = {
  method: 'POST',
  path: ['projects', ':id', 'statuses', ':sha'],
  async handle(ctx) {
    const project = projectOf(ctx);
    if ('status' in project) return project;
    const forbidden = forbiddenBelow(ctx, 'developer');
    if (forbidden) return forbidden;
    const body = (ctx.body ?? {}) as Record<string, unknown>;
    const state = text(body, 'state');
    if (state === undefined) return { status: 400, body: { error: 'state is missing' } };
    if (!STATES.includes(state as State)) {
      return { status: 400, body: { error: 'state does not have a valid value' } };
    }
    const description = text(body, 'description') ?? null;
    if (description !== null && description.length > GITLAB_STATUS_DESCRIPTION_MAX) {
      return {
        status: 400,
        body: { message: { description: ['is too long (maximum is 255 characters)'] } },
      };
    }
    const sha = ctx.params.sha ?? '';
    if (!(await isCommit(project.bareRepoPath, sha))) {
      return { status: 404, body: { message: '404 Commit Not Found' } };
    }
    const name = text(body, 'name') ?? text(body, 'context') ?? 'default';
    const ref = text(body, 'ref') ?? null;
    const open = ctx.state.statuses.find(
      (s) =>
        s.project === project &&
        s.sha === sha &&
        s.name === name &&
        s.ref === ref &&
        (s.status === 'pending' || s.status === 'running'),
    );
    const current = open?.status ?? 'created';
    const rule = TRANSITIONS[state as State];
    if (!rule.from.includes(current)) {
      return {
        status: 400,
        body: { message: `Cannot transition status via :${rule.event} from :${current}` },
      };
    }
    const now = ctx.state.now();
    const record: CommitStatusRecord = open ?? {
      id: ctx.state.nextId('status'),
      project,
      sha,
      ref,
      name,
      status: 'pending',
      description: null,
      targetUrl: null,
      author: ctx.user,
      createdAt: now,
      startedAt: null,
      finishedAt: null,
    };
    record.status = state as State;
    if (description !== null) record.description = description;
    const targetUrl = text(body, 'target_url');
    if (targetUrl !== undefined) record.targetUrl = targetUrl;
    if (state === 'running') record.startedAt ??= now;
    if (state !== 'pending' && state !== 'running') record.finishedAt = now;
    if (!open) ctx.state.statuses.push(record);
    return { status: 201, body: commitStatusJson(ctx, record) };
  },
};

/** Routes of commit statuses. */
export const statusRoutes: Route[] = [setStatus];
