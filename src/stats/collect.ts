/**
 * `reviewbot stats` (CONTRACT §23): what became of the bot's findings in one repository. One listing
 * of the pull requests updated since a date (`Platform.listPullRequests`), then for each pull
 * request the memory reads a review makes: its review threads (the bot's, with a finding marker)
 * and the reactions on each of them (dismissals), plus the repository's learnings: a dismissal or
 * a `learn` written in a finding's thread names that finding by path and fingerprint. Counted per
 * severity; findings of one pull request are read one pull request at a time.
 */
import { PlatformError } from '../errors.js';
import { EVAL_SEVERITIES, findingSeverity, type EvalSeverity } from '../eval/severity.js';
import type { Learning } from '../learnings/index.js';
import type { Platform, PullRequestSummary } from '../platforms/types.js';
import { earlierFindings } from '../review/memory/state.js';
import { findingOutcome, type FindingOutcome } from './outcome.js';

/** Counts of one severity. */
export interface SeverityStats {
  posted: number;
  addressed: number;
  dismissed: number;
  resolved: number;
  openAtMerge: number;
}

/** What `--json` prints. */
export interface StatsReport {
  /** `<platform>:<repo>`. */
  repo: string;
  /** ISO time: pull requests updated at or after it were read. */
  since: string;
  /** Pull requests read. */
  pullRequests: number;
  /** True when `--max-prs` stopped the listing. */
  truncated: boolean;
  bySeverity: Record<EvalSeverity, SeverityStats>;
  /** (addressed + resolved) / posted over all severities, 4 decimals; null when nothing was posted. */
  actedOnRate: number | null;
}

/** Input of `collectStats`. */
export interface CollectStatsInput {
  platform: Platform;
  repoFullName: string;
  since: Date;
  maxPrs: number;
  /** The bot's logins, lower-cased (authenticated account plus configured bot usernames). */
  botNames: ReadonlySet<string>;
  /** `access.allowed_users`: only their thumbs-down dismisses a finding (case-insensitive). */
  allowedUsers: readonly string[];
  /**
   * The repository's learnings (`reviewbot learnings list`): one with a finding's path and
   * fingerprint dismisses it (a stored thumbs-down, or a `learn` written in its thread; only
   * allowed users can teach). Default none.
   */
  learnings?: readonly Learning[];
  /** Called after each pull request (for progress). */
  onPullRequest?: (done: number, total: number) => void;
}

const OUTCOME_KEY: Partial<Record<FindingOutcome, keyof SeverityStats>> = {
  addressed: 'addressed',
  dismissed: 'dismissed',
  resolved: 'resolved',
  'open-at-merge': 'openAtMerge',
};

function emptyStats(): Record<EvalSeverity, SeverityStats> {
  const zero = (): SeverityStats => ({ posted: 0, addressed: 0, dismissed: 0, resolved: 0, openAtMerge: 0 });
  return { P0: zero(), P1: zero(), P2: zero(), P3: zero() };
}

/** One finding of the bot with its severity and outcome. */
export interface ObservedFinding {
  prNumber: number;
  path: string;
  severity: EvalSeverity;
  outcome: FindingOutcome;
}

/**
 * The findings of one pull request with their outcomes.
 * @throws AuthError / PlatformError from the platform.
 */
export async function observePullRequest(
  platform: Platform,
  repoFullName: string,
  pr: PullRequestSummary,
  botNames: ReadonlySet<string>,
  allowed: ReadonlySet<string>,
  learned: ReadonlySet<string> = new Set(),
): Promise<ObservedFinding[]> {
  const threads = platform.listReviewThreads ? await platform.listReviewThreads(repoFullName, pr.number) : [];
  const out: ObservedFinding[] = [];
  for (const { thread, marker } of earlierFindings(threads, new Set(botNames))) {
    let dismissed = learned.has(learnedKey(thread.path, marker.fp));
    if (!dismissed && platform.listReactions && thread.commentId && allowed.size > 0) {
      const reactions = await platform.listReactions({
        repoFullName,
        prNumber: pr.number,
        commentId: thread.commentId,
        commentType: 'review_comment',
      });
      dismissed = reactions.some((r) => r.content === '-1' && allowed.has(r.username.toLowerCase()));
    }
    out.push({
      prNumber: pr.number,
      path: thread.path,
      severity: findingSeverity(marker),
      outcome: findingOutcome(
        {
          resolved: thread.resolved,
          ...(thread.resolvedBy !== undefined ? { resolvedBy: thread.resolvedBy } : {}),
          ...(thread.resolvedAsFixed !== undefined ? { resolvedAsFixed: thread.resolvedAsFixed } : {}),
          outdated: thread.outdated,
          dismissed,
          prState: pr.state,
        },
        botNames,
      ),
    });
  }
  return out;
}

function learnedKey(path: string, fingerprint: string): string {
  return `${path}\0${fingerprint}`;
}

/**
 * The findings `learnings` dismiss, as `path\0fingerprint` keys: a dismissal stores the finding's
 * path as it is, a `learn` in its thread as a glob matching exactly that path (`escapeGlob`), read
 * back here without its escapes.
 */
export function learnedFindings(learnings: readonly Learning[]): Set<string> {
  const out = new Set<string>();
  for (const l of learnings) {
    if (l.path === undefined || !l.fingerprint) continue;
    out.add(learnedKey(l.path, l.fingerprint));
    out.add(learnedKey(l.path.replace(/\\(.)/g, '$1'), l.fingerprint));
  }
  return out;
}

/**
 * Reads the repository's recent pull requests and counts what became of the bot's findings.
 * @throws PlatformError when the platform cannot list pull requests; AuthError / PlatformError from
 *   its calls.
 */
export async function collectStats(input: CollectStatsInput): Promise<StatsReport> {
  const { platform, repoFullName } = input;
  if (!platform.listPullRequests) {
    throw new PlatformError(`${platform.name} cannot list pull requests: stats are not available there yet`);
  }
  const listing = await platform.listPullRequests(repoFullName, {
    updatedSince: input.since,
    max: input.maxPrs,
  });
  const allowed = new Set(input.allowedUsers.map((u) => u.toLowerCase()));
  const learned = learnedFindings(input.learnings ?? []);
  const bySeverity = emptyStats();
  for (const [i, pr] of listing.pullRequests.entries()) {
    const found = await observePullRequest(platform, repoFullName, pr, input.botNames, allowed, learned);
    for (const finding of found) {
      const counts = bySeverity[finding.severity];
      counts.posted++;
      const key = OUTCOME_KEY[finding.outcome];
      if (key) counts[key]++;
    }
    input.onPullRequest?.(i + 1, listing.pullRequests.length);
  }
  let posted = 0;
  let actedOn = 0;
  for (const severity of EVAL_SEVERITIES) {
    const s = bySeverity[severity];
    posted += s.posted;
    actedOn += s.addressed + s.resolved;
  }
  return {
    repo: `${platform.name}:${repoFullName}`,
    since: input.since.toISOString(),
    pullRequests: listing.pullRequests.length,
    truncated: listing.truncated,
    bySeverity,
    actedOnRate: posted === 0 ? null : Math.round((actedOn / posted) * 10_000) / 10_000,
  };
}
