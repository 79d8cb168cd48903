import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../errors.js';
import { silentLogger } from '../../logger.js';
import { signGitHubWebhook } from '../../../test/support/webhook-signing.js';
import type { WebhookRequest } from '../types.js';
import { readGitHubSettings } from './credentials.js';
import { createGitHubPlatform } from './platform.js';
import { createGitHubWebhookHandler, splitWebhookSecrets } from './webhook.js';
import { githubExample, signedGitHubRequest } from './webhook-examples.test-helper.js';

const SECRET = 'It-is-a-Secret-to-Everybody';
const handler = createGitHubWebhookHandler([SECRET]);

function withSignature(request: WebhookRequest, signature: string | undefined): WebhookRequest {
  return { ...request, headers: { ...request.headers, 'x-hub-signature-256': signature } };
}

describe('GitHub webhook verification', () => {
  const request = signedGitHubRequest(githubExample('ping'), { secret: SECRET, event: 'ping' });
  const goodHex = createHmac('sha256', SECRET).update(request.rawBody).digest('hex');

  it('accepts the HMAC-SHA256 of the raw body (GitHub documentation test vector)', () => {
    // From GitHub's "Validating webhook deliveries" page.
    const docs: WebhookRequest = {
      headers: {
        'x-hub-signature-256': 'sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17',
      },
      rawBody: Buffer.from('Hello, World!'),
    };
    expect(createGitHubWebhookHandler(["It's a Secret to Everybody"]).verify(docs)).toBe(true);
    expect(handler.verify(request)).toBe(true);
    expect(handler.verify(withSignature(request, `sha256=${goodHex.toUpperCase()}`))).toBe(true);
  });

  it.each([
    ['missing', undefined],
    ['empty', ''],
    ['sha1 only', `sha1=${goodHex.slice(0, 40)}`],
    ['no prefix', goodHex],
    ['too short', `sha256=${goodHex.slice(0, 62)}`],
    ['too long', `sha256=${goodHex}00`],
    ['not hex', `sha256=${'z'.repeat(64)}`],
    ['text before sha256=', `x-sha256=${goodHex}`],
    ['doubled (the header sent twice, joined by a comma)', `sha256=${goodHex}, sha256=${goodHex}`],
    ['one digit off', `sha256=${goodHex.slice(0, 63)}${goodHex.endsWith('0') ? '1' : '0'}`],
    ['another secret', signGitHubWebhook('another-secret', request.rawBody)],
  ])('rejects a %s signature without throwing', (_name, signature) => {
    expect(handler.verify(withSignature(request, signature))).toBe(false);
  });

  it('rejects a body changed after signing', () => {
    const tampered = Buffer.from(request.rawBody);
    tampered.writeUInt8(tampered.readUInt8(5) ^ 1, 5);
    expect(handler.verify({ ...request, rawBody: tampered })).toBe(false);
  });

  it('accepts any of several secrets during rotation', () => {
    const rotating = createGitHubWebhookHandler(splitWebhookSecrets(`new-secret-2, ${SECRET}`));
    expect(rotating.verify(request)).toBe(true);
    const signedNew = withSignature(request, signGitHubWebhook('new-secret-2', request.rawBody));
    expect(rotating.verify(signedNew)).toBe(true);
    expect(handler.verify(signedNew)).toBe(false);
    const signedOther = withSignature(request, signGitHubWebhook('retired-secret', request.rawBody));
    expect(rotating.verify(signedOther)).toBe(false);
  });

  it.each([
    ['one', ['one']],
    [' a , b ,, c ', ['a', 'b', 'c']],
    ['with spaces inside,x', ['with spaces inside', 'x']],
  ])('splits the secret setting %j', (value, expected) => {
    expect(splitWebhookSecrets(value)).toEqual(expected);
  });

  it('refuses a setting without any secret, naming the variable', () => {
    expect(() => splitWebhookSecrets(' , ,')).toThrow(ConfigError);
    expect(() => splitWebhookSecrets(' , ,')).toThrow(
      'CODEHOST_WEBHOOK_SECRET: no secret in the comma-separated list',
    );
    expect(() => createGitHubWebhookHandler([''])).toThrow('CODEHOST_WEBHOOK_SECRET: empty');
  });

  it('never throws, even on a request whose headers cannot be read', () => {
    const headers = new Proxy({} as Record<string, string>, {
      get() {
        throw new Error('unreadable headers');
      },
    });
    expect(handler.verify({ headers, rawBody: request.rawBody })).toBe(false);
  });

  it('reads the delivery id from X-GitHub-Delivery, trimmed', () => {
    expect(handler.deliveryId(request)).toBe('72d3162e-cc78-11e3-81ab-4c9367dc0958');
    expect(handler.deliveryId({ headers: { 'x-github-delivery': ' d-1 ' }, rawBody: Buffer.alloc(0) })).toBe(
      'd-1',
    );
    expect(
      handler.deliveryId({ headers: { 'x-github-delivery': ' ' }, rawBody: Buffer.alloc(0) }),
    ).toBeUndefined();
    expect(handler.deliveryId({ headers: {}, rawBody: Buffer.alloc(0) })).toBeUndefined();
  });
});

describe('GitHub platform wiring', () => {
  it.each([
    [{ CODEHOST_TOKEN: 'ghp_test_token_1', CODEHOST_WEBHOOK_SECRET: SECRET }, true],
    [{ GITHUB_TOKEN: 'ghp_test_token_1', GITHUB_WEBHOOK_SECRET: `rotated,${SECRET}` }, true],
    [{ CODEHOST_TOKEN: 'ghp_test_token_1' }, false],
  ])('has a webhook handler only when the secret is set (%#)', (env, present) => {
    const settings = readGitHubSettings(env);
    if (!settings) throw new Error('settings expected');
    const platform = createGitHubPlatform({ settings, logger: silentLogger() });
    expect(platform.webhook !== undefined).toBe(present);
    if (platform.webhook) {
      const request = signedGitHubRequest(githubExample('ping'), { secret: SECRET, event: 'ping' });
      expect(platform.webhook.verify(request)).toBe(true);
    }
  });
});
