/**
 * `reviewbot stats <platform>:<repo> [--since DATE] [--json] [--max-prs N]` (CONTRACT §2, §23): what
 * became of the bot's findings in one repository (`src/stats/`), with the repository's learnings
 * (dismissals) from the learnings store. Wiring only. Exit codes: 0; 1 a
 * platform failure; 2 usage or configuration.
 */
import { loadConfig } from '../config/load-config.js';
import type { RawConfig } from '../config/schema.js';
import {
  openLearningsStore,
  type Learning,
  type LearningsScope,
  type LearningsStore,
} from '../learnings/index.js';
import { describeError, ReviewbotError, UsageError } from '../errors.js';
import { EVAL_SEVERITIES } from '../eval/severity.js';
import { createCliLogger } from '../logger.js';
import type { PlatformName } from '../platforms/types.js';
import { SecretMasker, secretValues } from '../secrets.js';
import { collectStats, type StatsReport } from '../stats/collect.js';
import { buildPlatform } from './build-platform.js';
import { parseLearningsTarget } from './learnings-command.js';

/** Options of `reviewbot stats`. */
export interface StatsCommandOptions {
  target: string;
  since?: string;
  json: boolean;
  maxPrs?: string;
  config?: string;
}

/** Days before now that `--since` defaults to. */
export const DEFAULT_SINCE_DAYS = 30;
/** Pull requests read at most unless `--max-prs` says otherwise. */
export const DEFAULT_MAX_PRS = 200;

/**
 * `--since`: a date (`2025-06-01`, read as UTC midnight) or an ISO time; default 30 days before `now`.
 * @throws UsageError naming the expected form.
 */
export function parseSince(value: string | undefined, now: Date = new Date()): Date {
  if (value === undefined) return new Date(now.getTime() - DEFAULT_SINCE_DAYS * 86_400_000);
  const time = /^\d{4}-\d\d-\d\d(T[\d:.]+(Z|[+-]\d\d:\d\d)?)?$/.test(value.trim()) ? Date.parse(value) : NaN;
  if (Number.isNaN(time)) throw new UsageError(`--since expects a date such as 2025-06-01; got "${value}"`);
  return new Date(time);
}

/** `--max-prs`: a whole number from 1. @throws UsageError. */
export function parseMaxPrs(value: string | undefined): number {
  if (value === undefined) return DEFAULT_MAX_PRS;
  if (!/^\d{1,6}$/.test(value.trim()) || Number(value) < 1) {
    throw new UsageError(`--max-prs expects a whole number from 1; got "${value}"`);
  }
  return Number(value);
}

function percent(rate: number | null): string {
  return rate === null ? '—' : `${(rate * 100).toFixed(1)}%`;
}

/** The terminal's view of a report. */
export function formatStatsText(report: StatsReport): string {
  const head = ['severity', 'posted', 'addressed', 'dismissed', 'resolved', 'open at merge', 'acted on'];
  const rows = EVAL_SEVERITIES.map((s) => {
    const c = report.bySeverity[s];
    const rate = c.posted === 0 ? null : (c.addressed + c.resolved) / c.posted;
    return [s, c.posted, c.addressed, c.dismissed, c.resolved, c.openAtMerge, percent(rate)].map(String);
  });
  const table = [head, ...rows];
  const widths = head.map((_, i) => Math.max(...table.map((r) => r[i]!.length)));
  const lines = table.map((r) =>
    r
      .map((cell, i) => cell.padEnd(widths[i]!))
      .join('  ')
      .trimEnd(),
  );
  return [
    `Findings of ${report.repo} on ${report.pullRequests} pull requests updated since ${report.since.slice(0, 10)}`,
    ...(report.truncated ? ['(stopped at --max-prs: older pull requests were not read)'] : []),
    '',
    ...lines,
    '',
    `Acted on: ${percent(report.actedOnRate)} of posted findings (addressed + resolved by a person).`,
    '',
  ].join('\n');
}

/**
 * The repository's learnings from the store reviews write (`store.url`, else the files under
 * `workspace.base_dir`), for the dismissals and the `learn`s written in findings' threads; none,
 * with a note on stderr, when the store cannot be read (the counts then miss those dismissals).
 */
async function readLearnings(config: RawConfig, scope: LearningsScope): Promise<Learning[]> {
  let store: LearningsStore | undefined;
  try {
    store = await openLearningsStore({
      ...(config.store.url ? { storeUrl: config.store.url } : {}),
      baseDir: config.workspace.base_dir,
    });
    return await store.list(scope);
  } catch (error) {
    const reason = describeError(error).replace(/rediss?:\/\/[^\s]*/g, 'redis://…');
    process.stderr.write(
      `reviewbot stats: could not read the learnings (${reason}); dismissals stored there are not counted\n`,
    );
    return [];
  } finally {
    await store?.close().catch(() => undefined);
  }
}

/** Runs `reviewbot stats`; returns the exit code. */
export async function runStatsCommand(
  options: StatsCommandOptions,
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  const masker = new SecretMasker(secretValues(env));
  const logger = createCliLogger(env, masker);
  try {
    const scope = parseLearningsTarget(options.target);
    const since = parseSince(options.since);
    const maxPrs = parseMaxPrs(options.maxPrs);
    const { config } = loadConfig({ ...(options.config ? { configFile: options.config } : {}), env });
    const platform = await buildPlatform({ env, logger, requested: scope.platform as PlatformName });
    const botNames = new Set(
      [...(await platform.getBotUsernames()), config.reviewer.bot_username, config.worker.bot_username]
        .filter((n): n is string => n !== undefined)
        .map((n) => n.toLowerCase()),
    );
    const learnings = await readLearnings(config, scope);
    const report = await collectStats({
      platform,
      repoFullName: scope.repo,
      since,
      maxPrs,
      botNames,
      allowedUsers: config.access.allowed_users,
      learnings,
      onPullRequest: (done, total) =>
        process.stderr.write(`reviewbot stats: pull request ${done} of ${total}\n`),
    });
    if (report.truncated) {
      process.stderr.write(
        `reviewbot stats: stopped at ${maxPrs} pull requests (--max-prs); older ones were not read\n`,
      );
    }
    process.stdout.write(options.json ? `${JSON.stringify(report)}\n` : formatStatsText(report));
    return 0;
  } catch (error) {
    const code = error instanceof ReviewbotError ? error.exitCode : 1;
    process.stderr.write(`reviewbot: ${masker.mask(describeError(error))}\n`);
    if (!(error instanceof ReviewbotError)) logger.error({ err: error }, 'unexpected error');
    return code;
  }
}
