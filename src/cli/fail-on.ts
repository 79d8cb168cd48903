/**
 * `review --fail-on <severity>` (CONTRACT §2, §21): after the review is printed or posted, the exit
 * code is 3 when its verdict counts an open finding at or above that severity, with one line on
 * stderr saying why.
 */
import type { Severity } from '../review/severity/severity.js';
import { failsAt, verdictText } from '../review/severity/verdict.js';
import type { Verdict } from '../review/types.js';

/** The exit code of `--fail-on`: 3 when it fails the verdict. */
export const FAIL_ON_EXIT_CODE = 3;

/**
 * 3 (and one line on `stderr`) when `failOn` is set and `verdict` counts an open finding at or above
 * it; else 0. A review without a verdict (nothing was reviewed) never fails.
 */
export function failOnExitCode(
  verdict: Verdict | undefined,
  failOn: Severity | undefined,
  stderr: Pick<NodeJS.WriteStream, 'write'> = process.stderr,
): number {
  if (!failOn || !verdict || !failsAt(verdict, failOn)) return 0;
  stderr.write(
    `reviewbot: verdict ${verdictText(verdict)}: an open finding is at or above ${failOn} (--fail-on ${failOn})\n`,
  );
  return FAIL_ON_EXIT_CODE;
}
