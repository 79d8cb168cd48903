/**
 * The triage stage of a review (CONTRACT §15): the pull request's diff parsed, and the files never
 * shown to the model (lock files, generated, vendored, minified, binary, `review.ignore`) set aside
 * with their reason. Skipping is decided on the whole pull request; what the model is shown is the
 * rest of this review's plan (§13: only the changes since the last review when it is incremental).
 */
import { DiffIndex } from '../../diff/diff-index.js';
import { toFileDiffs, type FileDiff } from '../../diff/diff.js';
import { baseFileReader, baseHeadsReader } from '../base-file-reader.js';
import type { ReviewLimits } from '../limits.js';
import { triageFiles, type TriageResult } from '../triage.js';
import type { LoadedReview } from './load.js';
import type { ReviewContext } from './types.js';

/** Input of `triageStage`. */
export interface TriageStageInput {
  loaded: LoadedReview;
  limits: ReviewLimits;
}

/** What the triage stage decided. */
export interface TriagedReview {
  /** The whole pull request's parsed diff (base...head). */
  fileDiffs: FileDiff[];
  /** Index over `fileDiffs`, for the filter. */
  index: DiffIndex;
  /** `kept`: this review's plan's files not skipped; `skipped`: skipped files of the whole pull request. */
  triage: TriageResult;
  /** Paths of `triage.skipped`. */
  skippedPaths: Set<string>;
}

/**
 * Parses the diff and triages its files: the server's and the base commit's `.reviewbot.yaml`
 * ignore globs (§14) and the base commit's `.gitattributes`. Modified files are generated or
 * minified by their BASE version, which the head cannot forge.
 */
export async function triageStage(ctx: ReviewContext, stage: TriageStageInput): Promise<TriagedReview> {
  const { input, logger } = ctx;
  const { loaded, limits } = stage;
  const { pullRequest, workspace, files, comments, memory } = loaded;
  const fileDiffs = toFileDiffs(files);
  const index = DiffIndex.fromFiles(fileDiffs);
  ctx.phase('diff', `${files.length} files, ${comments.length} existing comments`);
  const baseInput = {
    platform: input.platform,
    pr: pullRequest,
    dir: workspace.dir,
    logger,
    ...(input.masker ? { masker: input.masker } : {}),
    ...(input.signal ? { signal: input.signal } : {}),
  };
  const gitattributes = await (input.readBaseFile ?? baseFileReader(baseInput))('.gitattributes');
  // Skipping is decided on the whole pull request (a file it added earlier is `modified` in an
  // incremental comparison, where the content rules would no longer see it as new).
  const wholeTriage = await triageFiles({
    files: fileDiffs,
    ignore: [...new Set([...limits.ignore, ...memory.rules.ignore])],
    gitattributes,
    logger,
    readBaseHeads: baseHeadsReader(baseInput),
  });
  const skippedPaths = new Set(wholeTriage.skipped.map((f) => f.path));
  const triage: TriageResult = {
    kept: toFileDiffs(memory.plan.files).filter((f) => !skippedPaths.has(f.path)),
    skipped: wholeTriage.skipped,
  };
  return { fileDiffs, index, triage, skippedPaths };
}
