/**
 * `handleComment()` (seed `shared.handle_comment()`): authorization against
 * `access.allowed_users`, then the `eyes` reaction as an immediate acknowledgment, then the job is
 * enqueued. Synchronous: the webhook's 200 goes out once the job is queued, without waiting for the
 * reaction's API call (the runner still waits for it before the job starts).
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from '../logger.js';
import type { Platform, ReviewComment } from '../platforms/types.js';
import { isAllowedUser, routeEvent, type RouteRules } from './route-event.js';
import type { JobPayload, JobRunner, Mention } from './types.js';

/** What a dispatched event led to (the body of the webhook's 200 answer, CONTRACT §5). */
export type DispatchOutcome = { status: 'accepted' } | { status: 'ignored'; reason: string };

/** Dependencies of `handleComment`. */
export interface HandleCommentDeps {
  /** The platform the comment came from (for the reaction). */
  platform: Platform;
  /** `access.allowed_users`; empty = nobody may trigger by comment. */
  allowedUsers: readonly string[];
  jobRunner: JobRunner;
  /** Logger of this delivery. */
  logger: Logger;
  /** Clock (tests); default `() => new Date()`. */
  now?: () => Date;
  /** Job id source (tests); default `randomUUID`. */
  newJobId?: () => string;
}

export { isAllowedUser } from './route-event.js';

/**
 * Handles a routed event. Comments (not lifecycle events) by a user outside `allowedUsers` are
 * ignored: no reaction, no job. Otherwise the `eyes` reaction is started (comments only; not
 * awaited, failures logged as warnings) and the JobPayload (version 1, fresh uuid, `enqueuedAt`
 * now) is submitted with the reaction as its `before`. Never awaits an API call; resolves after
 * the runner's `submit` when that returns a promise (the store).
 */
export function handleComment(
  comment: ReviewComment,
  mention: Mention,
  deps: HandleCommentDeps,
): DispatchOutcome | Promise<DispatchOutcome> {
  const isComment = comment.commentType !== 'lifecycle' && comment.eventType === 'comment';
  if (isComment && !isAllowedUser(comment.authorUsername, deps.allowedUsers, comment.platform)) {
    deps.logger.info({ user: comment.authorUsername }, 'comment by a user not in allowed_users');
    return { status: 'ignored', reason: `user ${comment.authorUsername} is not allowed` };
  }
  let before: Promise<unknown> | undefined;
  if (isComment && comment.commentId !== '') {
    const commentType = comment.commentType as 'issue_comment' | 'review_comment' | 'review';
    before = deps.platform
      .addReaction(
        {
          repoFullName: comment.repoFullName,
          prNumber: comment.prNumber,
          commentId: comment.commentId,
          commentType,
        },
        'eyes',
      )
      .catch((error: unknown) => {
        deps.logger.warn(
          { err: error instanceof Error ? error.message : String(error) },
          'eyes reaction failed',
        );
      });
  }
  const payload: JobPayload = {
    version: 1,
    jobId: (deps.newJobId ?? randomUUID)(),
    botType: mention.botType,
    comment,
    prompt: mention.prompt,
    enqueuedAt: (deps.now?.() ?? new Date()).toISOString(),
  };
  const queued = deps.jobRunner.submit(payload, before ? { before } : undefined);
  const accepted = (): DispatchOutcome => {
    deps.logger.info({ jobId: payload.jobId, botType: payload.botType }, 'job enqueued');
    return { status: 'accepted' };
  };
  // A store-backed runner acknowledges only once the job is durably queued (a rejection reaches
  // the server, which answers 500 so the delivery can be redelivered).
  return queued instanceof Promise ? queued.then(accepted) : accepted();
}

/** Options of `createDispatcher`. */
export interface DispatcherOptions {
  /** The routing rules; `allowedUsers` below is added to them. */
  rules: Omit<RouteRules, 'allowedUsers'>;
  /** `access.allowed_users` (checked by routing, before the body is scanned, and by `handleComment`). */
  allowedUsers: readonly string[];
  jobRunner: JobRunner;
  /** Fallback logger when a call passes none. */
  logger: Logger;
}

/** Routes and handles one parsed webhook event; synchronous (see `createDispatcher`). */
export type Dispatcher = (
  platform: Platform,
  comment: ReviewComment,
  log?: Logger,
) => DispatchOutcome | Promise<DispatchOutcome>;

/**
 * Creates the server's dispatcher: `routeEvent` (which turns away bots and users outside
 * `allowedUsers` before reading the body) then `handleComment`, synchronously (nothing is
 * awaited, so the webhook answer does not wait on any API call). `log` is the delivery's logger.
 * `rules.botIdentities` must already hold the platforms' bot logins (resolve them at start-up).
 */
export function createDispatcher(options: DispatcherOptions): Dispatcher {
  const rules: RouteRules = { ...options.rules, allowedUsers: options.allowedUsers };
  return (platform, comment, log) => {
    const logger = log ?? options.logger;
    const decision = routeEvent(comment, rules);
    if (decision.action === 'ignore') {
      logger.debug({ reason: decision.reason }, 'event ignored');
      return { status: 'ignored', reason: decision.reason };
    }
    try {
      return handleComment(
        comment,
        { botType: decision.botType, prompt: decision.prompt },
        { platform, allowedUsers: options.allowedUsers, jobRunner: options.jobRunner, logger },
      );
    } catch (error) {
      // A runner that refuses work (e.g. shutting down) must not turn into a 500.
      logger.error(
        { err: error instanceof Error ? error.message : String(error) },
        'could not enqueue the job',
      );
      return { status: 'ignored', reason: 'the job could not be queued' };
    }
  };
}
