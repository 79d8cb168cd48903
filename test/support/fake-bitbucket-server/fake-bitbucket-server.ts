/**
 * `startFakeBitbucketServer`: a real `node:http` server on 127.0.0.1 answering like Bitbucket Data
 * Center's REST API 1.0 (at `/rest/api/1.0`, the `latest` API of Atlassian's OpenAPI description)
 * for the operations reviewbot uses, each request checked against that description (`openapi.ts`);
 * one it does not describe or that breaks it is answered 404/400 and listed in `violations`.
 * Data Center's own rules on top (`handlers.ts`): the Bearer token, anchors on lines of the diff,
 * comment versions, paged lists (`isLastPage`, `nextPageStart`), and `X-AUSERNAME` naming the
 * token's user on every authenticated answer. Repositories are served over git smart HTTP at
 * `<url>/scm/<key>/<slug>.git` with the token as Bearer only.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createGitHttpHandler } from '../git-http-server.js';
import { error, flatten, handle, type Answer, type PullState, type World } from './handlers.js';
import { matchOperation, validateRequest, validateResponse } from './openapi.js';
import type {
  FakeBitbucketServer,
  FakeBitbucketServerOptions,
  GitRequest,
  RecordedRequest,
  StoredComment,
  Violation,
} from './types.js';

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function send(res: ServerResponse, answer: Answer, headers: Record<string, string>): void {
  let payload = '';
  if (answer.text !== undefined) {
    payload = answer.text;
    headers['content-type'] = 'text/plain; charset=utf-8';
  } else if (answer.body !== undefined && answer.status !== 204) {
    payload = JSON.stringify(answer.body);
    headers['content-type'] = 'application/json; charset=utf-8';
  }
  res.writeHead(answer.status, headers);
  res.end(payload);
}

/** Starts the fake on a free port; `close()` stops it and removes its temporary directory. */
export async function startFakeBitbucketServer(
  options: FakeBitbucketServerOptions,
): Promise<FakeBitbucketServer> {
  const gitRoot = mkdtempSync(join(tmpdir(), 'fake-bitbucket-server-git-'));
  const git = createGitHttpHandler({
    projectRoot: gitRoot,
    password: options.token,
    prefix: '/scm',
    scheme: 'bearer',
  });
  const gitRequests: GitRequest[] = [];
  const requests: RecordedRequest[] = [];
  const violations: Violation[] = [];
  const faults: Array<{ method: string; path: RegExp; status: number; headers?: Record<string, string> }> =
    [];
  const world: World = {
    url: '',
    pageSize: options.pageSize ?? 2,
    username: options.username ?? 'reviewbot',
    pulls: new Map<string, PullState>(),
    nextCommentId: 1000,
    statuses: [],
  };

  async function handleApi(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const method = (req.method ?? 'GET').toUpperCase();
    const raw = await readBody(req);
    const record: RecordedRequest = { method, path: url.pathname, status: 0, body: undefined };
    requests.push(record);
    const authorized = req.headers.authorization === `Bearer ${options.token}`;
    const answer = (a: Answer) => {
      record.status = a.status;
      send(res, a, authorized ? { 'x-ausername': world.username } : {});
    };
    const violation = (message: string) => violations.push({ method, path: url.pathname, message });
    if (raw.length > 0) {
      try {
        record.body = JSON.parse(raw.toString('utf8')) as unknown;
      } catch {
        violation('request body is not JSON');
        return answer(error(400, 'invalid JSON'));
      }
      if (!(req.headers['content-type'] ?? '').startsWith('application/json')) {
        violation('JSON body without content-type application/json');
      }
    }
    const faultAt = faults.findIndex((f) => f.method === method && f.path.test(url.pathname));
    if (faultAt >= 0) {
      const [fault] = faults.splice(faultAt, 1);
      record.status = fault?.status ?? 500;
      return send(res, error(record.status, 'injected fault'), { ...fault?.headers });
    }
    if (!authorized)
      return answer(error(401, 'Authentication failed. Please check your credentials and try again.'));
    const op = matchOperation(method, `/api/latest${url.pathname.slice('/rest/api/1.0'.length)}`);
    if (!op) {
      violation('no such operation in the Bitbucket Data Center API');
      return answer(error(404, 'No such resource'));
    }
    const problems = validateRequest(op, url.searchParams, record.body);
    if (problems.length > 0) {
      for (const p of problems) violation(p);
      return answer(error(400, problems.join('; ')));
    }
    const result = await handle(world, op.template, method, op.params, url, record.body, violation);
    for (const p of validateResponse(op, result.status, result.body)) violation(`fake answer: ${p}`);
    answer(result);
  }

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', world.url || 'http://127.0.0.1');
    if (url.pathname.startsWith('/rest/api/1.0/')) {
      handleApi(req, res, url).catch((e: unknown) => {
        if (!res.headersSent) send(res, error(500, e instanceof Error ? e.message : String(e)), {});
      });
      return;
    }
    if (url.pathname.startsWith('/rest/')) {
      violations.push({
        method: req.method ?? 'GET',
        path: url.pathname,
        message: 'not under /rest/api/1.0',
      });
      send(res, error(404, 'No such resource'), {});
      return;
    }
    const before = git.requests.length;
    git.handle(req, res);
    const seen = git.requests[before];
    if (seen) gitRequests.push({ path: seen.path, authorized: seen.authorized, service: seen.service });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  world.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url: world.url,
    addPullRequest(pr) {
      const [key = '', slug = ''] = pr.repo.split('/');
      const link = join(gitRoot, key.toLowerCase(), `${slug}.git`);
      mkdirSync(dirname(link), { recursive: true });
      try {
        symlinkSync(pr.bareRepoPath, link);
      } catch {
        // Already linked by an earlier pull request of the same repository.
      }
      world.pulls.set(`${pr.repo}#${pr.id}`, { ...pr, comments: [], createdDate: Date.now() });
    },
    comments: (repo, id) =>
      flatten(world.pulls.get(`${repo}#${id}`)?.comments ?? []).sort((a, b) => a.id - b.id),
    addComment(repo, id, comment) {
      const pull = world.pulls.get(`${repo}#${id}`);
      if (!pull) throw new Error(`fake Bitbucket Data Center: no pull request ${repo}#${id}`);
      const parent =
        comment.parentId !== undefined
          ? flatten(pull.comments).find((c) => c.id === comment.parentId)
          : undefined;
      const stored: StoredComment = {
        id: world.nextCommentId++,
        version: 0,
        text: comment.text,
        author: comment.author,
        createdDate: Date.now(),
        ...(comment.anchor && !parent ? { anchor: comment.anchor } : {}),
        ...(parent ? { parentId: parent.id } : {}),
        threadResolved: false,
        replies: [],
      };
      (parent ? parent.replies : pull.comments).push(stored);
      return stored;
    },
    setPullRequestState(repo, id, state) {
      const pull = world.pulls.get(`${repo}#${id}`);
      if (!pull) throw new Error(`fake Bitbucket Data Center: no pull request ${repo}#${id}`);
      pull.state = state;
      pull.updatedDate = Date.now();
    },
    resolveThread(repo, id, commentId, login) {
      const c = world.pulls.get(`${repo}#${id}`)?.comments.find((x) => x.id === commentId);
      if (!c) throw new Error(`fake Bitbucket Data Center: no root comment ${commentId}`);
      c.threadResolved = true;
      c.threadResolver = login;
      c.threadResolvedDate = Date.now();
    },
    statuses: world.statuses,
    requests,
    gitRequests,
    violations,
    failNext: (method, path, status, headers) =>
      faults.push({ method, path, status, ...(headers ? { headers } : {}) }),
    writeRequests: () => requests.filter((r) => r.method !== 'GET'),
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(gitRoot, { recursive: true, force: true });
    },
  };
}
