/**
 * Prometheus metrics (prom-client) of one server: webhooks by platform and outcome, jobs by bot type
 * and result, job duration, queue depth, agent tokens, findings by platform, severity and outcome. A registry per instance, no global state.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { ReviewReceipt, TokenUsage } from './review/types.js';
import { createUsageTally, type UsageTotals } from './usage-totals.js';

/** Outcome label of a webhook request. */
export type WebhookOutcome =
  'accepted' | 'ignored' | 'duplicate' | 'unauthorized' | 'bad_request' | 'too_large';

/** What the bot saw become of findings (CONTRACT §23), as `reviewbot_findings_total` counts it. */
export type ObservedFindingOutcome = 'posted' | 'addressed' | 'dismissed';

/**
 * The small interface a review reports its findings' outcomes into (implemented by `Metrics`):
 * `count` findings of `severity` (`P0`…`P3`) on `platform` reached `outcome`.
 */
export interface FindingsMetric {
  findings(platform: string, severity: string, outcome: ObservedFindingOutcome, count: number): void;
}

/** The metrics the server and the jobs record. */
export interface Metrics extends FindingsMetric {
  readonly registry: Registry;
  webhook(platform: string, outcome: WebhookOutcome): void;
  /** A finished job; `durationMs` in milliseconds. */
  job(botType: string, result: 'succeeded' | 'failed', durationMs: number): void;
  /** Jobs queued or running right now. */
  queueDepth(depth: number): void;
  agentTokens(botType: string, usage: TokenUsage): void;
  /** §15: a finished review's receipt — tokens by kind, cost, files skipped by reason. */
  reviewReceipt(receipt: ReviewReceipt): void;
  /**
   * Cluster mode: from now on the token and cost counters (`reviewbot_review_tokens_total`,
   * `reviewbot_review_cost_usd_total`, `reviewbot_reviews_unpriced_total`,
   * `reviewbot_agent_tokens_total`) and `reviewbot_findings_total` export this process's own amounts plus `source()`'s totals (the
   * Job pods', read from the store), fetched at scrape time at most once a second, one read at a
   * time. A failing `source`, or one that has not answered within `SOURCE_TIMEOUT_MS`, keeps its
   * last answer.
   */
  addTotalsSource(source: () => Promise<UsageTotals>): void;
}

/** Shortest time between two reads of an external totals source, ms. */
const SOURCE_MIN_INTERVAL_MS = 1000;
/** Longest a scrape waits for the external totals source, ms (then it keeps the last answer). */
export const SOURCE_TIMEOUT_MS = 2000;

/** Creates a fresh registry with the default process metrics and reviewbot's own. */
export function createMetrics(options: { defaultMetrics?: boolean } = {}): Metrics {
  const registry = new Registry();
  if (options.defaultMetrics ?? true) collectDefaultMetrics({ register: registry });
  const webhooks = new Counter({
    name: 'reviewbot_webhooks_total',
    help: 'Webhook requests by platform and outcome',
    labelNames: ['platform', 'outcome'],
    registers: [registry],
  });
  const jobs = new Counter({
    name: 'reviewbot_jobs_total',
    help: 'Finished jobs by bot type and result',
    labelNames: ['bot_type', 'result'],
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'reviewbot_job_duration_seconds',
    help: 'Job duration in seconds',
    labelNames: ['bot_type'],
    buckets: [1, 5, 15, 30, 60, 120, 300, 600, 1200],
    registers: [registry],
  });
  const depth = new Gauge({
    name: 'reviewbot_queue_depth',
    help: 'Jobs queued or running',
    registers: [registry],
  });
  const tokens = new Counter({
    name: 'reviewbot_agent_tokens_total',
    help: 'LLM tokens used by agents, by bot type and direction',
    labelNames: ['bot_type', 'direction'],
    registers: [registry],
  });
  const reviewTokens = new Counter({
    name: 'reviewbot_review_tokens_total',
    help: 'LLM tokens of reviews by kind (input = uncached input, cache_write, cache_read, output)',
    labelNames: ['kind'],
    registers: [registry],
  });
  const reviewCost = new Counter({
    name: 'reviewbot_review_cost_usd_total',
    help: 'Cost of reviews in USD (reviews whose model has a known price)',
    registers: [registry],
  });
  const unpriced = new Counter({
    name: 'reviewbot_reviews_unpriced_total',
    help: 'Reviews whose cost is unknown (no price for the model)',
    registers: [registry],
  });
  const skippedFiles = new Counter({
    name: 'reviewbot_review_files_skipped_total',
    help: 'Files left out of reviews by reason (lock file, generated, vendored, minified, binary, review.ignore, no diff)',
    labelNames: ['reason'],
    registers: [registry],
  });
  const notReviewed = new Counter({
    name: 'reviewbot_review_files_not_reviewed_total',
    help: 'Files not (fully) reviewed: over review.max_parts or stopped by the cost cap',
    registers: [registry],
  });
  const capped = new Counter({
    name: 'reviewbot_reviews_capped_total',
    help: 'Reviews stopped by review.max_cost_usd',
    registers: [registry],
  });
  const findings = new Counter({
    name: 'reviewbot_findings_total',
    help: 'Findings by platform, severity and what the bot saw become of them (posted, addressed, dismissed)',
    labelNames: ['platform', 'severity', 'outcome'],
    registers: [registry],
  });
  const tally = createUsageTally();
  let source: (() => Promise<UsageTotals>) | undefined;
  let external: UsageTotals = {};
  let refreshing: { at: number; done: Promise<void> } | undefined;
  /** The source read in flight: one at a time, however long it takes. */
  let pending: Promise<void> | undefined;
  /** Sets the four usage counters to this process's tally plus the source's totals. */
  const apply = (): void => {
    const local = tally.totals();
    const fields = new Set([...Object.keys(local), ...Object.keys(external)]);
    for (const counter of [reviewTokens, reviewCost, unpriced, tokens, findings]) counter.reset();
    for (const field of fields) {
      const value = (local[field] ?? 0) + (external[field] ?? 0);
      const [kind, a, b, c] = field.split(':');
      if (kind === 'review_tokens' && a) reviewTokens.inc({ kind: a }, value);
      else if (kind === 'review_cost_usd') reviewCost.inc(value);
      else if (kind === 'reviews_unpriced') unpriced.inc(value);
      else if (kind === 'agent_tokens' && a && b) tokens.inc({ bot_type: a, direction: b }, value);
      else if (kind === 'findings' && a && b && c)
        findings.inc({ platform: a, severity: b, outcome: c }, value);
    }
  };
  const refresh = (): Promise<void> => {
    if (!source) return Promise.resolve();
    const now = Date.now();
    if (!refreshing || now - refreshing.at >= SOURCE_MIN_INTERVAL_MS) {
      const read = source;
      if (!pending) {
        const current: Promise<void> = read()
          .then(
            (totals) => {
              if (source === read) external = totals;
            },
            () => undefined,
          )
          .finally(() => {
            if (pending === current) pending = undefined;
          });
        pending = current;
      }
      // A store that does not answer (its client waits through an outage) never holds a scrape.
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, SOURCE_TIMEOUT_MS);
        timer.unref();
      });
      refreshing = {
        at: now,
        done: Promise.race([pending, timeout]).then(() => {
          clearTimeout(timer);
          apply();
        }),
      };
    }
    return refreshing.done;
  };
  for (const counter of [reviewTokens, reviewCost, unpriced, tokens, findings]) {
    (counter as unknown as { collect: () => Promise<void> }).collect = refresh;
  }
  return {
    registry,
    addTotalsSource: (next) => {
      source = next;
      refreshing = undefined;
      pending = undefined;
    },
    reviewReceipt: (receipt) => {
      tally.reviewReceipt(receipt);
      const { tokens } = receipt;
      reviewTokens.inc({ kind: 'input' }, tokens.input);
      reviewTokens.inc({ kind: 'cache_write' }, tokens.cacheWrite);
      reviewTokens.inc({ kind: 'cache_read' }, tokens.cacheRead);
      reviewTokens.inc({ kind: 'output' }, tokens.output);
      if (receipt.costUsd === null) unpriced.inc();
      else reviewCost.inc(receipt.costUsd);
      for (const file of receipt.files.skipped) skippedFiles.inc({ reason: file.reason });
      notReviewed.inc(receipt.files.notReviewed.length);
      if (receipt.capped) capped.inc();
    },
    findings: (platform, severity, outcome, count) => {
      if (count <= 0) return;
      tally.findings(platform, severity, outcome, count);
      findings.inc({ platform, severity, outcome }, count);
    },
    webhook: (platform, outcome) => webhooks.inc({ platform, outcome }),
    job: (botType, result, durationMs) => {
      jobs.inc({ bot_type: botType, result });
      duration.observe({ bot_type: botType }, durationMs / 1000);
    },
    queueDepth: (n) => depth.set(n),
    agentTokens: (botType, usage) => {
      tally.agentTokens(botType, usage);
      tokens.inc({ bot_type: botType, direction: 'input' }, usage.inputTokens);
      tokens.inc({ bot_type: botType, direction: 'output' }, usage.outputTokens);
    },
  };
}
