/**
 * `startFakeAzureDevOps`: a real `node:http` server on 127.0.0.1 answering like Azure DevOps
 * Services' REST API under a collection path for the operations reviewbot uses, as
 * `azure-devops-node-api` calls them: `OPTIONS <collection>/_apis/git` (resource locations: the
 * library builds every URL from these route templates and negotiates the api-version from them),
 * `GET _apis/connectionData`, then pull requests, iterations and their changes, items, threads and
 * comments, statuses, merge bases and commit diffs. Azure DevOps' rules on top: Basic auth with the
 * PAT, or Bearer with a pipeline's job access token (`scheme: 'bearer'`) (401 otherwise), the
 * `api-version` in the Accept header must be 7.1 (400 otherwise), a thread's `filePath` starts
 * with `/`, its `iterationContext` names a comparison the service would place its lines in and its
 * lines lie in those changes on their side (anchors.ts), its `changeTrackingId` is the file's;
 * errors come as Azure's `WrappedException` bodies. Item contents are recorded (`itemReads`), large
 * ones streamed, so a download cut short shows. Collections are wrapped `{count, value}`; enums go
 * out as strings and come in as numbers or strings (the library sends numbers). Repositories are
 * served over git smart HTTP at `<collection>/<project>/_git/<repo>`.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createGitHttpHandler } from '../git-http-server.js';
import { createFaults } from './faults.js';
import { LOCATIONS, error, wrap, type Answer } from './protocol.js';
import { createRoutes, type World } from './routes.js';
import { setLifecycle } from './routes-list.js';
import type {
  AddPullRequest,
  FakeAzureOptions,
  GitRequest,
  ItemRead,
  RecordedRequest,
  StoredThread,
  Violation,
} from './types.js';

/** Item bodies larger than this (bytes) are streamed in `ITEM_CHUNK_BYTES` chunks, one per tick. */
export const STREAMED_ITEM_BYTES = 1024 * 1024;
const ITEM_CHUNK_BYTES = 64 * 1024;

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** The running fake. */
export type FakeAzureDevOps = Awaited<ReturnType<typeof startFakeAzureDevOps>>;

/** Starts the fake on a free port; `close()` stops it and removes its temporary directory. */
export async function startFakeAzureDevOps(options: FakeAzureOptions) {
  const collection = options.collection ?? '/acme';
  const botId = options.botId ?? '6f9619ff-8b86-d011-b42d-00cf4fc964ff';
  const botName = options.botUniqueName ?? 'reviewbot@example.com';
  const gitRoot = mkdtempSync(join(tmpdir(), 'fake-azure-git-'));
  const scheme = options.scheme ?? 'basic';
  const git = createGitHttpHandler({
    projectRoot: gitRoot,
    password: options.token,
    prefix: collection,
    scheme,
  });
  const auth =
    scheme === 'bearer'
      ? `Bearer ${options.token}`
      : `Basic ${Buffer.from(`:${options.token}`).toString('base64')}`;
  const violations: Violation[] = [];
  const world: World = { url: '', collection, botId, botName, pulls: new Map(), nextThread: 1, violations };
  const { findPull, prJson, route } = createRoutes(world);
  const requests: RecordedRequest[] = [];
  const gitRequests: GitRequest[] = [];
  const itemReads: ItemRead[] = [];
  const faults = createFaults();
  let challenged = false;

  /** Writes an item's `body`, a large one chunk by chunk, recording how much went out. */
  function sendItem(res: ServerResponse, item: { path: string; version: string }, body: Buffer): void {
    const read: ItemRead = { ...item, size: body.length, sent: 0, complete: false };
    itemReads.push(read);
    res.on('close', () => {
      read.complete = res.writableFinished;
    });
    if (body.length <= STREAMED_ITEM_BYTES) {
      read.sent = body.length;
      res.end(body);
      return;
    }
    const next = () => {
      if (res.destroyed) return;
      const chunk = body.subarray(read.sent, read.sent + ITEM_CHUNK_BYTES);
      read.sent += chunk.length;
      if (read.sent >= body.length) res.end(chunk);
      else if (res.write(chunk)) setTimeout(next, 1);
      else res.once('drain', () => setTimeout(next, 1));
    };
    next();
  }

  async function handleApi(req: IncomingMessage, res: ServerResponse, u: URL): Promise<void> {
    const method = (req.method ?? 'GET').toUpperCase();
    const raw = await readBody(req);
    const record: RecordedRequest = { method, path: u.pathname, status: 0, body: undefined };
    requests.push(record);
    const injected = faults.answer(method, u.pathname, res);
    if (injected !== undefined) {
      record.status = injected;
      return;
    }
    const send = (a: Answer) => {
      record.status = a.status;
      const text = a.text ?? (a.body !== undefined ? JSON.stringify(a.body) : '');
      res.writeHead(a.status, {
        'content-type': a.text !== undefined ? 'application/octet-stream' : 'application/json; charset=utf-8',
      });
      if (a.item) sendItem(res, a.item, Buffer.from(text, 'utf8'));
      else res.end(text);
    };
    if (req.headers.authorization !== auth) {
      res.writeHead(401, { 'www-authenticate': 'Basic realm="https://dev.azure.com/"' });
      record.status = 401;
      res.end();
      return;
    }
    if (method === 'OPTIONS') {
      if (u.pathname === `${collection}/_apis/git`) return send(wrap(LOCATIONS));
      return send(wrap([]));
    }
    let body: Record<string, unknown> = {};
    if (raw.length > 0) {
      try {
        body = JSON.parse(raw.toString('utf8')) as Record<string, unknown>;
        record.body = body;
      } catch {
        violations.push({ method, path: u.pathname, message: 'body is not JSON' });
        return send(error(400, 'invalid JSON'));
      }
    }
    if (u.pathname !== `${collection}/_apis/connectionData`) {
      const version =
        /api-version=([^;,\s]+)/.exec(req.headers.accept ?? '')?.[1] ?? u.searchParams.get('api-version');
      if (version !== '7.1') {
        violations.push({
          method,
          path: u.pathname,
          message: `api-version ${String(version)} instead of 7.1`,
        });
        return send(error(400, 'VssVersionOutOfRangeException: api-version'));
      }
    }
    send(await route(method, u, body));
  }

  const server = createServer((req, res) => {
    const u = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (u.pathname.includes('/_git/')) {
      const authorized = req.headers.authorization === auth;
      if (!authorized) challenged = true;
      const before = git.requests.length;
      // git http-backend serves <root>/<project>/<repo> (bare repositories linked there).
      req.url = (req.url ?? '').replace('/_git/', '/');
      git.handle(req, res);
      const seen = git.requests[before];
      if (seen)
        gitRequests.push({
          path: seen.path,
          authorized,
          service: seen.service,
          preemptive: authorized && !challenged,
        });
      return;
    }
    handleApi(req, res, u).catch((e: unknown) => {
      if (!res.headersSent) {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ message: e instanceof Error ? e.message : String(e) }));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  world.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const url = world.url;

  return {
    url,
    /** `AZURE_DEVOPS_URL`. */
    collectionUrl: `${url}${collection}`,
    botId,
    botName,
    addPullRequest(pr: AddPullRequest) {
      const link = join(gitRoot, pr.project, pr.repo);
      mkdirSync(dirname(link), { recursive: true });
      try {
        symlinkSync(pr.bareRepoPath, link);
      } catch {
        // linked by an earlier pull request of the repository
      }
      const repoId = `${'0'.repeat(8)}-0000-4000-8000-${String(world.pulls.size + 1).padStart(12, '0')}`;
      world.pulls.set(`${pr.project}/${pr.repo}#${pr.id}`, {
        ...pr,
        repoId,
        threads: [],
        statuses: [],
        iterations: [],
      });
    },
    /** The pull request as the API (and a service hook's `resource`) shows it now. */
    async pullRequestJson(project: string, repo: string, id: number) {
      const pull = findPull(project, repo, id);
      if (!pull) throw new Error('fake Azure DevOps: no such pull request');
      return prJson(pull);
    },
    /** Completes (merges) or abandons the pull request now, or reactivates it. */
    setPullRequestStatus(
      project: string,
      repo: string,
      id: number,
      status: 'active' | 'completed' | 'abandoned',
    ) {
      const pull = findPull(project, repo, id);
      if (!pull) throw new Error('fake Azure DevOps: no such pull request');
      setLifecycle(pull, status);
    },
    threads: (project: string, repo: string, id: number) => findPull(project, repo, id)?.threads ?? [],
    statuses: (project: string, repo: string, id: number) => findPull(project, repo, id)?.statuses ?? [],
    /** Adds a thread started by another user, as the web UI would. */
    addThread(project: string, repo: string, id: number, author: string, authorId: string, content: string) {
      const pull = findPull(project, repo, id);
      if (!pull) throw new Error('fake Azure DevOps: no such pull request');
      const thread: StoredThread = {
        id: world.nextThread++,
        status: 'active',
        comments: [
          { id: 1, parentCommentId: 0, content, author, authorId, publishedDate: new Date().toISOString() },
        ],
      };
      pull.threads.push(thread);
      return thread;
    },
    requests,
    gitRequests,
    /** Item content downloads, in order (see `ItemRead`). */
    itemReads,
    violations,
    writeRequests: () => requests.filter((r) => r.method !== 'GET' && r.method !== 'OPTIONS'),
    failNext: faults.failNext,
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(gitRoot, { recursive: true, force: true });
    },
  };
}
