/**
 * The fake Data Center's pull request comments: JSON as `RestComment` (replies nested under
 * `comments`), creation with Data Center's anchor rule (a line of the effective diff with its type,
 * and for a moved file the path before the move as `srcPath`, else 400), replies under an existing parent (404
 * otherwise), and updates that need the comment's current `version` (409 otherwise, REST reference
 * "Update pull request comment"); only the author may change the text.
 */
import { changedFiles, hunksOf, revParse } from './git.js';
import { error, type Answer, type PullState, type World } from './world.js';
import type { StoredComment } from './types.js';

const notFound = (what: string): Answer => error(404, `The ${what} does not exist.`);

/** `RestApplicationUser` of `login`. */
export function user(login: string) {
  return {
    name: login,
    emailAddress: `${login}@example.com`,
    id: login.length,
    displayName: login,
    active: true,
    slug: login.toLowerCase(),
    type: 'NORMAL',
  };
}

/** `RestComment` of `c` with its replies. */
export function commentJson(c: StoredComment): Record<string, unknown> {
  return {
    id: c.id,
    version: c.version,
    text: c.text,
    author: user(c.author),
    createdDate: c.createdDate,
    updatedDate: c.createdDate,
    comments: c.replies.map(commentJson),
    severity: 'NORMAL',
    state: 'OPEN',
    threadResolved: c.threadResolved,
    ...(c.threadResolved && c.threadResolver
      ? { threadResolver: user(c.threadResolver), threadResolvedDate: c.threadResolvedDate }
      : {}),
    ...(c.anchor ? { anchor: { ...c.anchor, diffType: c.anchor.diffType ?? 'EFFECTIVE' } } : {}),
  };
}

/** Comment `id` among `comments` and their replies. */
export function find(comments: StoredComment[], id: number): StoredComment | undefined {
  for (const c of comments) {
    if (c.id === id) return c;
    const inner = find(c.replies, id);
    if (inner) return inner;
  }
  return undefined;
}

/** Every comment of a pull request, replies included. */
export function flatten(comments: StoredComment[]): StoredComment[] {
  return comments.flatMap((c) => [c, ...flatten(c.replies)]);
}

/** Head and base of a pull request now (full SHAs). */
export async function shas(pull: PullState): Promise<{ head: string; base: string }> {
  const head = await revParse(pull.bareRepoPath, `refs/heads/${pull.headBranch}`);
  const base = await revParse(pull.bareRepoPath, `refs/heads/${pull.baseBranch}`);
  if (!head || !base)
    throw new Error(`fake Bitbucket Data Center: a branch of ${pull.repo}#${pull.id} is missing`);
  return { head, base };
}

/**
 * Why Data Center refuses `anchor`, or undefined: it must name a line of the pull request's
 * effective diff with its type, and a moved file's anchor must carry `srcPath`, the path before the
 * move (REST "Add pull request comment": `anchor.srcPath` is required when the file was moved).
 */
async function anchorProblem(
  pull: PullState,
  anchor: NonNullable<StoredComment['anchor']>,
): Promise<string | undefined> {
  const { head, base } = await shas(pull);
  const file = (await changedFiles(pull.bareRepoPath, base, head)).find((f) => f.filename === anchor.path);
  const moved = file?.previousFilename !== undefined && file.previousFilename !== file.filename;
  if (moved && anchor.srcPath !== file.previousFilename) {
    return `anchor on the moved file ${anchor.path} has srcPath ${JSON.stringify(anchor.srcPath)}, not ${JSON.stringify(file.previousFilename)}`;
  }
  if (anchor.line === undefined) return undefined; // a file comment
  const lines = hunksOf(file?.patch).flatMap((h) => h.lines);
  const onTo = anchor.fileType !== 'FROM';
  const inDiff = lines.some(
    (l) =>
      l.type === anchor.lineType &&
      (onTo
        ? l.type !== 'REMOVED' && l.destination === anchor.line
        : l.type !== 'ADDED' && l.source === anchor.line),
  );
  return inDiff
    ? undefined
    : `anchor ${anchor.path} ${anchor.fileType ?? ''} ${anchor.lineType ?? ''} ${anchor.line} is not a line of the diff`;
}

/** `POST …/comments`: a general comment, a reply (`parent`) or an anchored one. */
export async function createComment(
  world: World,
  pull: PullState,
  body: Record<string, unknown>,
  violation: (m: string) => void,
) {
  const text = typeof body.text === 'string' ? body.text : '';
  if (text.trim() === '') return error(400, 'Comment text must be provided.');
  const parentId = (body.parent as { id?: number } | undefined)?.id;
  const anchor = body.anchor as StoredComment['anchor'] | undefined;
  const parent = parentId !== undefined ? find(pull.comments, parentId) : undefined;
  if (parentId !== undefined && !parent) return notFound('parent comment');
  if (anchor) {
    if (anchor.diffType !== undefined && anchor.diffType !== 'EFFECTIVE')
      violation(`anchor diffType ${anchor.diffType} without fromHash/toHash`);
    const problem = await anchorProblem(pull, anchor);
    if (problem) {
      violation(problem);
      return error(400, 'The comment anchor is not part of the pull request diff.');
    }
  }
  const stored: StoredComment = {
    id: world.nextCommentId++,
    version: 0,
    text,
    author: world.username,
    createdDate: Date.now(),
    ...(anchor && !parent ? { anchor } : {}),
    ...(parent ? { parentId: parent.id } : {}),
    threadResolved: false,
    replies: [],
  };
  (parent ? parent.replies : pull.comments).push(stored);
  return { status: 201, body: commentJson(stored) };
}

/** Updates comment `c` as `PUT …/comments/{id}` does: the current `version` is required. */
export function updateComment(world: World, c: StoredComment, body: Record<string, unknown>): Answer {
  const update = body as { version?: number; text?: string; threadResolved?: boolean };
  if (update.version !== c.version)
    return error(
      409,
      `You are attempting to modify a comment based on out-of-date information (version ${c.version}).`,
    );
  if (update.text !== undefined && update.text !== c.text && c.author !== world.username)
    return error(400, 'Only the author of a comment may update its text.');
  if (update.threadResolved !== undefined && c.parentId !== undefined)
    return error(400, 'Only the root comment of a thread can resolve it.');
  if (update.text !== undefined) c.text = update.text;
  if (update.threadResolved !== undefined && update.threadResolved !== c.threadResolved) {
    c.threadResolved = update.threadResolved;
    if (c.threadResolved) {
      c.threadResolver = world.username;
      c.threadResolvedDate = Date.now();
    } else {
      delete c.threadResolver;
      delete c.threadResolvedDate;
    }
  }
  c.version++;
  return { status: 200, body: commentJson(c) };
}
