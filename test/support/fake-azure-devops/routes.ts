/**
 * The fake Azure DevOps' resources: pull requests with iterations made from the bare repository
 * (a new one whenever the head branch moved), iteration changes, items, threads and comments,
 * statuses, merge bases and commit diffs, answered in the service's wire shapes.
 */
import { computeDiffFiles, type DiffFile } from '../fake-github/diff.js';
import { commitsBetween, fileAt, mergeBase, revParse } from '../fake-bitbucket-cloud/git.js';
import { badAnchor } from './anchors.js';
import { listPullRequests } from './routes-list.js';
import {
  changeType,
  enumName,
  error,
  STATUS_STATE,
  THREAD_STATUS,
  wrap,
  type Answer,
  type Iteration,
  type Pull,
} from './protocol.js';
import type { StoredStatus, StoredThread, Violation } from './types.js';
import {
  commentCreateProblem,
  statusCreateProblem,
  threadCreateProblem,
  threadUpdateProblem,
} from './validate.js';

/** What the routes share with the server. */
export interface World {
  url: string;
  collection: string;
  botId: string;
  botName: string;
  pulls: Map<string, Pull>;
  nextThread: number;
  /** Where a request Azure DevOps would refuse is recorded (see `validate.ts`). */
  violations: Violation[];
}

/** The resource handlers over `world`. */
export function createRoutes(world: World) {
  const { collection, botId, botName, pulls } = world;

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
      url: `${world.url}${collection}/_apis/git/repositories/${pull.repoId}`,
      project: { id: '00000000-0000-4000-8000-000000000001', name: pull.project, state: 'wellFormed' },
      remoteUrl: `http://acme@127.0.0.1:${new URL(world.url).port}${collection}/${encodeURIComponent(pull.project)}/_git/${encodeURIComponent(pull.repo)}`,
      webUrl: `${world.url}${collection}/${encodeURIComponent(pull.project)}/_git/${encodeURIComponent(pull.repo)}`,
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
      url: `${world.url}${collection}/_apis/git/repositories/${pull.repoId}/pullRequests/${pull.id}`,
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

  /** Azure DevOps' 400 for a body it refuses, recorded as a violation; undefined when `why` is. */
  function refused(method: string, u: URL, why: string | undefined): Answer | undefined {
    if (why === undefined) return undefined;
    world.violations.push({ method, path: u.pathname, message: why });
    return error(400, why);
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
      const itemPath = (u.searchParams.get('path') ?? '').replace(/^\/+/, '');
      const file = await fileAt(bare, version, itemPath);
      return file === undefined
        ? error(404, 'TF401174: The item could not be found')
        : { status: 200, text: file, item: { path: itemPath, version } };
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
    if (method === 'GET' && rest.toLowerCase() === 'pullrequests') {
      const all = [...pulls.values()].filter((p) => p.project === project && p.repo === anyPull.repo);
      return listPullRequests(all, u, prJson);
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
      const bad = refused(method, u, threadCreateProblem(body));
      if (bad) return bad;
      const why = await badAnchor(await iterate(pull), body, (from, to) =>
        computeDiffFiles(pull.bareRepoPath, from, to),
      );
      if (why) return error(400, why);
      const comments =
        (body.comments as Array<{ content?: string; parentCommentId?: number }> | undefined) ?? [];
      const thread: StoredThread = {
        id: world.nextThread++,
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
      const bad = refused(method, u, threadUpdateProblem(body));
      if (bad) return bad;
      if (body.status !== undefined) thread.status = enumName(THREAD_STATUS, body.status);
      return { status: 200, body: threadJson(thread) };
    }
    if (thread && method === 'POST' && th?.[2]) {
      const bad = refused(method, u, commentCreateProblem(body));
      if (bad) return bad;
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
      const bad = refused(method, u, statusCreateProblem(body));
      if (bad) return bad;
      const context = body.context as StoredStatus['context'];
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

  return { findPull, prJson, route };
}
