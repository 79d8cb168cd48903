/**
 * GitHub Actions files of a step (GitHub's "Workflow commands": `GITHUB_OUTPUT`, `GITHUB_STEP_SUMMARY`)
 * and the review figures the Action outputs.
 */
import { randomBytes } from 'node:crypto';
import { appendFileSync } from 'node:fs';
import type { PostedReview } from '../review/post-review.js';
import type { ExecuteReviewResult } from '../review/types.js';

/**
 * The Action's outputs (names as in `action.yml`): figures of the review and, when issue 13's receipt
 * is present, of its cost and coverage; empty strings where a figure is unknown. `skipped`: a
 * lifecycle trigger found nothing new to review (no agent ran, nothing posted; CONTRACT §13).
 * `verdict`: `blocking`, `non-blocking` or `clean` (CONTRACT §21), empty when there is none.
 */
export function reviewOutputs(
  result: ExecuteReviewResult,
  posted?: PostedReview,
  skipped = false,
): Record<string, string> {
  const receipt = result.receipt;
  return {
    findings: String(result.findings.length),
    rejected: String(result.rejected.length),
    model: result.model,
    input_tokens: String(result.usage.inputTokens),
    output_tokens: String(result.usage.outputTokens),
    duration_ms: String(result.durationMs),
    cost_usd: receipt?.costUsd != null ? String(receipt.costUsd) : '',
    files_reviewed: receipt ? String(receipt.files.reviewed) : '',
    files_skipped: receipt ? String(receipt.files.skipped.length) : '',
    posted: String(posted !== undefined),
    review_url: posted?.posted.url ?? '',
    skipped: String(skipped),
    verdict: result.verdict?.status ?? '',
  };
}

/**
 * Appends `outputs` to the `GITHUB_OUTPUT` file in its multi-line form (`name<<DELIMITER`), with a
 * random delimiter so that no value can end its block early. Does nothing without a file.
 */
export function writeOutputs(file: string | undefined, outputs: Record<string, string>): void {
  if (!file) return;
  let text = '';
  for (const [name, value] of Object.entries(outputs)) {
    const delimiter = `reviewbot_${randomBytes(12).toString('hex')}`;
    text += `${name}<<${delimiter}\n${value}\n${delimiter}\n`;
  }
  appendFileSync(file, text);
}

/** Appends Markdown to the `GITHUB_STEP_SUMMARY` file; does nothing without a file. */
export function writeSummary(file: string | undefined, markdown: string): void {
  if (file) appendFileSync(file, `${markdown}\n`);
}

/**
 * Escapes text for a workflow command's message (`::error::MESSAGE`): `%`, CR and LF are encoded
 * as the runner expects, so a message stays one command.
 */
export function commandMessage(text: string): string {
  return text.replaceAll('%', '%25').replaceAll('\r', '%0D').replaceAll('\n', '%0A');
}
