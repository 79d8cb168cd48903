/**
 * `@<reviewer> override <reason>` (CONTRACT §21): an allowed user turns the verdict gate green for
 * the pull request's current head, the status naming who and why; no review runs. A later push is
 * gated again (its review sets the gate anew). Authorization (`access.allowed_users`) happened
 * before the job was queued, as for every mention.
 */
import { codeSpan, neutraliseMarkers } from '../diff/markdown.js';
import type { ReviewComment } from '../platforms/types.js';
import { gateEnabled, overrideGateReport, setGate } from './gate.js';
import { platformFor, type JobContext } from './job-context.js';
import { replyTargetOf } from './reply-target.js';
import type { JobPayload } from './types.js';

/** A parsed `override` command: the reason, trimmed (possibly empty, answered with usage). */
export interface OverrideCommand {
  kind: 'override';
  reason: string;
}

const COMMAND = /^override(?![\p{L}\p{N}_-])[ \t]*:?/iu;

/** Longest reason kept, characters (the status description is cut further to the platform's limit). */
export const MAX_OVERRIDE_REASON = 500;

/** The override command of a REVIEWER mention's prompt, or undefined when it is none. */
export function parseOverrideCommand(prompt: string): OverrideCommand | undefined {
  const trimmed = prompt.trim();
  const match = COMMAND.exec(trimmed);
  if (!match) return undefined;
  return { kind: 'override', reason: trimmed.slice(match[0].length).replace(/\s+/g, ' ').trim() };
}

/** Who overrode, as people read it (Bitbucket Cloud's identity is an account id; its name is shown). */
function whoOf(comment: ReviewComment): string {
  return comment.authorName ?? comment.authorUsername;
}

/**
 * Runs an override: sets the gate of the pull request's current head to green with who and why,
 * and answers in the mention's thread. With the gate off (or a platform without one), or without a
 * reason, it only answers.
 * @returns the reply's text.
 * @throws AuthError / PlatformError from the platform (`runJob` turns it into a failure reply).
 */
export async function processOverrideCommand(
  payload: JobPayload,
  command: OverrideCommand,
  ctx: JobContext,
): Promise<string> {
  const { comment } = payload;
  const platform = platformFor(ctx, comment.platform, {
    repoFullName: comment.repoFullName,
    botType: 'reviewer',
  });
  const me = `@${ctx.config.reviewer.bot_username ?? 'reviewbot'}`;
  const gate = { platform, setting: ctx.config.review.gate, masker: ctx.masker, logger: ctx.logger };
  let reply: string;
  if (!gateEnabled(gate)) {
    reply =
      'There is nothing to override: the `reviewbot/verdict` gate is off on this server (`review.gate`).';
  } else if (command.reason === '') {
    reply = `An override needs a reason: \`${me} override <why this may merge>\`.`;
  } else {
    const reason = command.reason.slice(0, MAX_OVERRIDE_REASON);
    const pr = await platform.getPullRequest(comment.repoFullName, comment.prNumber);
    const who = whoOf(comment);
    await setGate(gate, pr, overrideGateReport(who, reason, pr.htmlUrl));
    ctx.logger.info({ headSha: pr.headSha, by: comment.authorUsername }, 'verdict gate overridden');
    reply =
      `The \`reviewbot/verdict\` gate is green for ${codeSpan(pr.headSha.slice(0, 12))}: overridden by ` +
      `${codeSpan(who)} (${codeSpan(reason)}). The next push is gated again.`;
  }
  await platform.postReply(replyTargetOf(comment), neutraliseMarkers(reply));
  return reply;
}
