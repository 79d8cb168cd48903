import { describe, expect, it } from 'vitest';
import { decodeFormValue, findFormPayload, formPayload } from './webhook-form.js';

/** What `URLSearchParams` makes of `form`'s first `payload` field (the reference). */
function reference(form: string): string | undefined {
  return new URLSearchParams(form).get('payload') ?? undefined;
}

describe('formPayload', () => {
  it.each([
    ['payload=%7B%22a%22%3A1%7D', '{"a":1}'],
    ['payload=a+b%20c', 'a b c'],
    ['x=1&payload=two&payload=three', 'two'],
    ['pay%6Coad=by+encoded+name', 'by encoded name'],
    ['payloa%64=x&payload=y', 'x'],
    ['payload', ''],
    ['payload=', ''],
    ['&&payload=%zz%4', '%zz%4'],
    ['payload=a=b=c', 'a=b=c'],
    ['payload=%C3%BC%E2%82%AC', 'ü€'],
    ['payloadx=1&xpayload=2', undefined],
    ['Payload=1', undefined],
    ['', undefined],
    ['%70%61%79%6c%6f%61%64=lower-case+hex', 'lower-case hex'],
  ])('reads %j as URLSearchParams does', (form, expected) => {
    expect(reference(form)).toBe(expected);
    expect(formPayload(Buffer.from(form))?.toString('utf8')).toBe(expected);
  });

  it('agrees with URLSearchParams on random forms', () => {
    const alphabet = ['a', 'p', 'payload', '=', '&', '+', '%', '%2', '%41', '%6C', '%zz', 'ü', '%C3%BC', ' '];
    let seed = 42;
    const next = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31);
    for (let round = 0; round < 5_000; round += 1) {
      let form = '';
      const parts = next() % 12;
      for (let i = 0; i < parts; i += 1) form += alphabet[next() % alphabet.length];
      expect(formPayload(Buffer.from(form))?.toString('utf8'), form).toBe(reference(form));
    }
  });

  it('hands a long value over in pieces of at most 64 KiB that add up to the whole', () => {
    const json = JSON.stringify({ text: 'x"y '.repeat(100_000) });
    const body = Buffer.from(`a=1&payload=${encodeURIComponent(json)}&b=2`);
    const range = findFormPayload(body);
    expect(range).toBeDefined();
    const pieces: Buffer[] = [];
    decodeFormValue(body, range!, (piece) => pieces.push(Buffer.from(piece)));
    expect(Math.max(...pieces.map((p) => p.length))).toBeLessThanOrEqual(64 * 1024);
    expect(Buffer.concat(pieces).toString('utf8')).toBe(json);
  });
});
