/**
 * The `payload` field of an `application/x-www-form-urlencoded` webhook body, read straight from
 * the bytes. GitHub and Gitea/Forgejo can send the JSON as that field (the webhook's "content
 * type"); Gitea signs the field's decoded value, not the form (`services/webhook/deliver.go`:
 * `url.Values{"payload": …}.Encode()`, HMAC over the payload), so its signature check must find the
 * field before anything is verified. `URLSearchParams` would turn a 25 MiB form into millions of
 * strings (about 1 s and 800 MB) and even a scan of every field costs a call per field: here the
 * form must start with its `payload` field, as both platforms send it, a native search finds its
 * end, and the value is percent-decoded in place, or in 64 KiB pieces for a hash (`+` as a space,
 * a malformed `%` kept as it is, as `URLSearchParams` decodes). The signature check and the parser
 * read the field through the same function, so the bytes a signature covers are the bytes parsed.
 */

/** Where a field's value lies in a body: bytes `[start, end)`, still form-encoded. */
export interface FormValueRange {
  start: number;
  end: number;
}

const AMPERSAND = 0x26;
const PLUS = 0x2b;
const PERCENT = 0x25;
const SPACE = 0x20;
const PREFIX = Buffer.from('payload=');
/** Size of the pieces `decodeFormValue` hands over. */
const PIECE_BYTES = 64 * 1024;

const HEX = new Int8Array(256).fill(-1);
for (let i = 0; i < 10; i += 1) HEX[0x30 + i] = i;
for (let i = 0; i < 6; i += 1) {
  HEX[0x41 + i] = 10 + i;
  HEX[0x61 + i] = 10 + i;
}

/** The byte `%XX` at `body[i]` stands for, or -1 when no two hex digits follow before `end`. */
function escapedByte(body: Buffer, i: number, end: number): number {
  if (i + 2 >= end) return -1;
  const high = HEX[body[i + 1] as number] as number;
  const low = HEX[body[i + 2] as number] as number;
  return high >= 0 && low >= 0 ? high * 16 + low : -1;
}

/**
 * Percent-decodes `body[start, end)` into `out` from offset 0, handing each full `out` to `flush`
 * (which must consume it before returning) and starting over; returns the bytes left in `out`.
 */
function decodeInto(
  body: Buffer,
  start: number,
  end: number,
  out: Buffer,
  flush?: (piece: Buffer) => void,
): number {
  let n = 0;
  for (let i = start; i < end; i += 1) {
    let byte = body[i] as number;
    if (byte === PLUS) {
      byte = SPACE;
    } else if (byte === PERCENT) {
      const decoded = escapedByte(body, i, end);
      if (decoded >= 0) {
        byte = decoded;
        i += 2;
      }
    }
    out[n] = byte;
    n += 1;
    if (n === out.length && flush) {
      flush(out);
      n = 0;
    }
  }
  return n;
}

/**
 * Finds the value of the `payload` field of form `body`: the body must start with `payload=` (GitHub
 * and Gitea send that field alone); the value runs to the first `&` or the end. Undefined for any
 * other form. One native search, whatever the body holds; never throws.
 */
export function findFormPayload(body: Buffer): FormValueRange | undefined {
  if (body.length < PREFIX.length || !body.subarray(0, PREFIX.length).equals(PREFIX)) return undefined;
  const end = body.indexOf(AMPERSAND, PREFIX.length);
  return { start: PREFIX.length, end: end < 0 ? body.length : end };
}

/**
 * Percent-decodes the value `range` of form `body` and hands it to `consume` in pieces of at most
 * 64 KiB (a piece is only valid during the call: the buffer is reused). Never allocates more.
 */
export function decodeFormValue(body: Buffer, range: FormValueRange, consume: (piece: Buffer) => void): void {
  const scratch = Buffer.allocUnsafe(Math.min(PIECE_BYTES, Math.max(1, range.end - range.start)));
  const left = decodeInto(body, range.start, range.end, scratch, consume);
  if (left > 0) consume(scratch.subarray(0, left));
}

/**
 * The decoded bytes of the `payload` field of form `body` (see `findFormPayload`), or undefined
 * when the form does not start with it. One allocation of at most the encoded value's size.
 */
export function formPayload(body: Buffer): Buffer | undefined {
  const range = findFormPayload(body);
  if (!range) return undefined;
  const out = Buffer.allocUnsafe(range.end - range.start);
  return out.subarray(0, decodeInto(body, range.start, range.end, out));
}
