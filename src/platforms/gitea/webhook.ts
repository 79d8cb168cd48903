/**
 * Placeholder of the Gitea webhook handler (issue 21's webhook half replaces this file): it
 * verifies nothing and ignores every delivery, so the API half compiles on its own.
 */
import type { WebhookHandler } from '../types.js';

/** A webhook handler for `secrets` (placeholder: `verify` is always false). */
export function createGiteaWebhookHandler(secrets: string[]): WebhookHandler {
  void secrets;
  return {
    verify: () => false,
    deliveryId: (request) => request.headers['x-gitea-delivery'],
    parse: () => ({ kind: 'ignored', reason: 'Gitea webhooks are not handled yet' }),
  };
}
