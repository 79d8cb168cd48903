/**
 * Real GitHub webhook payloads from `@octokit/webhooks-examples` (its `api.github.com/index.json`:
 * an array of `{ name, actions, examples[] }`, one entry per event), deep-copied so a test may edit
 * them, plus a signed `WebhookRequest` builder. Test-only (excluded from the build).
 */
import { createRequire } from 'node:module';
import { signGitHubWebhook } from '../../../test/support/webhook-signing.js';
import type { WebhookRequest } from '../types.js';

/** A payload as free-form JSON; tests reach into it the way GitHub documents it. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type ExamplePayload = Record<string, any>;

interface WebhookDefinition {
  name: string;
  examples: ExamplePayload[];
}

const definitions = createRequire(import.meta.url)('@octokit/webhooks-examples') as WebhookDefinition[];

/**
 * A deep copy of the first example of `event` whose `action` is `action` (any action when omitted)
 * and that satisfies `where`.
 * @throws Error when the package has no such example.
 */
export function githubExample(
  event: string,
  action?: string,
  where: (payload: ExamplePayload) => boolean = () => true,
): ExamplePayload {
  const definition = definitions.find((d) => d.name === event);
  const example = definition?.examples.find(
    (payload) => (action === undefined || payload.action === action) && where(payload),
  );
  if (!example) throw new Error(`no @octokit/webhooks-examples example for ${event}.${action ?? '*'}`);
  return structuredClone(example);
}

/**
 * The `issue_comment` `created` example turned into a comment on pull request `issue.number` (the
 * package's examples are all on plain issues; GitHub marks a PR by `issue.pull_request`).
 */
export function issueCommentOnPullRequest(): ExamplePayload {
  const payload = githubExample('issue_comment', 'created');
  const issueUrl: string = payload.issue.url;
  payload.issue.pull_request = {
    url: issueUrl.replace('/issues/', '/pulls/'),
    html_url: String(payload.issue.html_url).replace('/issues/', '/pull/'),
    diff_url: `${String(payload.issue.html_url).replace('/issues/', '/pull/')}.diff`,
    patch_url: `${String(payload.issue.html_url).replace('/issues/', '/pull/')}.patch`,
    merged_at: null,
  };
  return payload;
}

/** Options of `signedGitHubRequest`. */
export interface SignedRequestOptions {
  secret: string;
  event: string;
  deliveryId?: string;
}

/** A `WebhookRequest` carrying `payload` as JSON, signed with `secret`, with GitHub's headers. */
export function signedGitHubRequest(payload: unknown, options: SignedRequestOptions): WebhookRequest {
  const rawBody = Buffer.from(JSON.stringify(payload));
  return {
    headers: {
      'content-type': 'application/json',
      'x-github-event': options.event,
      'x-github-delivery': options.deliveryId ?? '72d3162e-cc78-11e3-81ab-4c9367dc0958',
      'x-hub-signature-256': signGitHubWebhook(options.secret, rawBody),
    },
    rawBody,
  };
}
