/**
 * `POST /graphql` of the fake GitHub: every document is parsed and validated against GitHub's
 * published schema (`@octokit/graphql-schema`) and executed by graphql-js over the fake's state.
 * Implemented: `repository(owner, name) { pullRequest(number) { reviewThreads(first, after) } }`
 * (threads = top-level review comments with their replies) and `resolveReviewThread`, which —
 * as the bot's rule demands — refuses a thread the token's user did not start. An invalid document
 * is answered like GitHub (HTTP 200, `errors`) and recorded as a violation; so is a refused
 * resolution. Anything outside the implemented fields resolves to null.
 */
import { buildSchema, graphql, parse, validate, type GraphQLSchema } from 'graphql';
import type { RouteResult } from './route-types.js';
import type { Identity } from './route-types.js';
import { pullKey, type FakeState, type PullRecord, type ReviewCommentRecord } from './state.js';

let cached: Promise<GraphQLSchema> | undefined;

/** GitHub's GraphQL schema (`@octokit/graphql-schema`'s SDL), built once per process. */
export function gitHubSchema(): Promise<GraphQLSchema> {
  cached ??= import('@octokit/graphql-schema').then(({ schema }) =>
    buildSchema(schema.idl, { assumeValidSDL: true, assumeValid: true }),
  );
  return cached;
}

/** Node id of the thread started by review comment `rootId`. */
export function threadNodeId(rootId: number): string {
  return `PRRT_${Buffer.from(`thread:${rootId}`).toString('base64url')}`;
}

function rootIdOf(nodeId: string): number | undefined {
  if (!nodeId.startsWith('PRRT_')) return undefined;
  const m = /^thread:(\d+)$/.exec(Buffer.from(nodeId.slice(5), 'base64url').toString('utf8'));
  return m ? Number(m[1]) : undefined;
}

/** True when a recorded GraphQL request body holds a mutation (a write), not a query. */
export function isGraphqlMutation(body: unknown): boolean {
  const query = (body as { query?: unknown } | undefined)?.query;
  if (typeof query !== 'string') return false;
  try {
    return parse(query).definitions.some(
      (d) => d.kind === 'OperationDefinition' && d.operation === 'mutation',
    );
  } catch {
    return false;
  }
}

/** A thread as the fake's tests see it. */
export interface FakeReviewThread {
  id: string;
  rootCommentId: number;
  path: string;
  author: string;
  resolved: boolean;
  resolvedBy: string | null;
  commentIds: number[];
}

/** Every review thread of the state, in creation order. */
export function listThreads(state: FakeState): FakeReviewThread[] {
  const roots = state.reviewComments.filter((c) => c.inReplyToId === undefined);
  return roots.map((root) => ({
    id: threadNodeId(root.id),
    rootCommentId: root.id,
    path: root.path,
    author: root.user,
    resolved: root.resolvedBy !== undefined,
    resolvedBy: root.resolvedBy ?? null,
    commentIds: [root.id, ...state.reviewComments.filter((c) => c.inReplyToId === root.id).map((c) => c.id)],
  }));
}

function actor(login: string): { __typename: 'User' | 'Bot'; login: string } {
  return login.endsWith('[bot]')
    ? { __typename: 'Bot', login: login.slice(0, -5) }
    : { __typename: 'User', login };
}

function commentNode(c: ReviewCommentRecord) {
  return { id: `PRRC_${c.id}`, databaseId: c.id, body: c.body, author: actor(c.user), path: c.path };
}

function connection<T>(items: T[], args: { first?: number | null; after?: string | null }) {
  const start = args.after
    ? Number(Buffer.from(args.after, 'base64').toString('utf8').replace('cursor:', '')) + 1
    : 0;
  const first = Math.min(args.first ?? 100, 100);
  const page = items.slice(start, start + first);
  const cursor = (i: number) => Buffer.from(`cursor:${i}`).toString('base64');
  return {
    nodes: page,
    totalCount: items.length,
    pageInfo: {
      hasNextPage: start + first < items.length,
      hasPreviousPage: start > 0,
      startCursor: page.length > 0 ? cursor(start) : null,
      endCursor: page.length > 0 ? cursor(start + page.length - 1) : null,
    },
  };
}

function threadNode(state: FakeState, root: ReviewCommentRecord) {
  const comments = [root, ...state.reviewComments.filter((c) => c.inReplyToId === root.id)];
  return {
    id: threadNodeId(root.id),
    isResolved: root.resolvedBy !== undefined,
    isOutdated: root.commitId !== root.pull.lastHeadSha && root.line === null,
    isCollapsed: root.resolvedBy !== undefined,
    resolvedBy: root.resolvedBy === undefined ? null : actor(root.resolvedBy),
    path: root.path,
    line: root.line,
    originalLine: root.line,
    startLine: root.startLine,
    diffSide: root.side,
    viewerCanResolve: true,
    comments: (args: { first?: number; after?: string }) => connection(comments.map(commentNode), args),
  };
}

/** Handles one GraphQL request by `identity`; `violations` receives invalid documents and refusals. */
export async function handleGraphql(
  state: FakeState,
  identity: Identity,
  body: unknown,
  violate: (message: string) => void,
): Promise<RouteResult> {
  const request = (body ?? {}) as { query?: unknown; variables?: unknown };
  if (typeof request.query !== 'string') {
    violate('GraphQL request without a query');
    return { status: 400, body: { message: 'Problems parsing JSON' } };
  }
  const schema = await gitHubSchema();
  let errors: readonly Error[];
  try {
    errors = validate(schema, parse(request.query));
  } catch (error) {
    errors = [error as Error];
  }
  if (errors.length > 0) {
    violate(`invalid GraphQL document: ${errors.map((e) => e.message).join('; ')}`);
    return { status: 200, body: { errors: errors.map((e) => ({ message: e.message })) } };
  }
  const rootValue = {
    repository: ({ owner, name }: { owner: string; name: string }) => ({
      pullRequest: ({ number }: { number: number }) => {
        const pull: PullRecord | undefined = state.pulls.get(pullKey(owner, name, number));
        if (!pull) return null;
        return {
          number,
          reviewThreads: (args: { first?: number; after?: string }) =>
            connection(
              state.reviewComments
                .filter((c) => c.pull === pull && c.inReplyToId === undefined)
                .map((root) => threadNode(state, root)),
              args,
            ),
        };
      },
    }),
    resolveReviewThread: ({ input }: { input: { threadId: string } }) => {
      const rootId = rootIdOf(input.threadId);
      const root = state.reviewComments.find((c) => c.id === rootId && c.inReplyToId === undefined);
      if (!root) throw new Error(`Could not resolve to a node with the global id of '${input.threadId}'`);
      if (root.user.toLowerCase() !== identity.login.toLowerCase()) {
        violate(`${identity.login} tried to resolve thread ${input.threadId} started by ${root.user}`);
        throw new Error(`${identity.login} does not have permission to resolve this thread`);
      }
      root.resolvedBy = identity.login;
      return { clientMutationId: null, thread: threadNode(state, root) };
    },
  };
  const result = await graphql({
    schema,
    source: request.query,
    rootValue,
    variableValues: (request.variables ?? {}) as Record<string, unknown>,
  });
  return { status: 200, body: result };
}
