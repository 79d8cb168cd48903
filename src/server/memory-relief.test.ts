import { PassThrough } from 'node:stream';
import type { IncomingMessage } from 'node:http';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createMemoryRelief, exposedGc, type CollectGarbage } from './memory-relief.js';
import { BodyReadError, readBody } from './read-body.js';

const MIB = 1024 * 1024;

describe('createMemoryRelief', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  function spy() {
    const calls: Array<string> = [];
    const gc: CollectGarbage = (options) => void calls.push(options?.type ?? 'major');
    return { calls, gc };
  }

  it('collects once, after large bodies stop arriving for quietMs', () => {
    vi.useFakeTimers();
    const { calls, gc } = spy();
    const relief = createMemoryRelief({ gc, quietMs: 1000, maxDelayMs: 5000 });
    relief.noteBody(20 * MIB);
    vi.advanceTimersByTime(600);
    relief.noteBody(20 * MIB);
    vi.advanceTimersByTime(600);
    expect(calls).toEqual([]);
    vi.advanceTimersByTime(500);
    expect(calls).toEqual(['major']);
    vi.advanceTimersByTime(10_000);
    expect(relief.collections()).toBe(1);
  });

  it('collects at the latest maxDelayMs after the first large body of a steady stream', () => {
    vi.useFakeTimers();
    const { calls, gc } = spy();
    const relief = createMemoryRelief({ gc, quietMs: 1000, maxDelayMs: 3000 });
    for (let t = 0; t < 3500; t += 500) {
      relief.noteBody(2 * MIB);
      vi.advanceTimersByTime(500);
    }
    expect(calls).toEqual(['major']);
  });

  it('ignores small bodies, and does nothing without a collector', () => {
    vi.useFakeTimers();
    const { calls, gc } = spy();
    const relief = createMemoryRelief({ gc });
    for (let i = 0; i < 1000; i++) relief.noteBody(10_000);
    vi.advanceTimersByTime(60_000);
    expect(calls).toEqual([]);
    const none = createMemoryRelief({ gc: undefined });
    none.noteBody(20 * MIB);
    none.noteChunk(20 * MIB);
    vi.advanceTimersByTime(60_000);
    expect(none.collections()).toBe(0);
  });

  it('scavenges every scavengeEveryBytes of body chunks read', () => {
    const { calls, gc } = spy();
    const relief = createMemoryRelief({ gc, scavengeEveryBytes: 4 * MIB });
    for (let i = 0; i < 320; i++) relief.noteChunk(64 * 1024); // one 20 MiB body
    expect(calls).toEqual(['minor', 'minor', 'minor', 'minor', 'minor']);
    expect(relief.scavenges()).toBe(5);
  });

  it('close() cancels a pending collection', () => {
    vi.useFakeTimers();
    const { calls, gc } = spy();
    const relief = createMemoryRelief({ gc });
    relief.noteBody(20 * MIB);
    relief.close();
    vi.advanceTimersByTime(60_000);
    expect(calls).toEqual([]);
  });

  it('finds V8 gc() at run time, and it collects what nothing references', async () => {
    const gc = exposedGc();
    expect(gc).toBeTypeOf('function');
    const ref = ((): WeakRef<{ body: Buffer }> => new WeakRef({ body: Buffer.alloc(MIB, 1) }))();
    // A WeakRef keeps its target alive until the current job ends.
    await new Promise((resolve) => setTimeout(resolve, 0));
    gc?.();
    expect(ref.deref()).toBeUndefined();
  });
});

/** A request stream with `content-length` (or none) for `readBody`. */
function stream(length?: number): PassThrough & IncomingMessage {
  const s = new PassThrough() as PassThrough & IncomingMessage;
  (s as { headers: Record<string, string> }).headers =
    length === undefined ? {} : { 'content-length': String(length) };
  return s;
}

describe('readBody', () => {
  it('copies the chunks of a declared body into one buffer and reports each chunk', async () => {
    const s = stream(10);
    const chunks: number[] = [];
    const body = readBody(s, 100, (n) => chunks.push(n));
    s.write(Buffer.from('01234'));
    s.end(Buffer.from('56789'));
    expect((await body).toString()).toBe('0123456789');
    expect(chunks).toEqual([5, 5]);
  });

  it('collects a chunked body (no content-length) within the limit', async () => {
    const s = stream();
    const body = readBody(s, 100);
    s.write('{"a":');
    s.end('1}');
    expect((await body).toString()).toBe('{"a":1}');
  });

  it.each([
    ['a declared length over the limit', 101, ['x'], 413],
    ['a chunked body growing over the limit', undefined, ['x'.repeat(60), 'y'.repeat(60)], 413],
    ['more bytes than declared', 3, ['abcd'], 400],
    ['fewer bytes than declared', 10, ['abc'], 400],
  ] as const)('refuses %s with %s', async (_name, length, pieces, status) => {
    const s = stream(length);
    const body = readBody(s, 100);
    for (const piece of pieces) s.write(piece);
    s.end();
    const error = await body.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BodyReadError);
    expect((error as BodyReadError).statusCode).toBe(status);
  });
});
