/** Shared parts of the fake Gitea's handlers: what a handler gets and answers, and lookups. */
import type { FakeState, PullRecord, RepoRecord, UserRecord } from './state.js';
import type { ShapeContext } from './shapes.js';

/** What a handler answers. */
export interface Answer {
  status: number;
  body?: unknown;
  text?: string;
  headers?: Record<string, string>;
}

/** What a handler gets. */
export interface HandlerContext {
  state: FakeState;
  shape: ShapeContext;
  params: Record<string, string>;
  url: URL;
  body: unknown;
  user: UserRecord;
  violation(message: string): void;
}

export type Handler = (ctx: HandlerContext) => Promise<Answer>;

/** Gitea's default `[ui] REACTIONS`. */
export const REACTIONS = ['+1', '-1', 'laugh', 'hooray', 'confused', 'heart', 'rocket', 'eyes'];
export const EVENTS: Record<string, string> = {
  APPROVED: 'APPROVED',
  REQUEST_CHANGES: 'REQUEST_CHANGES',
  COMMENT: 'COMMENT',
};

/** Gitea's error body. */
export function errorBody(ctx: { url: URL }, message: string): Record<string, unknown> {
  return { message, url: `${ctx.url.origin}/api/swagger` };
}

export const notFound = (ctx: HandlerContext): Answer => ({
  status: 404,
  body: errorBody(ctx, "The target couldn't be found."),
});

export function repoOf(ctx: HandlerContext): RepoRecord | undefined {
  return ctx.state.findRepo(ctx.params.owner ?? '', ctx.params.repo ?? '');
}

export function pullOf(ctx: HandlerContext): PullRecord | undefined {
  const repo = repoOf(ctx);
  return repo ? ctx.state.findPull(repo, Number(ctx.params.index)) : undefined;
}

export function page<T>(ctx: HandlerContext, all: T[]): Answer & { body: T[] } {
  const limitRaw = Number(ctx.url.searchParams.get('limit') ?? '30');
  const limit = Math.min(limitRaw > 0 ? limitRaw : 30, 50);
  const pageRaw = Number(ctx.url.searchParams.get('page') ?? '1');
  const n = pageRaw > 0 ? pageRaw : 1;
  return {
    status: 200,
    body: all.slice((n - 1) * limit, n * limit),
    headers: { 'x-total-count': String(all.length) },
  };
}

export function userBy(ctx: HandlerContext, login: string): UserRecord {
  return ctx.state.user(login);
}
