/**
 * Test harness for Gitea webhooks as `serve` wires them: a real `createServer` on loopback whose
 * `gitea` platform carries the real `createGiteaWebhookHandler`, the real dispatcher (`routeEvent`
 * → `handleComment`) and a job runner that records every submitted job. The platform's API methods
 * record reactions and refuse everything else (a webhook must not wait for the API).
 */
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { createDispatcher } from '../../jobs/handle-comment.js';
import type { JobPayload, JobRunner } from '../../jobs/types.js';
import { createLogger } from '../../logger.js';
import { createMetrics } from '../../metrics.js';
import { SecretMasker } from '../../secrets.js';
import { createServer } from '../../server/app.js';
import type { CommentTarget, Platform, PlatformName } from '../types.js';
import { createGiteaWebhookHandler } from './webhook.js';
import {
  sendGiteaWebhook,
  type GiteaWebhookAnswer,
  type SendGiteaWebhookOptions,
} from '../../../test/support/fake-gitea/send-webhook.js';
import type {
  GiteaHook,
  GiteaHookContext,
  GiteaHookPullRequest,
} from '../../../test/support/fake-gitea/webhook-payloads.js';

/** Names and secrets of the harness. */
export const HOOKS = {
  secret: 'gitea-hook-secret-3a9c',
  oldSecret: 'gitea-hook-secret-old-77d1',
  reviewer: 'rb.bot',
  worker: 'rb-bot',
  /** The bot's own account (what `GET /user` would answer). */
  self: 'reviewbot_gitea',
  user: 'alice',
} as const;

/** The repository and pull request of the harness's payloads. */
export const CTX: GiteaHookContext = {
  baseUrl: 'http://gitea.test:3000',
  owner: 'acme',
  repo: 'widgets',
  sender: HOOKS.user,
};
export const PR: GiteaHookPullRequest = {
  number: 7,
  title: 'Add the parser',
  headBranch: 'feature/parser',
  headSha: '3f786850e387550fdab836ed7e6dc881de23001b',
  baseBranch: 'main',
  baseSha: '89e6c98d92887913cadf06b2adb97f26cde4849b',
};

/** A running harness. */
export interface HooksHarness {
  url: string;
  jobs: JobPayload[];
  reactions: CommentTarget[];
  logText: () => string;
  /** Delivers `hook` signed with the harness's secret (options may override anything). */
  send: (hook: GiteaHook, options?: SendGiteaWebhookOptions) => Promise<GiteaWebhookAnswer>;
  close: () => Promise<void>;
}

function refuse(): Promise<never> {
  return Promise.reject(new Error('no API call expected while answering a webhook'));
}

/** Starts the harness; lifecycle triggers `pr_opened`, `pr_push` and `pr_reopened` are enabled. */
export async function startHooksHarness(): Promise<HooksHarness> {
  let text = '';
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      text += chunk.toString();
      callback();
    },
  });
  const logger = createLogger({ destination: sink, level: 'debug', masker: new SecretMasker() });
  const reactions: CommentTarget[] = [];
  const platform: Platform = {
    name: 'gitea',
    webhook: createGiteaWebhookHandler([HOOKS.secret, HOOKS.oldSecret]),
    getPullRequest: refuse,
    listPullRequestFiles: refuse,
    listComments: refuse,
    getBotUsernames: () => Promise.resolve([HOOKS.self]),
    addReaction: (target) => {
      reactions.push(target);
      return Promise.resolve();
    },
    postReply: refuse,
    submitReview: refuse,
    getGitCredentials: refuse,
    renderSuggestion: (suggestion) => suggestion,
  };
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
      reviewerUsername: HOOKS.reviewer,
      workerUsername: HOOKS.worker,
      botIdentities: [HOOKS.self],
      allowedRepos: [],
      triggers: ['pr_opened', 'pr_push', 'pr_reopened'],
    },
    allowedUsers: [HOOKS.user, HOOKS.self, HOOKS.reviewer],
    jobRunner,
    logger,
  });
  const app = createServer({
    platforms: new Map<PlatformName, Platform>([['gitea', platform]]),
    dispatch,
    metrics: createMetrics({ defaultMetrics: false }),
    logger,
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    jobs,
    reactions,
    logText: () => text,
    send: (hook, options = {}) =>
      sendGiteaWebhook(`${url}/webhooks/gitea`, hook.names, hook.payload, {
        secret: HOOKS.secret,
        ...options,
      }),
    close: () => app.close(),
  };
}
