/**
 * The verdict (CONTRACT §21) over the bot's open findings on a pull request: this review's posted
 * findings (inline and in the body) plus the earlier inline findings review memory (§13) knows are
 * still open — not resolved, not addressed by this review's changes, not dismissed (§20). Blocking
 * when one of them is at or above `review.block_on`; clean when none is open.
 */
import type { Learning } from '../../learnings/types.js';
import type { EarlierFinding } from '../memory/state.js';
import type { Verdict } from '../types.js';
import { atOrAbove, SEVERITIES, zeroCounts, type Severity } from './severity.js';

/** `path\0fingerprint` of every dismissal among `learnings` (§20). */
export function dismissalKeys(learnings: readonly Learning[]): Set<string> {
  return new Set(
    learnings
      .filter((l) => l.source === 'dismissal' && l.path && l.fingerprint)
      .map((l) => `${l.path}\0${l.fingerprint}`),
  );
}

/**
 * The earlier findings still open: their thread is not resolved, they are not among `addressed`
 * (their code changed in this review) and their path and fingerprint match no dismissal.
 */
export function openEarlierFindings(
  earlier: readonly EarlierFinding[],
  addressed: readonly EarlierFinding[],
  dismissed: ReadonlySet<string> = new Set(),
): EarlierFinding[] {
  const gone = new Set(addressed.map((f) => f.thread.id));
  return earlier.filter(
    (f) => !f.thread.resolved && !gone.has(f.thread.id) && !dismissed.has(`${f.thread.path}\0${f.marker.fp}`),
  );
}

/** The verdict over open findings of the given severities. */
export function computeVerdict(severities: Iterable<Severity>, blockOn: Severity): Verdict {
  const counts = zeroCounts();
  let open = 0;
  let blocking = false;
  for (const severity of severities) {
    counts[severity] += 1;
    open += 1;
    if (atOrAbove(severity, blockOn)) blocking = true;
  }
  return { status: blocking ? 'blocking' : open > 0 ? 'non-blocking' : 'clean', counts, blockOn };
}

/**
 * The verdict from memory alone, for a new head that needs no review (only ignored files changed):
 * the earlier findings whose thread is not resolved.
 */
export function earlierVerdict(earlier: readonly EarlierFinding[], blockOn: Severity): Verdict {
  return computeVerdict(
    openEarlierFindings(earlier, []).map((f) => f.marker.severity),
    blockOn,
  );
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/**
 * The verdict in words, e.g. `blocking — P0 ×1, P1 ×2 · 4 other findings`: the status, then the
 * counts at or above its `blockOn` and how many others (blocking), or each severity's count
 * (non-blocking), or `no open findings` (clean). Plain text: the review body's verdict line and the
 * gate's status description.
 */
export function verdictText(verdict: Verdict): string {
  const { counts, blockOn } = verdict;
  if (verdict.status === 'clean') return 'clean — no open findings';
  const listed = (keep: (s: Severity) => boolean) =>
    SEVERITIES.filter((s) => keep(s) && counts[s] > 0)
      .map((s) => `${s} ×${counts[s]}`)
      .join(', ');
  if (verdict.status === 'non-blocking') return `non-blocking — ${listed(() => true)}`;
  const others = SEVERITIES.filter((s) => !atOrAbove(s, blockOn)).reduce((n, s) => n + counts[s], 0);
  const rest = others > 0 ? ` · ${plural(others, 'other finding')}` : '';
  return `blocking — ${listed((s) => atOrAbove(s, blockOn))}${rest}`;
}

/** The review body's line right under the summary, e.g. `**Verdict:** blocking — P0 ×1`. */
export function verdictLine(verdict: Verdict): string {
  return `**Verdict:** ${verdictText(verdict)}`;
}

/** True when the verdict counts an open finding at or above `failOn` (`review --fail-on`, §21). */
export function failsAt(verdict: Verdict | undefined, failOn: Severity): boolean {
  if (!verdict) return false;
  return SEVERITIES.some((s) => atOrAbove(s, failOn) && verdict.counts[s] > 0);
}
