import { describe, expect, it } from 'vitest';
import { createDeliveryCache } from './delivery-cache.js';

describe('createDeliveryCache', () => {
  it('reports an id as seen from its second time on', () => {
    const cache = createDeliveryCache(3);
    expect(cache.seen('a')).toBe(false);
    expect(cache.seen('a')).toBe(true);
    expect(cache.seen('b')).toBe(false);
  });

  it('evicts the least recently seen id beyond its capacity', () => {
    const cache = createDeliveryCache(2);
    cache.seen('a');
    cache.seen('b');
    expect(cache.seen('a')).toBe(true); // a is now the most recent
    cache.seen('c'); // evicts b
    expect(cache.size()).toBe(2);
    expect(cache.seen('a')).toBe(true);
    expect(cache.seen('b')).toBe(false);
  });

  it('stays bounded under many ids', () => {
    const cache = createDeliveryCache(1000);
    for (let i = 0; i < 50_000; i++) cache.seen(`id-${i}`);
    expect(cache.size()).toBe(1000);
    expect(cache.seen('id-49999')).toBe(true);
    expect(cache.seen('id-0')).toBe(false);
  });

  it('forgets an id on request', () => {
    const cache = createDeliveryCache(2);
    cache.seen('a');
    cache.forget('a');
    expect(cache.seen('a')).toBe(false);
  });

  it.each([0, -1, 1.5, Number.NaN])('refuses capacity %s', (capacity) => {
    expect(() => createDeliveryCache(capacity)).toThrow(RangeError);
  });
});

describe('delivery ids of any length', () => {
  it('recognises a long id again and forgets it, holding it as a digest', () => {
    const cache = createDeliveryCache(10);
    const long = `${'d'.repeat(8 * 1024)}-1`;
    expect(cache.seen(long)).toBe(false);
    expect(cache.seen(long)).toBe(true);
    expect(cache.seen(`${'d'.repeat(8 * 1024)}-2`)).toBe(false);
    cache.forget(long);
    expect(cache.seen(long)).toBe(false);
    expect(cache.size()).toBe(2);
  });
});
