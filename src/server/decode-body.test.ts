import { describe, expect, it } from 'vitest';
import { decodeWebhookBody } from './decode-body.js';

describe('decodeWebhookBody', () => {
  it.each([
    ['application/json', '{"a":1}', { a: 1 }],
    ['application/json; charset=utf-8', '{"ü":"ß"}', { ü: 'ß' }],
    [undefined, '{"a":1}', { a: 1 }],
    ['text/plain', '{"a":1}', { a: 1 }],
    ['application/x-www-form-urlencoded', 'payload=%7B%22a%22%3A1%7D', { a: 1 }],
    ['Application/X-WWW-Form-Urlencoded; charset=utf-8', 'payload=%7B%22a%22%3A2%7D&x=1', { a: 2 }],
  ])('decodes %s %j', (contentType, body, expected) => {
    expect(decodeWebhookBody(contentType, Buffer.from(body))).toEqual({ ok: true, value: expected });
  });

  it.each([
    ['application/json', '', 'body is not valid JSON'],
    ['application/json', '{', 'body is not valid JSON'],
    ['application/json', '[]', 'body is not a JSON object'],
    ['application/json', '42', 'body is not a JSON object'],
    ['application/json', 'null', 'body is not a JSON object'],
    ['application/x-www-form-urlencoded', 'a=1', 'form body without a payload field'],
    ['application/x-www-form-urlencoded', 'x=1&payload=%7B%7D', 'form body without a payload field'],
    ['application/x-www-form-urlencoded', 'payload=%5B%5D', 'body is not a JSON object'],
  ])('rejects %s %j', (contentType, body, error) => {
    expect(decodeWebhookBody(contentType, Buffer.from(body))).toEqual({ ok: false, error });
  });
});
