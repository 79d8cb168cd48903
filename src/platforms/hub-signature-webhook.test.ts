/**
 * The shared `X-Hub-Signature: sha256=<hex>` handler (Bitbucket Cloud and Data Center): which
 * signatures it accepts, which header names it reads, and what its parser is given.
 */
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../errors.js';
import {
  createHubSignatureWebhookHandler,
  type HubSignatureWebhookOptions,
} from './hub-signature-webhook.js';
import type { WebhookParseResult, WebhookRequest } from './types.js';

const BODY = Buffer.from('{"eventKey":"pr:opened"}');
const sign = (key: string, body: Buffer = BODY) => createHmac('sha256', key).update(body).digest('hex');

/** A handler whose parser records what it was given. */
function handlerWith(secrets: readonly string[], parse?: HubSignatureWebhookOptions['parse']) {
  const calls: { event: string | undefined; deliveryId: string }[] = [];
  const handler = createHubSignatureWebhookHandler(secrets, {
    secretVariable: 'EXAMPLE_WEBHOOK_SECRET',
    deliveryHeader: 'x-request-id',
    parse:
      parse ??
      ((event, deliveryId): WebhookParseResult => {
        calls.push({ event, deliveryId });
        return { kind: 'ignored', reason: `parsed ${event}` };
      }),
  });
  return { handler, calls };
}

const withSignature = (signature: string | undefined, body: Buffer = BODY): WebhookRequest => ({
  headers: { 'x-hub-signature': signature },
  rawBody: body,
});

describe('X-Hub-Signature verification', () => {
  const { handler } = handlerWith(['new-secret', 'old-secret']);

  it.each([
    ['the signature under the new secret', `sha256=${sign('new-secret')}`, true],
    ['the signature under the old secret (rotation)', `sha256=${sign('old-secret')}`, true],
    ['upper-case hex', `sha256=${sign('new-secret').toUpperCase()}`, true],
    ['surrounding blanks', `  sha256=${sign('new-secret')} `, true],
    ['a signature under another secret', `sha256=${sign('forged')}`, false],
    ['the bare hex without sha256=', sign('new-secret'), false],
    ['another algorithm name', `sha1=${sign('new-secret')}`, false],
    ['a truncated signature', `sha256=${sign('new-secret').slice(0, 62)}`, false],
    ['a signature with a byte too many', `sha256=${sign('new-secret')}00`, false],
    ['text after the signature', `sha256=${sign('new-secret')} x`, false],
    [
      'the header sent twice (joined by a comma)',
      `sha256=${sign('new-secret')}, sha256=${sign('new-secret')}`,
      false,
    ],
    ['text before sha256=', `x-sha256=${sign('new-secret')}`, false],
    ['no hex', 'sha256=', false],
    ['an empty header', '', false],
    ['no header', undefined, false],
  ])('%s → %s', (_name, signature, expected) => {
    expect(handler.verify(withSignature(signature))).toBe(expected);
  });

  it('refuses a valid signature of another body', () => {
    const signature = `sha256=${sign('new-secret')}`;
    expect(handler.verify(withSignature(signature, Buffer.from('{"eventKey":"pr:merged"}')))).toBe(false);
  });

  it('reads only X-Hub-Signature, not GitHub’s X-Hub-Signature-256', () => {
    const request = { headers: { 'x-hub-signature-256': `sha256=${sign('new-secret')}` }, rawBody: BODY };
    expect(handler.verify(request)).toBe(false);
  });

  it('never throws, even on a request whose headers cannot be read', () => {
    const headers = new Proxy({} as Record<string, string>, {
      get() {
        throw new Error('unreadable headers');
      },
    });
    expect(handler.verify({ headers, rawBody: BODY })).toBe(false);
  });

  it('skips empty secrets: an HMAC under the empty key verifies nothing', () => {
    const { handler: withBlank } = handlerWith(['', 'new-secret']);
    expect(withBlank.verify(withSignature(`sha256=${sign('')}`))).toBe(false);
    expect(withBlank.verify(withSignature(`sha256=${sign('new-secret')}`))).toBe(true);
  });

  it('refuses a configuration without a non-empty secret, naming its variable', () => {
    expect(() => handlerWith([])).toThrow(ConfigError);
    expect(() => handlerWith(['', ''])).toThrow('EXAMPLE_WEBHOOK_SECRET: empty');
  });
});

describe('delivery id and parsing', () => {
  it('reads the delivery id from the platform’s header, trimmed; none when absent or blank', () => {
    const { handler } = handlerWith(['s']);
    expect(handler.deliveryId({ headers: { 'x-request-id': ' r-1 ' }, rawBody: BODY })).toBe('r-1');
    expect(handler.deliveryId({ headers: { 'x-request-uuid': 'r-1' }, rawBody: BODY })).toBeUndefined();
    expect(handler.deliveryId({ headers: { 'x-request-id': '  ' }, rawBody: BODY })).toBeUndefined();
  });

  it('gives the parser the trimmed X-Event-Key and delivery id', () => {
    const { handler, calls } = handlerWith(['s']);
    const headers = { 'x-event-key': ' pr:opened ', 'x-request-id': ' r-1 ' };
    expect(handler.parse({ headers, rawBody: BODY }, {})).toEqual({
      kind: 'ignored',
      reason: 'parsed pr:opened',
    });
    expect(calls).toEqual([{ event: 'pr:opened', deliveryId: 'r-1' }]);
  });

  it('gives the parser an empty delivery id and no event when the headers are missing', () => {
    const { handler, calls } = handlerWith(['s']);
    handler.parse({ headers: {}, rawBody: BODY }, {});
    expect(calls).toEqual([{ event: undefined, deliveryId: '' }]);
  });

  it('answers "unreadable payload" when the parser throws', () => {
    const { handler } = handlerWith(['s'], () => {
      throw new TypeError('bad payload');
    });
    expect(handler.parse({ headers: { 'x-event-key': 'pr:opened' }, rawBody: BODY }, {})).toEqual({
      kind: 'ignored',
      reason: 'unreadable payload',
    });
  });
});
