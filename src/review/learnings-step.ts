/**
 * The learnings step of `executeReview` (CONTRACT §20), as one object the review consults at three
 * points: after the memory loaded (dismissals stored, learnings listed), when the prompt is built
 * (`forPaths`), and when findings are settled (`dropDismissed`). Without a store it does nothing.
 */
import type { FileDiff } from '../diff/diff.js';
import type { Learning } from '../learnings/index.js';
import type { Logger } from '../logger.js';
import type { Platform, PullRequestInfo } from '../platforms/types.js';
import {
  buildLearningsPromptSection,
  collectDismissals,
  dismissedNotice,
  selectLearnings,
  splitDismissed,
  type ReviewLearningsInput,
} from './learnings.js';
import type { EarlierFinding } from './memory/state.js';
import type { Finding } from './types.js';

export type { ReviewLearningsInput } from './learnings.js';

/** What the review learned before its agent runs. */
export interface TaughtLearnings {
  /** Every learning of the repository (after this review's dismissals were stored). */
  all: Learning[];
  /** The prompt section and the ids of the learnings applying to `paths` (the files shown). */
  forPaths(paths: readonly string[]): Promise<{ promptSection: string; applied: string[] }>;
  /** Drops findings matching a dismissal; `notice` is the body line counting them ('' for none). */
  dropDismissed(kept: Finding[], prFiles: FileDiff[]): { kept: Finding[]; notice: string };
  /** Findings dropped by `dropDismissed` so far. */
  dismissed(): Finding[];
}

/** What the step reads from the review once its memory is loaded. */
export interface LearningsContext {
  platform: Platform;
  pr: PullRequestInfo;
  /** The bot's earlier findings on this pull request (§13). */
  findings: EarlierFinding[];
  logger: Logger;
}

function taughtOf(all: Learning[]): TaughtLearnings {
  const dropped: Finding[] = [];
  return {
    all,
    async forPaths(paths) {
      const selected = await selectLearnings(all, paths);
      return { promptSection: buildLearningsPromptSection(selected), applied: selected.map((l) => l.id) };
    },
    dropDismissed(kept, prFiles) {
      const split = splitDismissed(kept, new Map(prFiles.map((f) => [f.path, f])), all);
      dropped.push(...split.dismissed);
      return { kept: split.kept, notice: dismissedNotice(split.dismissed) };
    },
    dismissed: () => [...dropped],
  };
}

/**
 * Stores this pull request's new dismissals and lists the repository's learnings. A store or
 * platform failure is logged and the review goes on without learnings (it is still worth posting).
 */
export async function loadReviewLearnings(
  input: ReviewLearningsInput | undefined,
  context: Promise<LearningsContext>,
): Promise<TaughtLearnings> {
  if (!input) return taughtOf([]);
  const { platform, pr, findings, logger } = await context;
  const scope = { platform: platform.name, repo: pr.repoFullName };
  try {
    await collectDismissals({ platform, scope, prNumber: pr.number, findings, learnings: input, logger });
    const all = await input.store.list(scope);
    logger.debug({ learnings: all.length }, 'repository learnings loaded');
    return taughtOf(all);
  } catch (error) {
    logger.warn(
      { err: error instanceof Error ? error.message : String(error) },
      'could not load the repository learnings; reviewing without them',
    );
    return taughtOf([]);
  }
}
