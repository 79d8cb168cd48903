import { describe, expect, it } from 'vitest';
import { decodeFormValue, findFormPayload, formPayload } from './webhook-form.js';

/** What `URLSearchParams` makes of `form`'s first `payload` field (the reference decoding). */
function reference(form: string): string | undefined {
  return new URLSearchParams(form).get('payload') ?? undefined;
}

describe('formPayload', () => {
  it.each([
    ['payload=%7B%22a%22%3A1%7D', '{"a":1}'],
    ['payload=a+b%20c', 'a b c'],
    ['payload=two&payload=three', 'two'],
    ['payload=', ''],
    ['payload=%zz%4', '%zz%4'],
    ['payload=%', '%'],
    ['payload=a=b=c', 'a=b=c'],
    ['payload=%C3%BC%E2%82%AC', 'ü€'],
    ['payload=%c3%bc+lower-case+hex', 'ü lower-case hex'],
  ])('reads %j as URLSearchParams does', (form, expected) => {
    expect(reference(form)).toBe(expected);
    expect(formPayload(Buffer.from(form))?.toString('utf8')).toBe(expected);
  });

  it.each(['x=1&payload=%7B%7D', 'pay%6Coad=%7B%7D', 'Payload=1', 'payload', '&payload=1', ' payload=1', ''])(
    'finds no payload in %j (the field must come first, as GitHub and Gitea send it)',
    (form) => {
      expect(formPayload(Buffer.from(form))).toBeUndefined();
    },
  );

  it('keeps the exact bytes of an escape that is not UTF-8 (what a signature covers)', () => {
    expect(formPayload(Buffer.from('payload=%C3%28%FF'))).toEqual(Buffer.from([0xc3, 0x28, 0xff]));
  });

  it('keeps bytes sent unescaped as they are', () => {
    expect(formPayload(Buffer.from('payload=ü%41'))?.toString('utf8')).toBe('üA');
  });

  // Escaped bytes only: Node's URLSearchParams garbles unescaped non-ASCII after a `%`.
  it('agrees with URLSearchParams on random values', () => {
    const alphabet = ['a', '=', '+', '%', '%2', '%41', '%6C', '%zz', '%C3%BC', ' ', '&', 'payload='];
    let seed = 42;
    const next = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31);
    for (let round = 0; round < 5_000; round += 1) {
      let form = 'payload=';
      const parts = next() % 12;
      for (let i = 0; i < parts; i += 1) form += alphabet[next() % alphabet.length];
      expect(formPayload(Buffer.from(form))?.toString('utf8'), form).toBe(reference(form));
    }
  });

  it('hands a long value over in pieces of at most 64 KiB that add up to the whole', () => {
    const json = JSON.stringify({ text: 'x"y '.repeat(100_000) });
    const body = Buffer.from(`payload=${encodeURIComponent(json)}&b=2`);
    const range = findFormPayload(body);
    expect(range).toBeDefined();
    const pieces: Buffer[] = [];
    decodeFormValue(body, range!, (piece) => pieces.push(Buffer.from(piece)));
    expect(Math.max(...pieces.map((p) => p.length))).toBeLessThanOrEqual(64 * 1024);
    expect(Buffer.concat(pieces).toString('utf8')).toBe(json);
  });
});
