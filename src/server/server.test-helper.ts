/**
 * Test harness for the HTTP server: a real `createServer` listening on loopback with the real
 * GitHub platform (webhook secret set, API pointed at a closed port so any API call would fail), a
 * recording dispatcher, fresh metrics and a logger whose lines are captured.
 */
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { createLogger } from '../logger.js';
import { createMetrics, type Metrics } from '../metrics.js';
import { readGitHubSettings } from '../platforms/github/credentials.js';
import { createGitHubPlatform } from '../platforms/github/platform.js';
import type { Platform, PlatformName, ReviewComment } from '../platforms/types.js';
import { SecretMasker } from '../secrets.js';
import { signGitHubWebhook } from '../../test/support/webhook-signing.js';
import { createServer } from './app.js';
import type { CreateServerOptions, Dispatch, DispatchOutcome } from './types.js';

/** The webhook secret of the harness's GitHub platform. */
export const WEBHOOK_SECRET = 'whsec-test-5f1d2c3b';
const TOKEN = 'ghp_harness_token_never_used';

/** One call of the dispatcher. */
export interface DispatchCall {
  platform: Platform;
  comment: ReviewComment;
}

/** A running server. */
export interface Harness {
  app: FastifyInstance;
  /** `http://127.0.0.1:<port>` */
  url: string;
  calls: DispatchCall[];
  metrics: Metrics;
  /** Parsed JSON log lines written so far. */
  logs: () => Record<string, unknown>[];
  /** Raw log text written so far. */
  logText: () => string;
  close: () => Promise<void>;
}

/** Options of `startHarness`. */
export interface HarnessOptions extends Partial<
  Pick<CreateServerOptions, 'bodyLimitBytes' | 'dedupeCapacity' | 'sharedDedupe'>
> {
  /** What the dispatcher answers (default accepted); may throw. */
  outcome?: (comment: ReviewComment) => DispatchOutcome;
}

/** Starts a server: `github` has a webhook secret, `gitlab` is enabled without one. */
export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const env = {
    CODEHOST_TOKEN: TOKEN,
    CODEHOST_WEBHOOK_SECRET: WEBHOOK_SECRET,
    CODEHOST_API_URL: 'http://127.0.0.1:9',
  };
  let text = '';
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      text += chunk.toString();
      callback();
    },
  });
  const logger = createLogger({ destination: sink, level: 'debug', masker: new SecretMasker() });
  const settings = readGitHubSettings(env);
  const noSecret = readGitHubSettings({ CODEHOST_TOKEN: TOKEN });
  if (!settings || !noSecret) throw new Error('harness settings');
  const github = createGitHubPlatform({ settings, logger });
  // Stands in for an enabled platform whose webhook secret is not set.
  const withoutWebhook = createGitHubPlatform({ settings: noSecret, logger });
  const calls: DispatchCall[] = [];
  const dispatch: Dispatch = (platform, comment) => {
    calls.push({ platform, comment });
    return options.outcome ? options.outcome(comment) : { status: 'accepted' };
  };
  const metrics = createMetrics({ defaultMetrics: false });
  const app = createServer({
    platforms: new Map<PlatformName, Platform>([
      ['github', github],
      ['gitlab', withoutWebhook],
    ]),
    dispatch,
    metrics,
    logger,
    ...(options.bodyLimitBytes !== undefined ? { bodyLimitBytes: options.bodyLimitBytes } : {}),
    ...(options.dedupeCapacity !== undefined ? { dedupeCapacity: options.dedupeCapacity } : {}),
    ...(options.sharedDedupe ? { sharedDedupe: options.sharedDedupe } : {}),
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as AddressInfo;
  return {
    app,
    url: `http://127.0.0.1:${port}`,
    calls,
    metrics,
    logs: () =>
      text
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map((line) => JSON.parse(line) as Record<string, unknown>),
    logText: () => text,
    close: () => app.close(),
  };
}

/** Options of `postWebhook`. */
export interface PostOptions {
  event: string;
  deliveryId?: string;
  /** Signature header; default: the body signed with WEBHOOK_SECRET; `null` = no header. */
  signature?: string | null;
  contentType?: string;
  platform?: string;
}

/** POSTs `body` (an object is sent as JSON) to `/webhooks/<platform>` with GitHub's headers. */
export async function postWebhook(
  harness: Harness,
  body: unknown,
  options: PostOptions,
): Promise<{ status: number; json: unknown }> {
  const raw = typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body);
  const headers: Record<string, string> = {
    'content-type': options.contentType ?? 'application/json',
    'x-github-event': options.event,
    'x-github-delivery': options.deliveryId ?? crypto.randomUUID(),
    'user-agent': 'GitHub-Hookshot/044aadd',
  };
  const signature =
    options.signature === undefined ? signGitHubWebhook(WEBHOOK_SECRET, raw) : options.signature;
  if (signature !== null) headers['x-hub-signature-256'] = signature;
  const response = await fetch(`${harness.url}/webhooks/${options.platform ?? 'github'}`, {
    method: 'POST',
    headers,
    body: raw,
  });
  const text = await response.text();
  return { status: response.status, json: text ? (JSON.parse(text) as unknown) : undefined };
}

/** The value of `reviewbot_webhooks_total{platform, outcome}` (0 when never incremented). */
export async function webhookCount(metrics: Metrics, platform: string, outcome: string): Promise<number> {
  const metric = await metrics.registry.getSingleMetric('reviewbot_webhooks_total')?.get();
  const value = metric?.values.find((v) => v.labels.platform === platform && v.labels.outcome === outcome);
  return value?.value ?? 0;
}
