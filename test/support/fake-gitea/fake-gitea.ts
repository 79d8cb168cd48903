/**
 * `startFakeGitea`: a real `node:http` server on 127.0.0.1 answering like a Gitea 1.22 instance
 * (Forgejo 7 alike) for the API v1 operations reviewbot uses. Every request is checked against
 * Gitea's swagger (`swagger.ts`); one it does not describe, or that breaks it, is answered like
 * Gitea (404, 422) and listed in `violations`. Repositories are served over git smart HTTP at
 * `<url>/<owner>/<repo>.git` (Basic auth, the token as password; the user name is recorded).
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createGitHttpHandler } from '../git-http-server.js';
import { pullShas } from './git.js';
import { errorBody, handlerFor, type Answer } from './handlers.js';
import type { ShapeContext } from './shapes.js';
import { createState, type PullRecord } from './state.js';
import { matchOperation, validateRequest, validateResponse } from './swagger.js';
import type { FakeGitea, FakeGiteaOptions, GiteaGitRequest, RecordedRequest, Violation } from './types.js';

interface Fault {
  method: string;
  path: RegExp;
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

const API = '/api/v1';

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
    headers['content-type'] = 'application/json;charset=utf-8';
  }
  res.writeHead(answer.status, headers);
  res.end(payload);
}

/** Starts the fake on a free port; `close()` stops it and removes its temporary directory. */
export async function startFakeGitea(options: FakeGiteaOptions): Promise<FakeGitea> {
  const state = createState(options.resolveEndpoint ?? false);
  const bot = state.user(options.username ?? 'reviewbot-bot');
  const shape: ShapeContext = { baseUrl: '' };
  const gitRoot = mkdtempSync(join(tmpdir(), 'fake-gitea-git-'));
  const git = createGitHttpHandler({ projectRoot: gitRoot, password: options.token });
  const gitRequests: GiteaGitRequest[] = [];
  const requests: RecordedRequest[] = [];
  const violations: Violation[] = [];
  const faults: Fault[] = [];

  function authorized(req: IncomingMessage): boolean {
    const auth = req.headers.authorization ?? '';
    const match = /^(?:token|bearer) (.+)$/i.exec(auth);
    return match?.[1] === options.token;
  }

  async function handleApi(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const method = (req.method ?? 'GET').toUpperCase();
    const raw = await readBody(req);
    const path = url.pathname.slice(API.length);
    const record: RecordedRequest = {
      method,
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      headers: Object.fromEntries(
        Object.entries(req.headers)
          .filter(([name]) => name !== 'authorization')
          .map(([name, value]) => [name, Array.isArray(value) ? value.join(', ') : String(value)]),
      ),
      body: undefined,
      authorized: authorized(req),
      status: 0,
    };
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
        answer({ status: 422, body: errorBody({ url }, 'invalid JSON') });
        return;
      }
      if (!(req.headers['content-type'] ?? '').startsWith('application/json')) {
        violation('JSON body without content-type application/json');
      }
    }
    const faultAt = faults.findIndex(
      (f) => (f.method === '*' || f.method === method) && f.path.test(url.pathname),
    );
    if (faultAt >= 0) {
      const [fault] = faults.splice(faultAt, 1);
      answer({
        status: fault?.status ?? 500,
        body: fault?.body ?? errorBody({ url }, 'injected fault'),
        ...(fault?.headers ? { headers: fault.headers } : {}),
      });
      return;
    }
    if (!record.authorized) {
      answer({ status: 401, body: errorBody({ url }, 'token is required') });
      return;
    }
    const op = matchOperation(method, path);
    if (!op) {
      violation('no such operation in the Gitea API');
      answer({ status: 404, body: errorBody({ url }, 'not found') });
      return;
    }
    record.operationId = op.operationId;
    const problems = validateRequest(op, url.searchParams, record.body);
    if (problems.length > 0) {
      for (const p of problems) violation(`${op.operationId}: ${p}`);
      answer({ status: 422, body: errorBody({ url }, problems.join('; ')) });
      return;
    }
    const handler = handlerFor(op.operationId);
    if (!handler) {
      violation(`${op.operationId}: not implemented by the fake Gitea`);
      answer({ status: 404, body: errorBody({ url }, 'not found') });
      return;
    }
    const result = await handler({
      state,
      shape,
      params: op.params,
      url,
      body: record.body,
      user: bot,
      violation,
    });
    if (result.text === undefined && result.body !== undefined) {
      for (const p of validateResponse(op, result.status, result.body)) violation(`fake answer: ${p}`);
    }
    answer(result);
  }

  function handleGit(req: IncomingMessage, res: ServerResponse): void {
    const auth = req.headers.authorization ?? '';
    const username = auth.startsWith('Basic ')
      ? (Buffer.from(auth.slice(6), 'base64').toString('utf8').split(':')[0] ?? '')
      : '';
    const before = git.requests.length;
    git.handle(req, res);
    const seen = git.requests[before];
    if (seen) gitRequests.push({ ...seen, username });
  }

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', shape.baseUrl);
    const method = (req.method ?? 'GET').toUpperCase();
    const run = async () => {
      if (url.pathname.startsWith(`${API}/`)) return handleApi(req, res, url);
      if (/\.git(\/|$)/.test(url.pathname)) return handleGit(req, res);
      req.resume();
      violations.push({ method, path: url.pathname, message: 'not an API or git path' });
      send(res, { status: 404, body: errorBody({ url }, 'not found') });
    };
    run().catch((error: unknown) => {
      violations.push({ method, path: url.pathname, message: `fake error: ${String(error)}` });
      if (!res.headersSent) send(res, { status: 500, body: errorBody({ url }, 'internal error') });
      else res.end();
    });
  });
  await new Promise<void>((done, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => done());
  });
  shape.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  function addRepo(fullName: string, bareRepoPath: string): void {
    const [owner = '', name = ''] = fullName.split('/');
    if (state.findRepo(owner, name)) return;
    state.repos.push({
      id: state.nextId('repo'),
      owner: state.user(owner),
      name,
      fullName,
      bareRepoPath,
      defaultBranch: 'main',
    });
    const link = join(gitRoot, `${fullName}.git`);
    if (!existsSync(link)) {
      mkdirSync(dirname(link), { recursive: true });
      symlinkSync(bareRepoPath, link, 'dir');
    }
  }

  function findPull(repo: string, index: number): PullRecord {
    const [owner = '', name = ''] = repo.split('/');
    const r = state.findRepo(owner, name);
    const pull = r ? state.findPull(r, index) : undefined;
    if (!pull) throw new Error(`fake Gitea: no pull request ${repo}#${index}`);
    return pull;
  }

  return {
    url: shape.baseUrl,
    gitUrl: (repo) => `${shape.baseUrl}/${repo}.git`,
    requests,
    gitRequests,
    violations,
    comments: state.comments,
    reviews: state.reviews,
    codeComments: state.codeComments,
    reactions: state.reactions,
    statuses: state.statuses,
    writeRequests: () => requests.filter((r) => r.method !== 'GET' && r.method !== 'HEAD'),
    addRepo,
    addPullRequest(o) {
      if (o.bareRepoPath) addRepo(o.repo, o.bareRepoPath);
      const [owner = '', name = ''] = o.repo.split('/');
      const repo = state.findRepo(owner, name);
      if (!repo) throw new Error(`fake Gitea: unknown repository ${o.repo} (give bareRepoPath)`);
      state.pulls.push({
        id: state.nextId('pull'),
        index: o.index,
        repo,
        headBranch: o.headBranch,
        baseBranch: o.baseBranch,
        title: o.title,
        body: o.body ?? '',
        author: state.user(o.author ?? 'alice'),
        state: 'open',
        createdAt: state.now(),
      });
    },
    setPullRequestState(repo, index, next) {
      const pull = findPull(repo, index);
      pull.state = next;
      pull.updatedAt = state.now();
    },
    addComment(repo, index, author, body) {
      findPull(repo, index);
      const stored = { id: state.nextCommentId(), repo, index, author, body, createdAt: state.now() };
      state.comments.push(stored);
      return stored;
    },
    addCodeComment(seed) {
      const pull = findPull(seed.repo, seed.index);
      const parent =
        seed.inReplyTo !== undefined ? state.codeComments.find((c) => c.id === seed.inReplyTo) : undefined;
      if (seed.inReplyTo !== undefined && !parent)
        throw new Error(`fake Gitea: no code comment ${seed.inReplyTo}`);
      if (parent) {
        const reply = {
          ...parent,
          id: state.nextCommentId(),
          author: seed.author,
          body: seed.body,
          resolver: null,
          createdAt: state.now(),
        };
        state.codeComments.push(reply);
        return reply;
      }
      const review = {
        id: state.nextId('review'),
        repo: seed.repo,
        index: seed.index,
        author: seed.author,
        body: '',
        state: 'COMMENT',
        commitId: '',
        submittedAt: state.now(),
      };
      state.reviews.push(review);
      const comment = {
        id: state.nextCommentId(),
        reviewId: review.id,
        repo: seed.repo,
        index: pull.index,
        author: seed.author,
        body: seed.body,
        path: seed.path,
        line: seed.line,
        commitId: '',
        diffHunk: '',
        resolver: seed.resolved ? (seed.resolvedBy ?? seed.author) : null,
        createdAt: state.now(),
      };
      state.codeComments.push(comment);
      return comment;
    },
    async headSha(repo, index) {
      return (await pullShas(findPull(repo, index))).head;
    },
    setCodeWrite(enabled) {
      state.codeWrite = enabled;
    },
    setResolveEndpoint(enabled) {
      state.resolveEndpoint = enabled;
    },
    failNext(method, path, status, body, headers) {
      faults.push({ method, path, status, body, ...(headers ? { headers } : {}) });
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((done) => server.close(() => done()));
      rmSync(gitRoot, { recursive: true, force: true });
    },
  };
}
