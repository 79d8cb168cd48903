/**
 * Prometheus metrics (prom-client) of one server: webhooks by platform and outcome, jobs by bot type
 * and result, job duration, queue depth, agent tokens. A registry per instance, no global state.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { TokenUsage } from './review/types.js';

/** Outcome label of a webhook request. */
export type WebhookOutcome =
  'accepted' | 'ignored' | 'duplicate' | 'unauthorized' | 'bad_request' | 'too_large';

/** The metrics the server and the jobs record. */
export interface Metrics {
  readonly registry: Registry;
  webhook(platform: string, outcome: WebhookOutcome): void;
  /** A finished job; `durationMs` in milliseconds. */
  job(botType: string, result: 'succeeded' | 'failed', durationMs: number): void;
  /** Jobs queued or running right now. */
  queueDepth(depth: number): void;
  agentTokens(botType: string, usage: TokenUsage): void;
}

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
  return {
    registry,
    webhook: (platform, outcome) => webhooks.inc({ platform, outcome }),
    job: (botType, result, durationMs) => {
      jobs.inc({ bot_type: botType, result });
      duration.observe({ bot_type: botType }, durationMs / 1000);
    },
    queueDepth: (n) => depth.set(n),
    agentTokens: (botType, usage) => {
      tokens.inc({ bot_type: botType, direction: 'input' }, usage.inputTokens);
      tokens.inc({ bot_type: botType, direction: 'output' }, usage.outputTokens);
    },
  };
}
