/**
 * Routing a normalized event (CONTRACT §6): which bot, if any, a ReviewComment starts. A pure
 * decision. Who wrote a comment (a bot, a user outside `access.allowed_users`) is decided from the
 * payload before its body is read: the Markdown scan of an untrusted body runs only for comments
 * that may start a job.
 */
import { isAllowedRepo, isAllowedUser } from '../config/access.js';
import type { EventType, PlatformName, ReviewComment } from '../platforms/types.js';
import { usernameGrammar } from '../platforms/usernames.js';
import { extractMention } from './mention.js';
import type { BotType } from './types.js';

/** A lifecycle event that `reviewer.triggers` can enable (CONTRACT §3). */
export type Trigger = Exclude<EventType, 'comment'>;

/** What routing needs from the configuration and the platforms. */
export interface RouteRules {
  /** `reviewer.bot_username`. */
  reviewerUsername?: string | undefined;
  /** `worker.bot_username`. */
  workerUsername?: string | undefined;
  /** The bot's own logins as the platforms report them (`Platform.getBotUsernames()`). */
  botIdentities: string[];
  /**
   * Per platform, names that mention the bot besides the configured usernames
   * (`Platform.getBotMentionNames()`, e.g. Bitbucket Cloud `{<account id>}`). Such a mention
   * starts the REVIEWER when `reviewerUsername` is set, else the WORKER: one account serves both
   * bots, and a request by the account alone gets the bot that only reads.
   */
  botMentionNames?: Partial<Record<PlatformName, readonly string[]>> | undefined;
  /**
   * `access.allowed_users`: who may start a job by comment; empty = nobody. Entries `name` apply
   * on every platform, `<platform>:name` on that one only (`config/access.ts`).
   */
  allowedUsers: readonly string[];
  /** `access.allowed_repos`; empty = every repository. Entries as `allowedUsers`'. */
  allowedRepos: readonly string[];
  /** `reviewer.triggers`: lifecycle events that start a review. */
  triggers: readonly Trigger[];
}

/** A job to start (not yet authorized), or why the event starts nothing. */
export type RouteDecision =
  { action: 'job'; botType: BotType; prompt: string } | { action: 'ignore'; reason: string };

/** True when `login` is one of the bot's own accounts or any `[bot]` account (case-insensitive). */
export function isBotAuthor(login: string, rules: RouteRules): boolean {
  const lower = login.toLowerCase();
  if (lower.endsWith('[bot]')) return true;
  const own = [...rules.botIdentities, rules.reviewerUsername, rules.workerUsername];
  return own.some((name) => name !== undefined && name !== '' && name.toLowerCase() === lower);
}

export { isAllowedUser } from '../config/access.js';

/**
 * Decides what `comment` starts, in this order:
 * 1. a repository outside a non-empty `allowedRepos` (compared case-insensitively, with the
 *    entries that apply on the comment's platform) → ignore;
 * 2. a lifecycle event → a REVIEWER job with an empty prompt when its `eventType` is in
 *    `triggers`, else ignore;
 * 3. a comment by the bot itself (`botIdentities`, the configured usernames) or by any account
 *    whose login ends in `[bot]` → ignore "comment by a bot";
 * 4. a comment by a user outside `allowedUsers` (the entries that apply on its platform) → ignore
 *    "user <login> is not allowed";
 * 5. no mention of a configured bot, nor of one of the platform's `botMentionNames` (see
 *    `extractMention`; the comment's platform decides where a username ends) → ignore;
 * 6. otherwise a job for the mentioned bot with the mention's prompt.
 * Steps 1–4 read only the payload's names, never `comment.body`: the body is scanned (linear, in
 * a bounded prefix) only for an allowed user's comment.
 */
export function routeEvent(comment: ReviewComment, rules: RouteRules): RouteDecision {
  if (!isAllowedRepo(comment.repoFullName, rules.allowedRepos, comment.platform)) {
    return { action: 'ignore', reason: `repository ${comment.repoFullName} is not in allowed_repos` };
  }
  if (comment.eventType !== 'comment') {
    return rules.triggers.includes(comment.eventType)
      ? { action: 'job', botType: 'reviewer', prompt: '' }
      : { action: 'ignore', reason: `trigger ${comment.eventType} is not enabled` };
  }
  if (isBotAuthor(comment.authorUsername, rules)) return { action: 'ignore', reason: 'comment by a bot' };
  if (!isAllowedUser(comment.authorUsername, rules.allowedUsers, comment.platform)) {
    return { action: 'ignore', reason: `user ${comment.authorUsername} is not allowed` };
  }
  const aliases = rules.botMentionNames?.[comment.platform] ?? [];
  const mention = extractMention(
    comment.body,
    {
      reviewerUsername: rules.reviewerUsername,
      workerUsername: rules.workerUsername,
      ...(aliases.length > 0
        ? { aliases: { botType: rules.reviewerUsername ? 'reviewer' : 'worker', usernames: aliases } }
        : {}),
    },
    usernameGrammar(comment.platform),
  );
  if (!mention) return { action: 'ignore', reason: 'no mention of the bot' };
  return { action: 'job', botType: mention.botType, prompt: mention.prompt };
}
