import { request as httpRequest } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { issueCommentOnPullRequest } from '../platforms/github/webhook-examples.test-helper.js';
import { postWebhook, startHarness, webhookCount, type Harness } from './server.test-helper.js';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

async function start(options: Parameters<typeof startHarness>[0] = {}): Promise<Harness> {
  harness = await startHarness(options);
  return harness;
}

function mention(body: string): Record<string, unknown> {
  const payload = issueCommentOnPullRequest();
  payload.comment.body = body;
  return payload;
}

describe('body limit', () => {
  const big = Buffer.alloc(26 * 1024 * 1024, 0x20);

  it('answers 413 to a 26 MiB body before verifying it', async () => {
    const h = await start();
    const { status, json } = await postWebhook(h, big, { event: 'issue_comment' });
    expect({ status, json }).toEqual({ status: 413, json: { error: 'request body too large' } });
    expect(h.calls).toHaveLength(0);
    expect(await webhookCount(h.metrics, 'github', 'too_large')).toBe(1);
    expect(await webhookCount(h.metrics, 'github', 'unauthorized')).toBe(0);
  });

  it('answers 413 to a chunked body that grows over the limit', async () => {
    const h = await start({ bodyLimitBytes: 1024 * 1024 });
    const status = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(`${h.url}/webhooks/github`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-github-event': 'ping' },
      });
      req.on('response', (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      });
      req.on('error', reject);
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      for (let i = 0; i < 20; i++) req.write(chunk); // 1.25 MiB, no Content-Length
      req.end();
    });
    expect(status).toBe(413);
    expect(await webhookCount(h.metrics, 'github', 'too_large')).toBe(1);
  });

  it('accepts a body just under the limit', async () => {
    const h = await start({ bodyLimitBytes: 64 * 1024 });
    const payload = mention(`@review-bot ${'x'.repeat(50 * 1024)}`);
    const { status } = await postWebhook(h, payload, { event: 'issue_comment' });
    expect(status).toBe(200);
    expect(h.calls).toHaveLength(1);
  });
});
