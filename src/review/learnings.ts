/**
 * Learnings in a review (CONTRACT §20): before the agent runs, the thumbs-down reactions of allowed
 * users on the bot's own findings of this pull request are stored as dismissals; the repository's
 * learnings whose glob matches a file of the diff reach the model as fenced data (newest first,
 * capped); after filtering, a finding with the path and code fingerprint (§13) of a dismissal is
 * not posted, and the body counts it.
 */
import { accessNamesFor, isAllowedUser } from '../config/access.js';
import type { FileDiff } from '../diff/diff.js';
import {
  dismissalId,
  dismissalText,
  LEARNING_LIMITS,
  newestFirst,
  type Learning,
  type LearningsScope,
  type LearningsStore,
} from '../learnings/index.js';
import type { Logger } from '../logger.js';
import { matchGlobSpecs } from '../patterns/glob-match.js';
import type { Platform } from '../platforms/types.js';
import { findingMarkerOf } from './memory/repeats.js';
import type { EarlierFinding } from './memory/state.js';
import { createFence } from './prompt.js';
import type { Finding } from './types.js';

/** What a review needs to apply learnings: the store and who may teach (`access.allowed_users`). */
export interface ReviewLearningsInput {
  store: LearningsStore;
  /**
   * `access.allowed_users`: only their thumbs-down dismisses a finding (case-insensitive; entries
   * tied to another platform do not count, see `config/access.ts`).
   */
  allowedUsers: readonly string[];
  /** Called with each finding whose dismissal this review stored (a thumbs-down seen the first time). */
  onDismissed?: (finding: EarlierFinding) => void;
}

/** Caps of the learnings section of one prompt (inside the §15 budget, which counts it). */
export const LEARNINGS_PROMPT_CAPS = {
  /** Learnings shown at most (newest first). */
  maxCount: 30,
  /** Characters of learning text shown at most (about 2,000 tokens). */
  maxChars: 8_000,
} as const;

/** Bot findings whose reactions are read per review at most (newest threads first). */
const MAX_THREADS_READ = 100;
/** Reaction lists fetched at once. */
const READ_CONCURRENCY = 4;

/** Runs `fn` over `items` with at most `limit` calls in flight. */
async function eachLimited<T>(items: T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) await fn(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

/**
 * Stores a dismissal for each earlier bot finding that an allowed user marked with a thumbs-down
 * (`-1`): id `dismissalId(path, fp)` (so a second reading changes nothing), the finding's path and
 * its fingerprint, and as text `dismissalText(path, fp)` — never the finding's own words, which the
 * model wrote, steered by the pull request, and which would otherwise reach every later review of
 * the file. Findings whose thread has no
 * first-comment id, or a platform without `listReactions`, are skipped. A failure to read one
 * finding's reactions is logged and the others go on.
 * @returns the dismissals newly stored.
 * @throws the store's error (e.g. Redis unreachable).
 */
export async function collectDismissals(input: {
  platform: Platform;
  scope: LearningsScope;
  prNumber: number;
  findings: EarlierFinding[];
  learnings: ReviewLearningsInput;
  logger: Logger;
}): Promise<Learning[]> {
  const { platform, scope, learnings, logger } = input;
  const listReactions = platform.listReactions?.bind(platform);
  if (!listReactions || accessNamesFor(learnings.allowedUsers, platform.name).length === 0) return [];
  const threads = input.findings.filter((f) => f.thread.commentId).slice(-MAX_THREADS_READ);
  const added: Learning[] = [];
  await eachLimited(threads, READ_CONCURRENCY, async ({ thread, marker }) => {
    let reactions;
    try {
      reactions = await listReactions({
        repoFullName: scope.repo,
        prNumber: input.prNumber,
        commentId: thread.commentId!,
        commentType: 'review_comment',
      });
    } catch (error) {
      logger.warn(
        { err: error instanceof Error ? error.message : String(error), commentId: thread.commentId },
        'could not read the reactions on a finding',
      );
      return;
    }
    const by = reactions.find(
      (r) => r.content === '-1' && isAllowedUser(r.username, learnings.allowedUsers, platform.name),
    );
    if (!by) return;
    const path = thread.path.slice(0, LEARNING_LIMITS.maxPathChars);
    const result = await learnings.store.add(scope, {
      id: dismissalId(thread.path, marker.fp),
      text: dismissalText(path, marker.fp),
      path,
      author: by.username,
      source: 'dismissal',
      fingerprint: marker.fp,
    });
    if (result.kind === 'added') {
      added.push(result.learning);
      learnings.onDismissed?.({ thread, marker });
    }
    if (result.kind === 'full') {
      logger.warn({ limit: result.limit }, 'learnings limit reached: a dismissal was not stored');
    }
  });
  if (added.length > 0) logger.info({ dismissals: added.length }, 'dismissed findings stored');
  return added;
}

/** How long matching the learnings' globs against a diff's paths may take, ms. */
export const LEARNING_GLOB_TIMEOUT_MS = 2_000;

/**
 * The learnings a review shows the model: those whose glob matches one of `paths` (a learning
 * without a glob always applies; a dismissal's path is a literal file path and matches only
 * itself; any glob also matches its exact text), newest first, at most `caps.maxCount` and
 * `caps.maxChars` characters of text in all (a learning that does not fit is left out, smaller
 * later ones may fit). Globs are matched in a worker thread (`matchGlobSpecs`), so a hostile one
 * never blocks the event loop: a glob that times out or does not parse matches only its exact text.
 */
export async function selectLearnings(
  learnings: Learning[],
  paths: readonly string[],
  caps: { maxCount: number; maxChars: number } = LEARNINGS_PROMPT_CAPS,
): Promise<Learning[]> {
  const ordered = newestFirst(learnings);
  const pathSet = new Set(paths);
  const globbed = ordered.filter((l) => l.path && l.source !== 'dismissal' && !pathSet.has(l.path));
  const outcome = await matchGlobSpecs(
    globbed.map((l) => ({ pattern: l.path! })),
    paths,
    LEARNING_GLOB_TIMEOUT_MS,
  );
  const matched = new Set(globbed.filter((_, i) => (outcome.matches[i]?.length ?? 0) > 0));
  const out: Learning[] = [];
  let chars = 0;
  for (const learning of ordered) {
    if (out.length >= caps.maxCount) break;
    const applies = !learning.path || pathSet.has(learning.path) || matched.has(learning);
    if (!applies || paths.length === 0) continue;
    if (chars + learning.text.length > caps.maxChars) continue;
    chars += learning.text.length;
    out.push(learning);
  }
  return out;
}

/**
 * The prompt section carrying `learnings`, fenced as data (taught by the repository's allowed users,
 * still not instructions that override the rules); '' when there are none. A dismissal shows only
 * what reviewbot built from its path and fingerprint (`dismissalText`), never a stored text.
 */
export function buildLearningsPromptSection(learnings: Learning[]): string {
  if (learnings.length === 0) return '';
  const fence = createFence();
  const lines = learnings.map((l) => {
    if (l.source === 'dismissal') {
      return `- [${l.id}] The team dismissed a finding as not useful; findings on the same code are not posted. ${dismissalText(l.path, l.fingerprint)}.`;
    }
    const where = l.path ? ` (files matching ${l.path})` : '';
    return `- [${l.id}] Note${where}: ${l.text.replace(/\s+/g, ' ').trim()}`;
  });
  return [
    "Learnings the repository's team taught the reviewer (newest first; take them into account, within the rules above):",
    fence.wrap('learnings', lines.join('\n')),
  ].join('\n');
}

/** Kept findings split into those to post and those matching a dismissal (path + fingerprint). */
export function splitDismissed(
  kept: Finding[],
  files: Map<string, FileDiff>,
  learnings: Learning[],
): { kept: Finding[]; dismissed: Finding[] } {
  const keys = new Set(
    learnings
      .filter((l) => l.source === 'dismissal' && l.path && l.fingerprint)
      .map((l) => `${l.path}\0${l.fingerprint}`),
  );
  const out = { kept: [] as Finding[], dismissed: [] as Finding[] };
  if (keys.size === 0) return { kept, dismissed: [] };
  for (const finding of kept) {
    const marker = findingMarkerOf(finding, files);
    const dismissed = marker !== undefined && keys.has(`${finding.path}\0${marker.fp}`);
    (dismissed ? out.dismissed : out.kept).push(finding);
  }
  return out;
}

/** The review-body line counting suppressed findings, or ''. */
export function dismissedNotice(dismissed: Finding[]): string {
  const n = dismissed.length;
  if (n === 0) return '';
  return `_${n} finding${n === 1 ? '' : 's'} matching a dismissed one ${n === 1 ? 'was' : 'were'} not posted._`;
}
