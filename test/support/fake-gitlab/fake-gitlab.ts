/**
 * `startFakeGitLab`: a real `node:http` server on 127.0.0.1 answering like a GitLab instance for the
 * REST v4 operations reviewbot uses (with GitLab's shapes, pagination, `PRIVATE-TOKEN` check, the
 * token user's role (`options.role`) and 400 on diff positions GitLab would refuse), and serving the projects over git smart HTTP at
 * `<url>/<group>/<sub>/<project>.git` (Basic auth: any user, the token as password).
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createGitHttpHandler } from '../git-http-server.js';
import { currentVersion } from './diff.js';
import { listRoutes } from './handlers-list.js';
import { memoryRoutes } from './handlers-memory.js';
import { mergeRequestRoutes } from './handlers-mr.js';
import { commitStatusJson, statusRoutes } from './handlers-statuses.js';
import { appendNote, createDiscussion, noteRoutes } from './handlers-notes.js';
import { createRequestListener, type Fault, type PipelineDeps } from './server.js';
import type { ShapeContext } from './shapes.js';
import { createState, type DiscussionRecord, type ProjectRecord } from './state.js';
import type { FakeGitLab, FakeGitLabOptions, RecordedRequest, StoredNote, Violation } from './types.js';
import { mergeRequestHookPayload, noteHookPayload } from './webhook-payloads.js';

/** Starts the fake on a free port. Call `close()` when done; it removes the fake's temporary directory. */
export async function startFakeGitLab(options: FakeGitLabOptions): Promise<FakeGitLab> {
  const state = createState();
  const shape: ShapeContext = { baseUrl: '' };
  const gitRoot = mkdtempSync(join(tmpdir(), 'fake-gitlab-git-'));
  const git = createGitHttpHandler({ projectRoot: gitRoot, password: options.token });
  const requests: RecordedRequest[] = [];
  const violations: Violation[] = [];
  const faults: Fault[] = [];
  const deps: PipelineDeps = {
    state,
    shape,
    routes: [...mergeRequestRoutes, ...listRoutes, ...noteRoutes, ...memoryRoutes, ...statusRoutes],
    token: options.token,
    user: state.user(options.username ?? 'reviewbot-bot'),
    role: options.role ?? 'developer',
    handleGit: (req, res) => git.handle(req, res),
    requests,
    violations,
    faults,
  };
  const server = createServer(createRequestListener(deps));
  await new Promise<void>((resolveListen, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolveListen());
  });
  shape.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  function addProject(path: string, bareRepoPath: string, defaultBranch = 'main'): ProjectRecord {
    const existing = state.findProject(path);
    if (existing) return existing;
    const project: ProjectRecord = { id: state.nextId('project'), path, bareRepoPath, defaultBranch };
    state.projects.push(project);
    const link = join(gitRoot, `${path}.git`);
    if (!existsSync(link)) {
      mkdirSync(dirname(link), { recursive: true });
      symlinkSync(bareRepoPath, link, 'dir');
    }
    return project;
  }

  function requireProject(path: string, bareRepoPath?: string): ProjectRecord {
    const found = state.findProject(path);
    if (found) return found;
    if (!bareRepoPath) throw new Error(`fake GitLab: unknown project ${path} (give bareRepoPath)`);
    return addProject(path, bareRepoPath);
  }

  function findMr(project: string, iid: number) {
    const mr = state.findMergeRequest(requireProject(project), iid);
    if (!mr) throw new Error(`fake GitLab: no merge request ${project}!${iid}`);
    return mr;
  }

  function storedNotes(filter: (d: DiscussionRecord) => boolean): StoredNote[] {
    return state.discussions.filter(filter).flatMap((d) =>
      d.notes.map((n) => ({
        id: n.id,
        discussion_id: d.id,
        type: n.type,
        body: n.body,
        author: n.author.username,
        system: n.system,
        project: d.mr.project.path,
        iid: d.mr.iid,
        ...(n.position ? { position: n.position } : {}),
        created_at: n.createdAt,
      })),
    );
  }

  return {
    url: shape.baseUrl,
    gitUrl: (path) => `${shape.baseUrl}/${path}.git`,
    requests,
    gitRequests: git.requests,
    violations,
    get quickActions() {
      return state.quickActions;
    },
    get discussions() {
      return state.discussions.map((d) => ({
        id: d.id,
        individual_note: d.individualNote,
        resolved: d.resolved,
        project: d.mr.project.path,
        iid: d.mr.iid,
        notes: storedNotes((x) => x === d),
      }));
    },
    get notes() {
      return storedNotes(() => true).sort((a, b) => a.id - b.id);
    },
    get diffNotes() {
      return storedNotes(() => true)
        .filter((n) => n.type === 'DiffNote')
        .sort((a, b) => a.id - b.id);
    },
    get awards() {
      return state.awards.map((a) => ({
        id: a.id,
        name: a.name,
        user: a.user.username,
        noteId: a.note.id,
        project: a.mr.project.path,
        iid: a.mr.iid,
      }));
    },
    get statuses() {
      return state.statuses.map((s) => ({ ...commitStatusJson({ shape }, s), project: s.project.path }));
    },
    writeRequests: () => requests.filter((r) => r.method !== 'GET' && r.method !== 'HEAD'),
    addProject: (o) => ({ id: addProject(o.path, o.bareRepoPath, o.defaultBranch).id }),
    async addMergeRequest(o) {
      const project = requireProject(o.project, o.bareRepoPath);
      const sourceProject = o.sourceProject
        ? requireProject(o.sourceProject.path, o.sourceProject.bareRepoPath)
        : project;
      if (state.findMergeRequest(project, o.iid))
        throw new Error(`fake GitLab: ${o.project}!${o.iid} exists`);
      const mr = {
        id: state.nextId('mr'),
        iid: o.iid,
        project,
        sourceProject,
        sourceBranch: o.sourceBranch,
        targetBranch: o.targetBranch,
        title: o.title,
        description: o.description ?? '',
        author: state.user(o.author ?? 'alice'),
        state: o.state ?? 'opened',
        draft: o.draft ?? false,
        tooLarge: new Set(o.tooLarge ?? []),
        versions: [],
        createdAt: state.now(),
      };
      await currentVersion(state, mr);
      state.mergeRequests.push(mr);
      return { id: mr.id, iid: mr.iid };
    },
    setMergeRequestState(project, iid, next) {
      const mr = findMr(project, iid);
      mr.state = next;
      mr.updatedAt = state.now();
    },
    resolveDiscussion(discussionId, username) {
      const discussion = state.discussions.find((d) => d.id === discussionId);
      if (!discussion?.notes.some((n) => n.resolvable)) {
        throw new Error(`fake GitLab: no resolvable discussion ${discussionId}`);
      }
      discussion.resolved = true;
      discussion.resolvedBy = state.user(username);
    },
    awardEmoji(noteId, name, username) {
      const discussion = state.discussions.find((d) => d.notes.some((n) => n.id === noteId));
      const note = discussion?.notes.find((n) => n.id === noteId);
      if (!discussion || !note) throw new Error(`fake GitLab: no note ${noteId}`);
      const award = { id: state.nextId('award'), name, user: state.user(username), note, mr: discussion.mr };
      state.awards.push({ ...award, createdAt: state.now() });
    },
    addNote(seed) {
      const mr = findMr(seed.project, seed.iid);
      const author = state.user(seed.author);
      if (seed.discussionId) {
        const discussion = state.discussions.find((d) => d.mr === mr && d.id === seed.discussionId);
        if (!discussion) throw new Error(`fake GitLab: no discussion ${seed.discussionId}`);
        return { noteId: appendNote(state, discussion, author, seed.body).id, discussionId: discussion.id };
      }
      const version = mr.versions.at(-1);
      const position =
        seed.position && version
          ? {
              base_sha: version.baseSha,
              start_sha: version.startSha,
              head_sha: version.headSha,
              old_path: seed.position.oldPath ?? seed.position.newPath,
              new_path: seed.position.newPath,
              position_type: 'text',
              old_line: seed.position.oldLine ?? null,
              new_line: seed.position.newLine ?? null,
              line_range: null,
            }
          : undefined;
      const discussion = createDiscussion(state, mr, author, seed.body, {
        individualNote: !position && !seed.thread,
        ...(seed.system ? { system: true } : {}),
        ...(position ? { position, commitId: version?.headSha ?? '' } : {}),
        ...(seed.resolved ? { resolved: true } : {}),
      });
      if (seed.resolved && seed.resolvedBy) discussion.resolvedBy = state.user(seed.resolvedBy);
      return { noteId: discussion.notes[0]?.id ?? 0, discussionId: discussion.id };
    },
    async diffRefs(project, iid) {
      const version = await currentVersion(state, findMr(project, iid));
      return { base_sha: version.baseSha, start_sha: version.startSha, head_sha: version.headSha };
    },
    async noteHook(noteId) {
      const discussion = state.discussions.find((d) => d.notes.some((n) => n.id === noteId));
      const note = discussion?.notes.find((n) => n.id === noteId);
      if (!discussion || !note) throw new Error(`fake GitLab: no note ${noteId}`);
      return noteHookPayload(shape, state, discussion, note);
    },
    async mergeRequestHook(project, iid, action, oldrev) {
      return mergeRequestHookPayload(shape, state, findMr(project, iid), action, oldrev);
    },
    failNext(method, path, status, body, headers) {
      faults.push({ method, path, status, body, headers });
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((done) => server.close(() => done()));
      rmSync(gitRoot, { recursive: true, force: true });
    },
  };
}
