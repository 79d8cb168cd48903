/**
 * Test harness for the webhook edge as `serve` wires it: a real `createServer` on loopback with the
 * real GitHub and GitLab platforms (API pointed at the fake GitHub and the fake GitLab, which record
 * every request), the real dispatcher (`routeEvent` → `handleComment`, which reacts with `eyes`
 * through the platform) and a job runner that records every submitted job. Nothing hostile may
 * reach a fake or the runner.
 */
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { createDispatcher } from '../jobs/handle-comment.js';
import type { JobPayload, JobRunner } from '../jobs/types.js';
import { createLogger } from '../logger.js';
import { createMetrics } from '../metrics.js';
import { readGitHubSettings } from '../platforms/github/credentials.js';
import { createGitHubPlatform } from '../platforms/github/platform.js';
import { createGitLabPlatform } from '../platforms/gitlab/platform.js';
import { readGitLabSettings } from '../platforms/gitlab/settings.js';
import type { Platform, PlatformName } from '../platforms/types.js';
import { SecretMasker } from '../secrets.js';
import { startFakeGitHub, type FakeGitHub } from '../../test/support/fake-github/index.js';
import { sendGitLabWebhook, startFakeGitLab, type FakeGitLab } from '../../test/support/fake-gitlab/index.js';
import { signGitHubWebhook } from '../../test/support/webhook-signing.js';
import { createServer } from './app.js';

/** Secrets and names of the edge harness. */
export const EDGE = {
  githubSecret: 'whsec-edge-7c1f0b2a',
  gitlabSecret: 'glsec-edge-5e2d9a41',
  githubToken: 'ghp_edge_token_0123456789',
  gitlabToken: 'glpat-edge-token-0123456789',
  reviewer: 'review-bot',
  /** Who may trigger by comment (the payloads' authors are set to this login). */
  user: 'alice',
} as const;

/** A running edge harness. */
export interface EdgeHarness {
  url: string;
  github: FakeGitHub;
  gitlab: FakeGitLab;
  /** Jobs the dispatcher submitted. */
  jobs: JobPayload[];
  logText: () => string;
  close: () => Promise<void>;
}

/** Starts the fakes, both platforms, the dispatcher (lifecycle trigger `pr_opened` on) and the server. */
export async function startEdgeHarness(): Promise<EdgeHarness> {
  const github = await startFakeGitHub({ token: EDGE.githubToken });
  const gitlab = await startFakeGitLab({ token: EDGE.gitlabToken });
  let text = '';
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      text += chunk.toString();
      callback();
    },
  });
  const logger = createLogger({ destination: sink, level: 'debug', masker: new SecretMasker() });
  const githubSettings = readGitHubSettings({
    CODEHOST_TOKEN: EDGE.githubToken,
    CODEHOST_WEBHOOK_SECRET: EDGE.githubSecret,
    CODEHOST_API_URL: github.url,
  });
  const gitlabSettings = readGitLabSettings({
    GITLAB_TOKEN: EDGE.gitlabToken,
    GITLAB_URL: gitlab.url,
    GITLAB_WEBHOOK_SECRET: EDGE.gitlabSecret,
  });
  if (!githubSettings || !gitlabSettings) throw new Error('edge harness settings');
  const platforms = new Map<PlatformName, Platform>([
    ['github', createGitHubPlatform({ settings: githubSettings, logger })],
    ['gitlab', createGitLabPlatform({ settings: gitlabSettings, logger })],
  ]);
  const jobs: JobPayload[] = [];
  const jobRunner: JobRunner = {
    submit: (payload) => {
      jobs.push(payload);
    },
    depth: () => jobs.length,
    shutdown: () => Promise.resolve([]),
  };
  const dispatch = createDispatcher({
    rules: {
      reviewerUsername: EDGE.reviewer,
      botIdentities: [],
      allowedRepos: [],
      triggers: ['pr_opened'],
    },
    allowedUsers: [EDGE.user],
    jobRunner,
    logger,
  });
  const app: FastifyInstance = createServer({
    platforms,
    dispatch,
    metrics: createMetrics({ defaultMetrics: false }),
    logger,
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    github,
    gitlab,
    jobs,
    logText: () => text,
    async close() {
      await app.close();
      await github.close();
      await gitlab.close();
    },
  };
}

/** A webhook answer. */
export interface EdgeAnswer {
  status: number;
  json: Record<string, unknown>;
}

/** POSTs `payload` as a signed GitHub delivery of `event`. */
export async function postGitHub(h: EdgeHarness, event: string, payload: unknown): Promise<EdgeAnswer> {
  const raw = JSON.stringify(payload);
  const response = await fetch(`${h.url}/webhooks/github`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-github-event': event,
      'x-github-delivery': crypto.randomUUID(),
      'x-hub-signature-256': signGitHubWebhook(EDGE.githubSecret, raw),
    },
    body: raw,
  });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}

/** POSTs `payload` as a GitLab delivery of `event` carrying the right secret token. */
export async function postGitLab(h: EdgeHarness, event: string, payload: unknown): Promise<EdgeAnswer> {
  const { status, json } = await sendGitLabWebhook(`${h.url}/webhooks/gitlab`, event, payload, {
    token: EDGE.gitlabSecret,
  });
  return { status, json };
}

/** Sets `path` (dot-separated keys) of `payload` to `value`; `undefined` deletes the key. */
export function mutate(payload: Record<string, unknown>, path: string, value: unknown): void {
  const keys = path.split('.');
  const last = keys.pop() as string;
  let node = payload;
  for (const key of keys) node = node[key] as Record<string, unknown>;
  if (value === undefined) delete node[last];
  else node[last] = value;
}
