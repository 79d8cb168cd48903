/**
 * `startFakeBitbucketCloud`: a real `node:http` server on 127.0.0.1 answering like Bitbucket
 * Cloud's API 2.0 (at `/2.0`) for the operations reviewbot uses, each request checked against
 * Atlassian's OpenAPI description (`openapi.ts`); one it does not describe or that breaks it is
 * answered 404/400 and listed in `violations`. Bitbucket's own rules on top: the Bearer token,
 * inline comments anchored on a line of the pull request's diff (`inline.to` new side, `inline.from`
 * old side), build statuses need `url`, 12-character hashes in pull requests, paginated lists
 * (`values`, `next`). Repositories are served over git smart HTTP at `<url>/<ws>/<slug>.git`.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createGitHttpHandler } from '../git-http-server.js';
import { handle, type Answer, type PullState, type World } from './handlers.js';
import { matchOperation, validateRequest, validateResponse } from './openapi.js';
import type {
  FakeBitbucketCloud,
  FakeBitbucketOptions,
  GitRequest,
  RecordedRequest,
  Violation,
} from './types.js';

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function send(res: ServerResponse, answer: Answer): void {
  const headers: Record<string, string> = { ...answer.headers };
  let payload = '';
  if (answer.text !== undefined) {
    payload = answer.text;
    headers['content-type'] ??= 'text/plain; charset=utf-8';
  } else if (answer.body !== undefined && answer.status !== 204) {
    payload = JSON.stringify(answer.body);
    headers['content-type'] = 'application/json; charset=utf-8';
  }
  res.writeHead(answer.status, headers);
  res.end(payload);
}

const error = (status: number, message: string): Answer => ({
  status,
  body: { type: 'error', error: { message } },
});

/** Starts the fake on a free port; `close()` stops it and removes its temporary directory. */
export async function startFakeBitbucketCloud(options: FakeBitbucketOptions): Promise<FakeBitbucketCloud> {
  const gitRoot = mkdtempSync(join(tmpdir(), 'fake-bitbucket-git-'));
  const git = createGitHttpHandler({ projectRoot: gitRoot, password: options.token });
  const gitRequests: GitRequest[] = [];
  const requests: RecordedRequest[] = [];
  const violations: Violation[] = [];
  const faults: Array<{ method: string; path: RegExp; status: number; headers?: Record<string, string> }> =
    [];
  const world: World = {
    url: '',
    pageSize: options.pageSize ?? 2,
    bot: { nickname: options.nickname ?? 'reviewbot', accountId: options.accountId ?? '557058:bot-0001' },
    pulls: new Map<string, PullState>(),
    nextCommentId: 1000,
    statuses: [],
  };

  async function handleApi(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const method = (req.method ?? 'GET').toUpperCase();
    const raw = await readBody(req);
    const record: RecordedRequest = { method, path: url.pathname, status: 0, body: undefined };
    requests.push(record);
    const answer = (a: Answer) => {
      record.status = a.status;
      send(res, a);
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
      return answer({ ...error(fault?.status ?? 500, 'injected fault'), headers: { ...fault?.headers } });
    }
    if (req.headers.authorization !== `Bearer ${options.token}`) return answer(error(401, 'Unauthorized'));
    const op = matchOperation(method, url.pathname.slice('/2.0'.length));
    if (!op) {
      violation('no such operation in the Bitbucket Cloud API');
      return answer(error(404, 'Resource not found'));
    }
    const problems = validateRequest(op, url.searchParams, record.body);
    if (problems.length > 0) {
      for (const p of problems) violation(p);
      return answer(error(400, problems.join('; ')));
    }
    if (options.userForbidden && op.template === '/user')
      return answer(error(403, 'Your credentials lack the account scope'));
    // What Bitbucket answers a repository, project or workspace access token (BCLOUD-23528).
    if (options.accessToken && op.template === '/user')
      return answer(error(401, 'Token is invalid or not supported for this endpoint.'));
    const target = `${op.params.workspace}/${op.params.repo_slug}`;
    if (op.params.workspace && options.forbiddenRepos?.includes(target))
      return answer(error(403, 'Access denied. You must have read access to this repository.'));
    const result = await handle(world, op.template, method, op.params, url, record.body, violation);
    for (const p of validateResponse(op, result.status, result.body)) violation(`fake answer: ${p}`);
    answer(result);
  }

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', world.url || 'http://127.0.0.1');
    if (url.pathname.startsWith('/2.0/')) {
      handleApi(req, res, url).catch((e: unknown) => {
        if (!res.headersSent) send(res, error(500, e instanceof Error ? e.message : String(e)));
      });
      return;
    }
    const auth = req.headers.authorization ?? '';
    const username = auth.startsWith('Basic ')
      ? (Buffer.from(auth.slice(6), 'base64').toString('utf8').split(':')[0] ?? '')
      : '';
    const before = git.requests.length;
    git.handle(req, res);
    const seen = git.requests[before];
    if (seen)
      gitRequests.push({ path: seen.path, authorized: seen.authorized, service: seen.service, username });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  world.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url: world.url,
    apiUrl: `${world.url}/2.0`,
    addPullRequest(pr) {
      for (const repo of [pr.repo, ...(pr.sourceRepo ? [pr.sourceRepo] : [])]) {
        const link = join(gitRoot, `${repo}.git`);
        mkdirSync(dirname(link), { recursive: true });
        try {
          symlinkSync(pr.bareRepoPath, link);
        } catch {
          // Already linked by an earlier pull request of the same repository.
        }
      }
      world.pulls.set(`${pr.repo}#${pr.id}`, { ...pr, comments: [], createdOn: new Date().toISOString() });
    },
    comments: (repo, id) => world.pulls.get(`${repo}#${id}`)?.comments ?? [],
    addComment(repo, id, comment) {
      const pull = world.pulls.get(`${repo}#${id}`);
      if (!pull) throw new Error(`fake Bitbucket: no pull request ${repo}#${id}`);
      const stored = {
        ...comment,
        id: world.nextCommentId++,
        createdOn: new Date().toISOString(),
        resolved: false,
      };
      pull.comments.push(stored);
      return stored;
    },
    setPullRequestState(repo, id, state) {
      const pull = world.pulls.get(`${repo}#${id}`);
      if (!pull) throw new Error(`fake Bitbucket: no pull request ${repo}#${id}`);
      pull.state = state;
      pull.updatedOn = new Date().toISOString();
    },
    resolveComment(repo, id, commentId, login) {
      const c = world.pulls.get(`${repo}#${id}`)?.comments.find((x) => x.id === commentId);
      if (!c?.inline || c.parentId !== undefined) throw new Error(`fake Bitbucket: no thread ${commentId}`);
      c.resolved = true;
      c.resolvedBy = login;
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
