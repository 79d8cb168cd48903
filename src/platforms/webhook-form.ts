/**
 * The `payload` field of an `application/x-www-form-urlencoded` webhook body, read straight from
 * the bytes. GitHub and Gitea/Forgejo can send the JSON as that field (the webhook's "content
 * type"); Gitea signs the field's decoded value, not the form (`services/webhook/deliver.go`:
 * `url.Values{"payload": …}.Encode()`, HMAC over the payload), so its signature check must find the
 * field before anything is verified. `URLSearchParams` would turn a 25 MiB form into millions of
 * strings (about 1 s and 800 MB): here one pass over the bytes finds the field and the value is
 * percent-decoded in place, or in 64 KiB pieces for a hash. The field is the one `URLSearchParams`
 * would pick (the first whose decoded name is `payload`, `+` as a space, a malformed `%` kept as
 * it is), so the bytes a signature covers are exactly the bytes parsed afterwards.
 */

/** Where a field's value lies in a body: bytes `[start, end)`, still form-encoded. */
export interface FormValueRange {
  start: number;
  end: number;
}

const AMPERSAND = 0x26;
const EQUALS = 0x3d;
const PLUS = 0x2b;
const PERCENT = 0x25;
const SPACE = 0x20;
const NAME = Buffer.from('payload');
/** A name of `NAME.length` characters takes at most 3 bytes each when percent-encoded. */
const LONGEST_ENCODED_NAME = NAME.length * 3;
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

/** True when the encoded name `body[start, end)` decodes to `payload` (compared as it decodes). */
function isPayloadName(body: Buffer, start: number, end: number): boolean {
  const length = end - start;
  if (length < NAME.length || length > LONGEST_ENCODED_NAME) return false;
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
    if (n >= NAME.length || byte !== NAME[n]) return false;
    n += 1;
  }
  return n === NAME.length;
}

/**
 * Finds the value of the first field of form `body` named `payload` (after decoding the name), in
 * one pass over the bytes; undefined when no field has that name. A field without `=` has an
 * empty value. Never throws.
 */
export function findFormPayload(body: Buffer): FormValueRange | undefined {
  let fieldStart = 0;
  let equals = -1;
  for (let i = 0; i <= body.length; i += 1) {
    const byte = i < body.length ? body[i] : AMPERSAND;
    if (byte === EQUALS && equals < 0) {
      equals = i;
    } else if (byte === AMPERSAND) {
      const nameEnd = equals >= 0 ? equals : i;
      if (isPayloadName(body, fieldStart, nameEnd)) {
        return equals >= 0 ? { start: equals + 1, end: i } : { start: i, end: i };
      }
      fieldStart = i + 1;
      equals = -1;
    }
  }
  return undefined;
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
 * The decoded bytes of the first `payload` field of form `body` (see `findFormPayload`), or
 * undefined when there is none. One allocation of at most the encoded value's size.
 */
export function formPayload(body: Buffer): Buffer | undefined {
  const range = findFormPayload(body);
  if (!range) return undefined;
  const out = Buffer.allocUnsafe(range.end - range.start);
  return out.subarray(0, decodeInto(body, range.start, range.end, out));
}
