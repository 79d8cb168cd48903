/**
 * Review memory and repository rules, as two steps of `executeReview` (CONTRACT §13, §14):
 *
 * 1. `prepareMemory` — before the diff is built: repository rules from the base commit, the bot's
 *    memory of the pull request, the plan (full / incremental / unchanged) and the files the model
 *    is shown (ignored files left out), plus the prompt text the rules and plan add.
 * 2. `settleMemory` — after the findings are filtered: findings on ignored files dropped, those
 *    less severe than `min_severity` set aside, repeats dropped, `max_comments` applied by rank
 *    (§21), the verdict over the open findings (this review's and earlier ones), addressed threads found (`postReview` resolves them with
 *    `resolveAddressed` once the review is posted, never in a dry run), and the body sections,
 *    the review marker and each inline finding's marker.
 */
import type { Logger } from '../../logger.js';
import type { ExistingComment, Platform, PullRequestFile, PullRequestInfo } from '../../platforms/types.js';
import type { ReviewBodyExtras } from '../body.js';
import { toFileDiffs, type FileDiff } from '../../diff/diff.js';
import {
  buildRulesPromptSection,
  ignoredPaths,
  loadRepoRules,
  rulesNotice,
  type EffectiveRules,
  type ServerReviewSettings,
} from '../repo-rules.js';
import { applyCommentBudget, fileOrderOf, splitByThreshold } from '../severity/budget.js';
import { computeVerdict, openEarlierFindings, verdictLine } from '../severity/verdict.js';
import type { Finding, Verdict } from '../types.js';
import { addressedSection, findAddressed } from './addressed.js';
import { renderReviewMarker } from './markers.js';
import { planNotice, planPromptNote, planReview, type ReviewPlan } from './plan.js';
import { anchoredLines, repeatsNotice, splitRepeats } from './repeats.js';
import { loadMemoryState, type EarlierFinding, type MemoryState } from './state.js';

export { ADDRESSED_HEADING, addressedSection, resolveAddressed } from './addressed.js';
export type { EarlierFinding } from './state.js';
export { neutraliseMarkers, withoutMarkers, withoutOwnMarker } from './markers.js';
export type { EffectiveRules } from '../repo-rules.js';

/** What started the review: a lifecycle trigger (no agent on an unchanged head) or a person asking. */
export type ReviewTrigger = 'lifecycle' | 'request';

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

/** What `prepareMemory` decided. */
export interface PreparedMemory {
  rules: EffectiveRules;
  state: MemoryState;
  plan: ReviewPlan;
  /**
   * True for a lifecycle trigger on the already-reviewed head, or with no reviewable change since
   * the last review: run no agent, post nothing.
   */
  skipAgent: boolean;
  /** Files the model is shown: the plan's files minus ignored ones. */
  shownFiles: PullRequestFile[];
  /** Prompt text to append after the review prompt (plan note, rules, guidelines); may be ''. */
  promptExtra: string;
  /**
   * True when `path`, one of the pull request's files, matches `review.ignore` (server or
   * repository); other paths are matched by `settleMemory` itself.
   */
  isIgnored(path: string): boolean;
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

/**
 * In an incremental review the model numbers LEFT lines in the file of the last reviewed head, while
 * the platform anchors LEFT comments in the base file. A LEFT finding stays inline only when the
 * text it anchors is the same in both diffs; otherwise it goes to the body (never to a wrong line).
 */
function checkLeftAnchors(
  memory: PreparedMemory,
  kept: Finding[],
  prFiles: Map<string, FileDiff>,
): { kept: Finding[]; misplaced: Finding[] } {
  if (memory.plan.info.mode !== 'incremental') return { kept, misplaced: [] };
  const shown = new Map(toFileDiffs(memory.shownFiles).map((f) => [f.path, f]));
  const out = { kept: [] as Finding[], misplaced: [] as Finding[] };
  for (const finding of kept) {
    if (finding.side !== 'LEFT') {
      out.kept.push(finding);
      continue;
    }
    const seen = anchoredLines(finding, shown);
    const real = anchoredLines(finding, prFiles);
    const same = seen.length > 0 && seen.length === real.length && seen.every((line, i) => line === real[i]);
    (same ? out.kept : out.misplaced).push(finding);
  }
  return out;
}

/** Input of `settleMemory`. */
export interface SettleMemoryInput {
  memory: PreparedMemory;
  pullRequest: PullRequestInfo;
  /** Findings kept inline by the filter, and the rejected ones (for the body). */
  kept: Finding[];
  rejected: Finding[];
  /** The pull request's parsed diff (base...head), for fingerprints. */
  prFileDiffs: FileDiff[];
  /** Head checkout, to tell whether an open finding's code still exists. */
  workspaceDir: string;
  /** Time of the review marker (default now). */
  now?: Date;
  /** False when a part failed or the cost cap stopped one (see `markerHeadOf`); default true. */
  complete?: boolean;
  /** `path\0fingerprint` of the repository's dismissals (`dismissalKeys`): not open, not counted. */
  dismissed?: ReadonlySet<string>;
}

/** What `settleMemory` produced. */
export interface SettledMemory {
  kept: Finding[];
  /** Hidden marker to append to each kept finding's inline body (same order; '' for none). */
  inlineMarkers: string[];
  rejected: Finding[];
  repeats: Finding[];
  /** Open threads of the bot whose code changed: to resolve once the review is posted. */
  addressed: EarlierFinding[];
  /** §21: findings less severe than `review.min_severity`: not posted. */
  belowThreshold: Finding[];
  /** §21: the verdict over this review's posted findings and the earlier ones still open. */
  verdict: Verdict;
  /** Sections for `buildReviewBody`. */
  extras: Required<ReviewBodyExtras>;
}

/** Body sections and the review marker for a review that ran no agent or could not be parsed. */
export function memoryExtras(
  memory: PreparedMemory,
  headSha: string | null,
  now = new Date(),
): Required<ReviewBodyExtras> {
  return {
    before: [planNotice(memory.plan), rulesNotice(memory.rules)].filter((s) => s.length > 0),
    afterSummary: [],
    after: [],
    markers: headSha === null ? [] : [renderReviewMarker({ head: headSha, at: now.toISOString() })],
  };
}

/**
 * The head a review's marker may claim: the reviewed head when every part was answered; when a
 * part failed or the cost cap stopped it, the previous review's head for an incremental review (so
 * the next one shows those changes again) and no head at all for a full one.
 */
export function markerHeadOf(memory: PreparedMemory, headSha: string, complete: boolean): string | null {
  if (complete) return headSha;
  return memory.plan.info.mode === 'incremental' ? memory.plan.info.sinceSha : null;
}

/**
 * Applies memory and rules to the filtered findings and finds the addressed threads (it posts and
 * resolves nothing).
 * Resolution failures are logged, never thrown.
 */
export async function settleMemory(input: SettleMemoryInput): Promise<SettledMemory> {
  const { memory, pullRequest: pr } = input;
  const files = new Map(input.prFileDiffs.map((f) => [f.path, f]));
  const { kept: anchored, misplaced } = checkLeftAnchors(memory, input.kept, files);
  // Findings on paths outside the pull request's files (the model may name any path) are matched
  // here, off the main thread like the rest.
  const unknown = [...input.kept, ...input.rejected].map((f) => f.path).filter((p) => !files.has(p));
  const ignoredElsewhere = await ignoredPaths(memory.rules, [...new Set(unknown)]);
  const isIgnored = (path: string): boolean => memory.isIgnored(path) || ignoredElsewhere.has(path);
  const visible = anchored.filter((f) => !isIgnored(f.path));
  const { rules } = memory;
  // §21: what is less severe than min_severity is not posted; the budget ranks what is left.
  const inline = splitByThreshold(visible, rules.minSeverity);
  const notes = splitByThreshold(
    [...input.rejected, ...misplaced].filter((f) => !isIgnored(f.path)),
    rules.minSeverity,
  );
  const split = splitRepeats(inline.posted, files, memory.state.findings);
  const budget = applyCommentBudget(
    split.fresh,
    rules.maxComments,
    fileOrderOf(input.prFileDiffs.map((f) => f.path)),
  );
  const kept = budget.keep.map((i) => split.fresh[i]!);
  const rejected = [...notes.posted, ...budget.folded];
  const reviewed = new Set(memory.shownFiles.map((f) => f.path));
  const addressed = await findAddressed(memory.state.findings, reviewed, input.workspaceDir);
  const open = openEarlierFindings(memory.state.findings, addressed, input.dismissed);
  const verdict = computeVerdict(
    [...kept, ...rejected].map((f) => f.severity).concat(open.map((f) => f.marker.severity)),
    rules.blockOn,
  );
  const extras = memoryExtras(memory, markerHeadOf(memory, pr.headSha, input.complete ?? true), input.now);
  extras.afterSummary.push(verdictLine(verdict));
  extras.after.push(
    ...[repeatsNotice(split.repeats), addressedSection(addressed)].filter((s) => s.length > 0),
  );
  return {
    kept,
    inlineMarkers: budget.keep.map((i) => split.markers[i] ?? ''),
    rejected,
    repeats: split.repeats,
    addressed,
    belowThreshold: [...inline.below, ...notes.below],
    verdict,
    extras,
  };
}
