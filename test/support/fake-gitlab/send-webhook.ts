/**
 * Delivers a webhook the way GitLab does (GitLab docs, "Webhooks"): `POST` with the JSON body and
 * `X-Gitlab-Event`, `X-Gitlab-Token` (the secret token, verbatim), `X-Gitlab-Event-UUID`,
 * `X-Gitlab-Webhook-UUID`, `X-Gitlab-Instance` and a `GitLab/<version>` user agent.
 */
import { randomUUID } from 'node:crypto';

/** Options of `sendGitLabWebhook`. */
export interface SendGitLabWebhookOptions {
  /** `X-Gitlab-Token`; omitted when undefined. */
  token?: string;
  /** `X-Gitlab-Event-UUID`; a fresh UUID by default. */
  eventUuid?: string;
  /** `X-Gitlab-Instance`. Default `https://gitlab.example.com`. */
  instance?: string;
}

/** Posts `payload` to `url` as a GitLab `event` (e.g. `Note Hook`); returns the status, JSON answer and ack time (ms). */
export async function sendGitLabWebhook(
  url: string,
  event: string,
  payload: unknown,
  options: SendGitLabWebhookOptions = {},
): Promise<{ status: number; json: Record<string, unknown>; ms: number; eventUuid: string }> {
  const eventUuid = options.eventUuid ?? randomUUID();
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': 'GitLab/17.8.0',
    'x-gitlab-event': event,
    'x-gitlab-event-uuid': eventUuid,
    'x-gitlab-webhook-uuid': '2c3b5d0a-1b8e-4c1e-9f55-2f6a7d0c1e01',
    'x-gitlab-instance': options.instance ?? 'https://gitlab.example.com',
  };
  if (options.token !== undefined) headers['x-gitlab-token'] = options.token;
  const started = Date.now();
  const response = await fetch(url, { method: 'POST', headers, body: JSON.stringify(payload) });
  const ms = Date.now() - started;
  const text = await response.text();
  let json: Record<string, unknown>;
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    json = { raw: text };
  }
  return { status: response.status, json, ms, eventUuid };
}
