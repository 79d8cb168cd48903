/**
 * `startFakeAzureDevOps`: a real `node:http` server on 127.0.0.1 answering like Azure DevOps
 * Services' REST API under a collection path for the operations reviewbot uses, as
 * `azure-devops-node-api` calls them: `OPTIONS <collection>/_apis/git` (resource locations: the
 * library builds every URL from these route templates and negotiates the api-version from them),
 * `GET _apis/connectionData`, then pull requests, iterations and their changes, items, threads and
 * comments, statuses, merge bases and commit diffs. Azure DevOps' rules on top: Basic auth with the
 * PAT (401 otherwise), the `api-version` in the Accept header must be 7.1 (400 otherwise), a thread's
 * `filePath` starts with `/` and its lines lie in the iteration's changes on their side, its
 * `changeTrackingId` is the file's. Collections are wrapped `{count, value}`; enums go out as
 * strings and come in as numbers or strings (the library sends numbers). Repositories are served
 * over git smart HTTP at `<collection>/<project>/_git/<repo>`.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { computeDiffFiles, gitOutput, type DiffFile } from '../fake-github/diff.js';
import { commitsBetween, fileAt, lineInPatch, mergeBase, revParse } from '../fake-bitbucket-cloud/git.js';
import { createGitHttpHandler } from '../git-http-server.js';
import type {
  AddPullRequest,
  FakeAzureOptions,
  GitRequest,
  RecordedRequest,
  StoredStatus,
  StoredThread,
  Violation,
} from './types.js';

/** Route templates of the resources used (Microsoft Learn REST reference URLs, area `git`). */
const LOCATIONS = [
  [
    '9946fd70-0d40-406e-b686-b4744cbbcc37',
    'pullRequests',
    '{project}/_apis/{area}/repositories/{repositoryId}/{resource}/{pullRequestId}',
  ],
  [
    'd43911ee-6958-46b0-a42b-8445b8a0d004',
    'iterations',
    '{project}/_apis/{area}/repositories/{repositoryId}/pullRequests/{pullRequestId}/{resource}/{iterationId}',
  ],
  [
    '4216bdcf-b6b1-4d59-8b82-c34cc183fc8b',
    'changes',
    '{project}/_apis/{area}/repositories/{repositoryId}/pullRequests/{pullRequestId}/iterations/{iterationId}/{resource}',
  ],
  [
    'fb93c0db-47ed-4a31-8c20-47552878fb44',
    'items',
    '{project}/_apis/{area}/repositories/{repositoryId}/{resource}/{*path}',
  ],
  [
    'ab6e2e5d-a0b7-4153-b64a-a4efe0d49449',
    'threads',
    '{project}/_apis/{area}/repositories/{repositoryId}/pullRequests/{pullRequestId}/{resource}/{threadId}',
  ],
  [
    '965a3ec7-5ed8-455a-bdcb-835a5ea7fe7b',
    'comments',
    '{project}/_apis/{area}/repositories/{repositoryId}/pullRequests/{pullRequestId}/threads/{threadId}/{resource}/{commentId}',
  ],
  [
    'b5f6bb4f-8d1e-4d79-8d11-4c9172c99c35',
    'statuses',
    '{project}/_apis/{area}/repositories/{repositoryId}/pullRequests/{pullRequestId}/{resource}/{statusId}',
  ],
  [
    '7cf2abb6-c964-4f7e-9872-f78c66e72e9c',
    'mergeBases',
    '{project}/_apis/{area}/repositories/{repositoryNameOrId}/commits/{commitId}/{resource}',
  ],
  [
    '615588d5-c0c7-4b88-88f8-e625306446e8',
    'diffs',
    '{project}/_apis/{area}/repositories/{repositoryId}/{resource}/commits',
  ],
  [
    '52823034-34a8-4576-922c-8d8b77e9e4c4',
    'commits',
    '{project}/_apis/{area}/repositories/{repositoryId}/pullRequests/{pullRequestId}/{resource}',
  ],
].map(([id, resourceName, routeTemplate]) => ({
  id,
  area: 'git',
  resourceName,
  routeTemplate,
  resourceVersion: 1,
  minVersion: '1.0',
  maxVersion: '7.2',
  releasedVersion: '7.1',
}));

const THREAD_STATUS = ['unknown', 'active', 'fixed', 'wontFix', 'closed', 'byDesign', 'pending'];
const STATUS_STATE = ['notSet', 'pending', 'succeeded', 'failed', 'error', 'notApplicable'];

interface Iteration {
  id: number;
  source: string;
  target: string;
  common: string;
}
interface Pull extends AddPullRequest {
  repoId: string;
  threads: StoredThread[];
  statuses: StoredStatus[];
  iterations: Iteration[];
}
interface Answer {
  status: number;
  body?: unknown;
  text?: string;
}

const error = (status: number, message: string): Answer => ({
  status,
  body: { $id: '1', message, typeKey: 'InvalidArgumentValueException', errorCode: 0 },
});
const wrap = (value: unknown[]): Answer => ({ status: 200, body: { count: value.length, value } });
const enumName = (names: string[], v: unknown) =>
  typeof v === 'number' ? (names[v] ?? String(v)) : String(v);

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
  const git = createGitHttpHandler({ projectRoot: gitRoot, password: options.token, prefix: collection });
  const auth = `Basic ${Buffer.from(`:${options.token}`).toString('base64')}`;
  const pulls = new Map<string, Pull>();
  const requests: RecordedRequest[] = [];
  const gitRequests: GitRequest[] = [];
  const violations: Violation[] = [];
  let url = '';
  let nextThread = 1;
  let challenged = false;

  function findPull(project: string, repo: string, id: number): Pull | undefined {
    const pull = pulls.get(`${project}/${repo}#${id}`);
    return pull;
  }

  /** The pull request's iterations, with a new one when its head branch moved. */
  async function iterate(pull: Pull): Promise<Iteration[]> {
    const source = (await revParse(pull.bareRepoPath, `refs/heads/${pull.headBranch}`)) ?? '';
    const target = (await revParse(pull.bareRepoPath, `refs/heads/${pull.baseBranch}`)) ?? '';
    const last = pull.iterations.at(-1);
    if (!last || last.source !== source) {
      const common = await mergeBase(pull.bareRepoPath, source, target);
      pull.iterations.push({ id: pull.iterations.length + 1, source, target, common });
    }
    return pull.iterations;
  }

  async function changesOf(pull: Pull, it: Iteration): Promise<DiffFile[]> {
    return computeDiffFiles(pull.bareRepoPath, it.common, it.source);
  }

  function repoJson(pull: Pull) {
    return {
      id: pull.repoId,
      name: pull.repo,
      url: `${url}${collection}/_apis/git/repositories/${pull.repoId}`,
      project: { id: '00000000-0000-4000-8000-000000000001', name: pull.project, state: 'wellFormed' },
      remoteUrl: `http://acme@127.0.0.1:${new URL(url).port}${collection}/${encodeURIComponent(pull.project)}/_git/${encodeURIComponent(pull.repo)}`,
      webUrl: `${url}${collection}/${encodeURIComponent(pull.project)}/_git/${encodeURIComponent(pull.repo)}`,
    };
  }

  const identity = (name: string, id: string) => ({ id, uniqueName: name, displayName: name });

  async function prJson(pull: Pull) {
    const its = await iterate(pull);
    const last = its.at(-1) as Iteration;
    return {
      pullRequestId: pull.id,
      codeReviewId: pull.id,
      status: 'active',
      createdBy: identity(pull.author ?? 'alice@example.com', '11111111-2222-4333-8444-555555555555'),
      creationDate: new Date(0).toISOString(),
      title: pull.title ?? 'A pull request',
      description: pull.description ?? '',
      sourceRefName: `refs/heads/${pull.headBranch}`,
      targetRefName: `refs/heads/${pull.baseBranch}`,
      mergeStatus: 'succeeded',
      isDraft: false,
      lastMergeSourceCommit: { commitId: last.source },
      lastMergeTargetCommit: { commitId: last.target },
      repository: repoJson(pull),
      url: `${url}${collection}/_apis/git/repositories/${pull.repoId}/pullRequests/${pull.id}`,
    };
  }

  function threadJson(thread: StoredThread) {
    return {
      ...thread,
      publishedDate: thread.comments[0]?.publishedDate,
      isDeleted: false,
      comments: thread.comments.map((c) => ({
        ...c,
        author: identity(c.author, c.authorId),
        commentType: 'text',
        isDeleted: false,
      })),
    };
  }

  /** Why a new thread's context is refused, or undefined. */
  async function badContext(pull: Pull, body: Record<string, unknown>): Promise<string | undefined> {
    const ctx = body.threadContext as Record<string, { line?: number; offset?: number } | string> | undefined;
    if (!ctx) return undefined;
    const filePath = ctx.filePath;
    if (typeof filePath !== 'string' || !filePath.startsWith('/'))
      return 'threadContext.filePath must start with /';
    const its = await iterate(pull);
    const prc = body.pullRequestThreadContext as
      | {
          changeTrackingId?: number;
          iterationContext?: { firstComparingIteration?: number; secondComparingIteration?: number };
        }
      | undefined;
    const second = prc?.iterationContext?.secondComparingIteration ?? its.length;
    const it = its[second - 1];
    if (!it) return 'iterationContext names no iteration';
    const files = await changesOf(pull, it);
    const index = files.findIndex((f) => `/${f.filename}` === filePath);
    if (index < 0) return 'the file is not among the iteration changes';
    if (prc?.changeTrackingId !== undefined && prc.changeTrackingId !== index + 1)
      return 'wrong changeTrackingId';
    for (const [key, side] of [
      ['rightFileStart', 'to'],
      ['rightFileEnd', 'to'],
      ['leftFileStart', 'from'],
      ['leftFileEnd', 'from'],
    ] as const) {
      const pos = ctx[key];
      if (pos === undefined) continue;
      if (typeof pos !== 'object' || !pos.line || !pos.offset) return `${key} needs line and offset`;
      if (!lineInPatch(files[index], side, pos.line)) return `${key} line ${pos.line} is not in the changes`;
    }
    return undefined;
  }

  async function route(method: string, u: URL, body: Record<string, unknown>): Promise<Answer> {
    const path = u.pathname.slice(collection.length);
    if (method === 'GET' && path === '/_apis/connectionData') {
      const user = {
        id: botId,
        descriptor: `Microsoft.IdentityModel.Claims.ClaimsIdentity;${botName}`,
        providerDisplayName: 'Review Bot',
        isActive: true,
        properties: { Account: { $type: 'System.String', $value: botName } },
      };
      return {
        status: 200,
        body: { authenticatedUser: user, authorizedUser: user, instanceId: botId, deploymentType: 'hosted' },
      };
    }
    const m = /^\/([^/]+)\/_apis\/git\/repositories\/([^/]+)\/(.*)$/.exec(path);
    if (!m) return error(404, 'no such resource');
    const project = decodeURIComponent(m[1] ?? '');
    const repo = decodeURIComponent(m[2] ?? '');
    const rest = m[3] ?? '';
    const anyPull = [...pulls.values()].find(
      (p) => p.project === project && (p.repo === repo || p.repoId === repo),
    );
    if (!anyPull)
      return error(404, `TF401019: The Git repository with name or identifier ${repo} does not exist`);
    const bare = anyPull.bareRepoPath;
    if (method === 'GET' && rest === 'items') {
      const version = u.searchParams.get('versionDescriptor.version') ?? '';
      const type = u.searchParams.get('versionDescriptor.versionType');
      if (type !== '2' && type !== 'commit')
        return error(400, 'versionDescriptor.versionType must be commit');
      const file = await fileAt(bare, version, (u.searchParams.get('path') ?? '').replace(/^\/+/, ''));
      return file === undefined
        ? error(404, 'TF401174: The item could not be found')
        : { status: 200, text: file };
    }
    const mb = /^commits\/([0-9a-f]{40})\/mergeBases$/i.exec(rest);
    if (method === 'GET' && mb) {
      const other = u.searchParams.get('otherCommitId') ?? '';
      const a = await revParse(bare, mb[1] ?? '');
      const b = await revParse(bare, other);
      if (!a || !b) return error(404, 'commit not found');
      return wrap([{ commitId: await mergeBase(bare, a, b) }]);
    }
    if (method === 'GET' && rest === 'diffs/commits') {
      const base = await revParse(bare, u.searchParams.get('baseVersion') ?? '');
      const target = await revParse(bare, u.searchParams.get('targetVersion') ?? '');
      if (!base || !target) return error(404, 'commit not found');
      const files = await computeDiffFiles(bare, base, target);
      return {
        status: 200,
        body: {
          allChangesIncluded: true,
          changes: files.map((f) => ({
            item: { path: `/${f.filename}`, gitObjectType: 'blob' },
            changeType: changeType(f),
          })),
          commonCommit: await mergeBase(bare, base, target),
        },
      };
    }
    const pr = /^pullRequests\/(\d+)(?:\/(.*))?$/.exec(rest);
    if (!pr) return error(404, 'no such resource');
    const pull = findPull(project, anyPull.repo, Number(pr[1]));
    if (!pull) return error(404, `TF401180: The requested pull request was not found.`);
    const sub = pr[2] ?? '';
    if (method === 'GET' && sub === '') return { status: 200, body: await prJson(pull) };
    if (method === 'GET' && sub === 'iterations') {
      const its = await iterate(pull);
      return wrap(
        its.map((it) => ({
          id: it.id,
          sourceRefCommit: { commitId: it.source },
          targetRefCommit: { commitId: it.target },
          commonRefCommit: { commitId: it.common },
        })),
      );
    }
    const ch = /^iterations\/(\d+)\/changes$/.exec(sub);
    if (method === 'GET' && ch) {
      const it = (await iterate(pull))[Number(ch[1]) - 1];
      if (!it) return error(404, 'no such iteration');
      const files = await changesOf(pull, it);
      return {
        status: 200,
        body: {
          changeEntries: files.map((f, i) => ({
            changeTrackingId: i + 1,
            changeId: i + 1,
            item: { objectId: f.sha, path: `/${f.filename}` },
            changeType: changeType(f),
            ...(f.previousFilename ? { originalPath: `/${f.previousFilename}` } : {}),
          })),
        },
      };
    }
    if (method === 'GET' && sub === 'commits') {
      const its = await iterate(pull);
      const last = its.at(-1) as Iteration;
      const shas = await commitsBetween(bare, last.target, last.source);
      return wrap(shas.map((commitId) => ({ commitId })));
    }
    if (method === 'GET' && sub === 'threads') return wrap(pull.threads.map(threadJson));
    if (method === 'POST' && sub === 'threads') {
      const why = await badContext(pull, body);
      if (why) return error(400, why);
      const comments =
        (body.comments as Array<{ content?: string; parentCommentId?: number }> | undefined) ?? [];
      const thread: StoredThread = {
        id: nextThread++,
        status: enumName(THREAD_STATUS, body.status ?? 1),
        ...(body.threadContext ? { threadContext: body.threadContext as Record<string, unknown> } : {}),
        ...(body.pullRequestThreadContext
          ? { pullRequestThreadContext: body.pullRequestThreadContext as Record<string, unknown> }
          : {}),
        comments: comments.map((c, i) => ({
          id: i + 1,
          parentCommentId: c.parentCommentId ?? 0,
          content: c.content ?? '',
          author: botName,
          authorId: botId,
          publishedDate: new Date().toISOString(),
        })),
      };
      pull.threads.push(thread);
      return { status: 200, body: threadJson(thread) };
    }
    const th = /^threads\/(\d+)(\/comments)?$/.exec(sub);
    const thread = th ? pull.threads.find((t) => t.id === Number(th[1])) : undefined;
    if (th && !thread) return error(404, 'thread not found');
    if (thread && method === 'PATCH' && !th?.[2]) {
      if (body.status !== undefined) thread.status = enumName(THREAD_STATUS, body.status);
      return { status: 200, body: threadJson(thread) };
    }
    if (thread && method === 'POST' && th?.[2]) {
      const comment = {
        id: thread.comments.length + 1,
        parentCommentId: Number(body.parentCommentId ?? 0),
        content: String(body.content ?? ''),
        author: botName,
        authorId: botId,
        publishedDate: new Date().toISOString(),
      };
      thread.comments.push(comment);
      return { status: 200, body: { ...comment, author: identity(botName, botId), commentType: 'text' } };
    }
    if (method === 'POST' && sub === 'statuses') {
      const context = (body.context ?? {}) as StoredStatus['context'];
      if (!context.name) return error(400, 'context.name is required');
      const status: StoredStatus = {
        state: enumName(STATUS_STATE, body.state),
        context,
        ...(typeof body.description === 'string' ? { description: body.description } : {}),
        ...(typeof body.targetUrl === 'string' ? { targetUrl: body.targetUrl } : {}),
        ...(typeof body.iterationId === 'number' ? { iterationId: body.iterationId } : {}),
      };
      pull.statuses.push(status);
      return { status: 200, body: { id: pull.statuses.length, ...status } };
    }
    return error(405, `${method} ${sub} not supported`);
  }

  async function handleApi(req: IncomingMessage, res: ServerResponse, u: URL): Promise<void> {
    const method = (req.method ?? 'GET').toUpperCase();
    const raw = await readBody(req);
    const record: RecordedRequest = { method, path: u.pathname, status: 0, body: undefined };
    requests.push(record);
    const send = (a: Answer) => {
      record.status = a.status;
      const text = a.text ?? (a.body !== undefined ? JSON.stringify(a.body) : '');
      res.writeHead(a.status, {
        'content-type': a.text !== undefined ? 'application/octet-stream' : 'application/json; charset=utf-8',
      });
      res.end(text);
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
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

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
      const repoId = `${'0'.repeat(8)}-0000-4000-8000-${String(pulls.size + 1).padStart(12, '0')}`;
      pulls.set(`${pr.project}/${pr.repo}#${pr.id}`, {
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
    threads: (project: string, repo: string, id: number) => findPull(project, repo, id)?.threads ?? [],
    statuses: (project: string, repo: string, id: number) => findPull(project, repo, id)?.statuses ?? [],
    /** Adds a thread started by another user, as the web UI would. */
    addThread(project: string, repo: string, id: number, author: string, authorId: string, content: string) {
      const pull = findPull(project, repo, id);
      if (!pull) throw new Error('fake Azure DevOps: no such pull request');
      const thread: StoredThread = {
        id: nextThread++,
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
    violations,
    writeRequests: () => requests.filter((r) => r.method !== 'GET' && r.method !== 'OPTIONS'),
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(gitRoot, { recursive: true, force: true });
    },
  };
}

function changeType(f: DiffFile): string {
  if (f.status === 'added') return 'add';
  if (f.status === 'removed') return 'delete';
  if (f.status === 'renamed') return f.additions + f.deletions > 0 ? 'edit, rename' : 'rename';
  return 'edit';
}

export { gitOutput };
