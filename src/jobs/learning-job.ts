/**
 * The learning commands of a REVIEWER mention (CONTRACT §20): `learn <text>` / `remember <text>`
 * stores a learning for the repository (in a bot finding's thread, with that finding's path as its
 * glob), `forget <id>` removes one. The bot answers in the thread of the mention; no review, no
 * model, no workspace. Authorization (`access.allowed_users`) happened before the job was queued.
 */
import {
  LEARNING_LIMITS,
  isLearningId,
  openLearningsStore,
  type LearningsStore,
} from '../learnings/index.js';
import type { LearningCommand } from '../learnings/commands.js';
import { codeSpan } from '../diff/markdown.js';
import { escapeGlob } from '../patterns/glob-match.js';
import type { Platform, ReviewComment } from '../platforms/types.js';
import { earlierFindings } from '../review/memory/state.js';
import { configuredBotUsernames, platformFor, type JobContext } from './job-context.js';
import { replyTargetOf } from './reply-target.js';
import type { JobPayload } from './types.js';

/**
 * The process's learnings store (`ctx.learnings`), or one opened for this job from `store.url` /
 * `workspace.base_dir`; call `release` when done (closes only a store opened here; never throws).
 */
export async function acquireLearningsStore(
  ctx: JobContext,
): Promise<{ store: LearningsStore; release(): Promise<void> }> {
  if (ctx.learnings) return { store: ctx.learnings, release: async () => undefined };
  const store = await openLearningsStore({
    ...(ctx.config.store.url ? { storeUrl: ctx.config.store.url } : {}),
    baseDir: ctx.config.workspace.base_dir,
  });
  return { store, release: () => store.close().catch(() => undefined) };
}

/**
 * The bot finding whose thread `comment` was written in (its path and §13 fingerprint), or undefined
 * when it was not written in a thread the bot started with a finding marker. GitHub: the thread
 * whose first comment is `discussionId` (or the comment itself); GitLab: the discussion
 * `discussionId`; Gitea and Bitbucket Cloud: the thread `inItsThread` placed the comment in.
 */
export async function findingOfThread(
  platform: Platform,
  comment: ReviewComment,
  botUsernames: string[],
): Promise<{ path: string; fingerprint: string } | undefined> {
  if (comment.commentType !== 'review_comment' || !platform.listReviewThreads) return undefined;
  const top = comment.discussionId || comment.commentId;
  const threads = await platform.listReviewThreads(comment.repoFullName, comment.prNumber);
  const own = new Set([...(await platform.getBotUsernames()), ...botUsernames].map((n) => n.toLowerCase()));
  const found = earlierFindings(threads, own).find(
    (f) => f.thread.commentId === top || (comment.discussionId && f.thread.id === comment.discussionId),
  );
  return found ? { path: found.thread.path, fingerprint: found.marker.fp } : undefined;
}

/**
 * `comment` placed in its inline thread when its event did not say (`Platform.locateComment`: a
 * Gitea reply in a code conversation, a Bitbucket Cloud reply to a reply): a `review_comment` whose
 * `discussionId` is the thread's first comment, so the finding's path is found and the answer lands
 * in that thread. Unchanged when the platform cannot tell or the comment is in no inline thread.
 */
export async function inItsThread(platform: Platform, comment: ReviewComment): Promise<ReviewComment> {
  if (!platform.locateComment || !comment.commentId || comment.commentType === 'review') return comment;
  if (comment.commentType === 'lifecycle') return comment;
  const found = await platform.locateComment(comment.repoFullName, comment.prNumber, comment.commentId);
  if (!found) return comment;
  return {
    ...comment,
    commentType: 'review_comment',
    discussionId: found.discussionId,
    filePath: found.path,
  };
}

/** `@<reviewer>` for the replies' examples. */
function handleOf(ctx: JobContext): string {
  return `@${ctx.config.reviewer.bot_username ?? 'reviewbot'}`;
}

async function learn(
  text: string,
  comment: ReviewComment,
  platform: Platform,
  store: LearningsStore,
  ctx: JobContext,
): Promise<string> {
  const me = handleOf(ctx);
  if (text === '') return `Nothing to learn: write \`${me} learn <what reviews should know>\`.`;
  if (text.length > LEARNING_LIMITS.maxTextChars) {
    return `Nothing was stored: a learning is at most ${LEARNING_LIMITS.maxTextChars} characters (this one has ${text.length}).`;
  }
  const finding = await findingOfThread(platform, comment, configuredBotUsernames(ctx.config));
  const path = finding?.path;
  const scope = { platform: comment.platform, repo: comment.repoFullName };
  const result = await store.add(scope, {
    text,
    // §23: a `learn` in a finding's thread dismisses that finding; `reviewbot stats` finds it by
    // its path and fingerprint (a command learning's fingerprint filters no later finding).
    ...(finding ? { fingerprint: finding.fingerprint } : {}),
    // The finding's file path, as a glob matching exactly that file (a file may be named `*a*a*b`).
    ...(path
      ? {
          path: escapeGlob(path)
            .slice(0, LEARNING_LIMITS.maxPathChars)
            .replace(/(?<!\\)\\$/, ''),
        }
      : {}),
    author: comment.authorUsername,
    source: 'command',
  });
  if (result.kind === 'full') {
    return (
      `Nothing was stored: this repository already holds ${result.limit} learnings, the limit. ` +
      `Remove one with \`${me} forget <id>\` (list them with \`reviewbot learnings list ${comment.platform}:${comment.repoFullName}\`).`
    );
  }
  const { id } = result.learning;
  ctx.logger.info({ learningId: id, path }, 'learning stored');
  const where = path ? ` for files matching ${codeSpan(path)}` : '';
  return `Learned \`${id}\`${where}: later reviews of this repository take it into account. To undo: \`${me} forget ${id}\`.`;
}

async function forget(
  id: string,
  payload: JobPayload,
  store: LearningsStore,
  ctx: JobContext,
): Promise<string> {
  const { comment } = payload;
  if (!isLearningId(id)) {
    return `\`forget\` takes a learning id of 8 hex characters, e.g. \`${handleOf(ctx)} forget 0a1b2c3d\`.`;
  }
  const removed = await store.remove({ platform: comment.platform, repo: comment.repoFullName }, id);
  ctx.logger.info({ learningId: id, removed }, 'forget command');
  return removed ? `Forgot learning \`${id}\`.` : `There is no learning \`${id}\` in this repository.`;
}

/**
 * Runs a learning command and answers in the mention's thread.
 * @returns the reply's text.
 * @throws the store's or the platform's error (`runJob` turns it into a failure reply).
 */
export async function processLearningCommand(
  payload: JobPayload,
  command: LearningCommand,
  ctx: JobContext,
): Promise<string> {
  const platform = platformFor(ctx, payload.comment.platform, {
    repoFullName: payload.comment.repoFullName,
    botType: 'reviewer',
  });
  const comment = await inItsThread(platform, payload.comment);
  const { store, release } = await acquireLearningsStore(ctx);
  const reply = await (
    command.kind === 'learn'
      ? learn(command.text, comment, platform, store, ctx)
      : forget(command.id, payload, store, ctx)
  ).finally(release);
  await platform.postReply(replyTargetOf(comment), reply);
  return reply;
}
