/**
 * What became of one finding (CONTRACT §23), from what the platform shows of its thread: `dismissed`
 * (a thumbs-down of an allowed user), `addressed` (its code changed and the bot resolved the
 * thread), `resolved` (a person resolved it), `open-at-merge` (still open on a merged or closed pull
 * request), else `open`. Pure.
 */

/** A finding's outcome. */
export type FindingOutcome = 'open' | 'addressed' | 'dismissed' | 'resolved' | 'open-at-merge';

/** What the classification reads of one bot thread. */
export interface ThreadFacts {
  resolved: boolean;
  /** Who resolved it, when the platform says. */
  resolvedBy?: string;
  /** Resolved the way the bot resolves, where the platform tells only that (`ReviewThread.resolvedAsFixed`). */
  resolvedAsFixed?: boolean;
  /** The platform says the code under the thread changed since it was written. */
  outdated: boolean;
  /** An allowed user dismissed the finding (thumbs-down). */
  dismissed: boolean;
  prState: 'open' | 'closed' | 'merged';
}

/**
 * The outcome of one finding. A resolved thread counts as `addressed` when the bot resolved it
 * (`botNames`, lower-cased); when the platform does not say who resolved it, when it was resolved
 * the way the bot resolves (`resolvedAsFixed`, Azure DevOps `fixed`), or else when its code changed
 * since (`outdated`: the bot resolves only threads whose code changed); else as `resolved`.
 */
export function findingOutcome(facts: ThreadFacts, botNames: ReadonlySet<string>): FindingOutcome {
  if (facts.dismissed) return 'dismissed';
  if (facts.resolved) {
    if (facts.resolvedBy !== undefined) {
      return botNames.has(facts.resolvedBy.toLowerCase()) ? 'addressed' : 'resolved';
    }
    if (facts.resolvedAsFixed !== undefined) return facts.resolvedAsFixed ? 'addressed' : 'resolved';
    return facts.outdated ? 'addressed' : 'resolved';
  }
  return facts.prState === 'open' ? 'open' : 'open-at-merge';
}
