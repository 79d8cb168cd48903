/**
 * Notes, discussions and award emoji of merge requests: list discussions, create a note, create a
 * (diff) discussion — its position validated like GitLab does —, reply in a discussion, award an
 * emoji on a note, list a note's award emoji.
 */
import { currentVersion } from './diff.js';
import { paginate } from './http-util.js';
import { checkPosition } from './position-check.js';
import { mergeRequestOf, requiredText, type Route, type RouteResult } from './routes.js';
import { awardJson, discussionJson, noteJson } from './shapes.js';
import type { DiscussionRecord, FakeState, MergeRequestRecord, NoteRecord, UserRecord } from './state.js';

/**
 * Records the quick actions GitLab would run from `body` (GitLab docs, "GitLab quick actions"): a
 * line that starts with `/` and a command name, outside fenced code blocks. The real GitLab runs
 * them as the note's author and strips them from the note; the fake only records them, so a test can
 * assert that the bot never posts one.
 */
export function recordQuickActions(state: FakeState, author: UserRecord, body: string): void {
  let fence: string | undefined;
  for (const line of body.split(/\r\n|\r|\n/)) {
    const opening = /^ {0,3}(`{3,}|~{3,})/.exec(line);
    if (fence === undefined && opening?.[1]) {
      fence = opening[1];
      continue;
    }
    if (fence !== undefined) {
      const closing = /^ {0,3}(`{3,}|~{3,})\s*$/.exec(line)?.[1];
      if (closing && closing[0] === fence[0] && closing.length >= fence.length) fence = undefined;
      continue;
    }
    const command = /^\/([a-z_]+)(?:\s|$)/i.exec(line)?.[1];
    if (command) state.quickActions.push({ author: author.username, command, line });
  }
}

/** Options of `createDiscussion`. */
export interface NewDiscussion {
  individualNote: boolean;
  system?: boolean;
  position?: Record<string, unknown>;
  commitId?: string;
  resolved?: boolean;
}

/** Stores a new discussion holding one note. */
export function createDiscussion(
  state: FakeState,
  mr: MergeRequestRecord,
  author: UserRecord,
  body: string,
  options: NewDiscussion,
): DiscussionRecord {
  const diff = options.position !== undefined;
  recordQuickActions(state, author, body);
  const note: NoteRecord = {
    id: state.nextId('note'),
    type: diff ? 'DiffNote' : options.individualNote ? null : 'DiscussionNote',
    body,
    author,
    system: options.system ?? false,
    resolvable: !options.system && (diff || !options.individualNote),
    createdAt: state.now(),
    ...(options.position ? { position: options.position } : {}),
    ...(options.commitId ? { commitId: options.commitId } : {}),
  };
  const discussion: DiscussionRecord = {
    id: state.newDiscussionId(),
    mr,
    individualNote: options.individualNote,
    resolved: options.resolved ?? false,
    notes: [note],
  };
  if (options.resolved) discussion.resolvedBy = author;
  state.discussions.push(discussion);
  return discussion;
}

/** Appends a reply; replying to an individual note turns it into a thread, as on GitLab. */
export function appendNote(
  state: FakeState,
  discussion: DiscussionRecord,
  author: UserRecord,
  body: string,
): NoteRecord {
  recordQuickActions(state, author, body);
  const first = discussion.notes[0];
  if (discussion.individualNote) {
    discussion.individualNote = false;
    if (first && first.type === null) {
      first.type = 'DiscussionNote';
      first.resolvable = true;
    }
  }
  const note: NoteRecord = {
    id: state.nextId('note'),
    type: first?.type === 'DiffNote' ? 'DiffNote' : 'DiscussionNote',
    body,
    author,
    system: false,
    resolvable: true,
    createdAt: state.now(),
    ...(first?.position ? { position: first.position } : {}),
    ...(first?.commitId ? { commitId: first.commitId } : {}),
  };
  discussion.notes.push(note);
  return note;
}

function noteBody(body: unknown, name = 'body'): string | RouteResult {
  const text = requiredText(body, name);
  if (typeof text !== 'string') return text;
  if (text.trim() === '') {
    return { status: 400, body: { message: `400 Bad request - Note {:note=>["can't be blank"]}` } };
  }
  return text;
}

/** Routes of notes, discussions and award emoji. */
export const noteRoutes: Route[] = [
  {
    method: 'GET',
    path: ['projects', ':id', 'merge_requests', ':iid', 'discussions'],
    handle(ctx) {
      const mr = mergeRequestOf(ctx);
      if ('status' in mr) return mr;
      const all = ctx.state.discussions.filter((d) => d.mr === mr).map((d) => discussionJson(ctx.shape, d));
      const page = paginate(all, ctx.url);
      return { status: 200, body: page.items, headers: page.headers };
    },
  },
  {
    method: 'POST',
    path: ['projects', ':id', 'merge_requests', ':iid', 'notes'],
    handle(ctx) {
      const mr = mergeRequestOf(ctx);
      if ('status' in mr) return mr;
      const body = noteBody(ctx.body);
      if (typeof body !== 'string') return body;
      const discussion = createDiscussion(ctx.state, mr, ctx.user, body, { individualNote: true });
      return { status: 201, body: noteJson(ctx.shape, discussion, discussion.notes[0] as NoteRecord) };
    },
  },
  {
    method: 'POST',
    path: ['projects', ':id', 'merge_requests', ':iid', 'discussions'],
    async handle(ctx) {
      const mr = mergeRequestOf(ctx);
      if ('status' in mr) return mr;
      const body = noteBody(ctx.body);
      if (typeof body !== 'string') return body;
      const raw = (ctx.body as Record<string, unknown>).position;
      if (raw === undefined) {
        const discussion = createDiscussion(ctx.state, mr, ctx.user, body, { individualNote: false });
        return { status: 201, body: discussionJson(ctx.shape, discussion) };
      }
      await currentVersion(ctx.state, mr);
      const checked = checkPosition(mr, raw);
      if (!checked.ok) return { status: 400, body: checked.body };
      const discussion = createDiscussion(ctx.state, mr, ctx.user, body, {
        individualNote: false,
        position: checked.position,
        commitId: checked.version.headSha,
      });
      return { status: 201, body: discussionJson(ctx.shape, discussion) };
    },
  },
  {
    method: 'POST',
    path: ['projects', ':id', 'merge_requests', ':iid', 'discussions', ':discussion', 'notes'],
    handle(ctx) {
      const mr = mergeRequestOf(ctx);
      if ('status' in mr) return mr;
      const discussion = ctx.state.discussions.find((d) => d.mr === mr && d.id === ctx.params.discussion);
      if (!discussion) return { status: 404, body: { message: '404 Discussion Not Found' } };
      const body = noteBody(ctx.body);
      if (typeof body !== 'string') return body;
      const note = appendNote(ctx.state, discussion, ctx.user, body);
      return { status: 201, body: noteJson(ctx.shape, discussion, note) };
    },
  },
  {
    method: 'GET',
    path: ['projects', ':id', 'merge_requests', ':iid', 'notes', ':note', 'award_emoji'],
    handle(ctx) {
      const mr = mergeRequestOf(ctx);
      if ('status' in mr) return mr;
      const note = ctx.state.discussions
        .filter((d) => d.mr === mr)
        .flatMap((d) => d.notes)
        .find((n) => String(n.id) === ctx.params.note);
      if (!note) return { status: 404, body: { message: '404 Note Not Found' } };
      const all = ctx.state.awards.filter((a) => a.note === note).map((a) => awardJson(ctx.shape, a));
      const page = paginate(all, ctx.url);
      return { status: 200, body: page.items, headers: page.headers };
    },
  },
  {
    method: 'POST',
    path: ['projects', ':id', 'merge_requests', ':iid', 'notes', ':note', 'award_emoji'],
    handle(ctx) {
      const mr = mergeRequestOf(ctx);
      if ('status' in mr) return mr;
      const name = requiredText(ctx.body, 'name');
      if (typeof name !== 'string') return name;
      const note = ctx.state.discussions
        .filter((d) => d.mr === mr)
        .flatMap((d) => d.notes)
        .find((n) => String(n.id) === ctx.params.note);
      if (!note) return { status: 404, body: { message: '404 Note Not Found' } };
      const taken = ctx.state.awards.some((a) => a.note === note && a.name === name && a.user === ctx.user);
      if (taken)
        return { status: 404, body: { message: '404 Award Emoji Name has already been taken Not Found' } };
      const award = {
        id: ctx.state.nextId('award'),
        name,
        user: ctx.user,
        note,
        mr,
        createdAt: ctx.state.now(),
      };
      ctx.state.awards.push(award);
      return { status: 201, body: awardJson(ctx.shape, award) };
    },
  },
];
