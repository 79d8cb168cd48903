/**
 * Review memory and repository rules, as steps of `executeReview` (CONTRACT §13, §14):
 *
 * 1. `prepareMemory` — before the diff is built: repository rules from the base commit, the bot's
 *    memory of the pull request, the plan (full / incremental / unchanged) and the files the model
 *    is shown (ignored files left out), plus the prompt text the rules and plan add.
 * 2. `selectFindings` (`settle.ts`) — after the findings are filtered: findings on ignored files
 *    dropped, those less severe than `min_severity` set aside, repeats dropped, `max_comments`
 *    applied by rank (§21), each inline finding's marker, addressed threads found (`postReview`
 *    resolves them with `resolveAddressed` once the review is posted, never in a dry run).
 * 3. `concludeMemory` (`settle.ts`) — once what is posted is final: the verdict over the open
 *    findings (this review's and earlier ones), the body sections and the review marker.
 *    `settleMemory` is steps 2 and 3 at once.
 */
import type { Logger } from '../../logger.js';
import type { ExistingComment, Platform, PullRequestFile, PullRequestInfo } from '../../platforms/types.js';
import {
  buildRulesPromptSection,
  ignoredPaths,
  loadRepoRules,
  type ServerReviewSettings,
} from '../repo-rules.js';
import { planPromptNote, planReview } from './plan.js';
import type { PreparedMemory, ReviewTrigger } from './prepared.js';
import { loadMemoryState } from './state.js';

export { ADDRESSED_HEADING, addressedSection, resolveAddressed } from './addressed.js';
export type { EarlierFinding } from './state.js';
export { neutraliseMarkers, withoutMarkers, withoutOwnMarker } from './markers.js';
export type { EffectiveRules } from '../repo-rules.js';
export type { PreparedMemory, ReviewTrigger } from './prepared.js';
export {
  concludeMemory,
  markerHeadOf,
  memoryExtras,
  selectFindings,
  settleMemory,
  type ConcludeMemoryInput,
  type ConcludedMemory,
  type SelectedFindings,
  type SelectFindingsInput,
  type SettledMemory,
  type SettleMemoryInput,
} from './settle.js';

/** Input of `prepareMemory`. */
export interface PrepareMemoryInput {
  platform: Platform;
  pullRequest: PullRequestInfo;
  /** The pull request's files (base...head). */
  prFiles: PullRequestFile[];
  /** Existing comments (conversation, inline, review bodies). */
  comments: ExistingComment[];
  /** The bot's own logins, lower-cased. */
  botNames: Set<string>;
  /** The server's `review.*` settings; default: incremental on, nothing ignored. */
  server?: ServerReviewSettings;
  trigger: ReviewTrigger;
  logger: Logger;
}

const DEFAULT_SERVER: ServerReviewSettings = { incremental: true, ignore: [] };

/**
 * Loads rules (base commit) and memory in parallel, then plans the review. Rules files that cannot
 * be read, threads that cannot be listed and commits that cannot be compared are logged and the
 * review goes on (server rules / no earlier findings / a full review).
 * @throws AuthError from the platform.
 */
export async function prepareMemory(input: PrepareMemoryInput): Promise<PreparedMemory> {
  const { platform, pullRequest: pr, logger } = input;
  const server = input.server ?? DEFAULT_SERVER;
  const [rules, state] = await Promise.all([
    loadRepoRules({ platform, repoFullName: pr.repoFullName, baseSha: pr.baseSha, server, logger }),
    loadMemoryState(platform, pr.repoFullName, pr.number, input.comments, input.botNames, logger),
  ]);
  let plan = await planReview({
    platform,
    repoFullName: pr.repoFullName,
    prNumber: pr.number,
    headSha: pr.headSha,
    lastHead: state.lastReview?.head,
    incremental: rules.incremental,
    prFiles: input.prFiles,
  });
  const lifecycle = input.trigger === 'lifecycle';
  if (plan.info.mode === 'unchanged' && !lifecycle) {
    // A person asked again on the reviewed head: review the whole pull request (repeats still drop).
    plan = { info: { sinceSha: plan.info.sinceSha, mode: 'full' }, files: input.prFiles };
  }
  const ignored = await ignoredPaths(
    rules,
    [...new Set([...input.prFiles, ...plan.files].map((f) => f.path))],
    logger,
  );
  const isIgnored = (path: string): boolean => ignored.has(path);
  const shownFiles = plan.files.filter((f) => !isIgnored(f.path));
  // A trigger with nothing to review — the head already reviewed, or no reviewable change since
  // (e.g. only the base branch merged in, or only ignored files) — costs no agent run.
  const skipAgent =
    lifecycle &&
    (plan.info.mode === 'unchanged' || (plan.info.mode === 'incremental' && shownFiles.length === 0));
  const promptExtra = [
    planPromptNote(plan),
    await buildRulesPromptSection(
      rules,
      shownFiles.map((f) => f.path),
      logger,
    ),
  ]
    .filter((p) => p.length > 0)
    .join('\n\n');
  logger.info(
    {
      mode: plan.info.mode,
      sinceSha: plan.info.sinceSha,
      files: shownFiles.length,
      earlierFindings: state.findings.length,
    },
    'review plan',
  );
  return { rules, state, plan, skipAgent, shownFiles, promptExtra, isIgnored };
}
