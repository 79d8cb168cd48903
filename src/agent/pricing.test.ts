import { describe, expect, it } from 'vitest';
import { calcPrice } from '@pydantic/genai-prices';
import {
  costOfCall,
  loadCatalogueRates,
  ratesFromOverride,
  resolveModelRates,
  usageByKind,
  type ModelRates,
  type TokenRate,
  type UsageByKind,
} from './pricing.js';
import { REVIEWED_PRICES, type ReviewedPrice } from './reviewed-prices.js';

describe('pricing', () => {
  it('reads the catalogue for a known model, tiers included', async () => {
    const rates = await loadCatalogueRates('anthropic', 'claude-sonnet-4-5');
    expect(rates).not.toBeNull();
    expect(rates!.input.base).toBeGreaterThan(0);
    expect(rates!.cacheRead.base).toBeLessThan(rates!.input.base);
    const small = costOfCall({ input: 1_000_000, cacheWrite: 0, cacheRead: 0, output: 0 }, rates!);
    expect(small).toBeCloseTo(
      rates!.input.tiers.length > 0 ? rates!.input.tiers.at(-1)!.price : rates!.input.base,
      6,
    );
  });

  it('has no price for an unknown model or an openai-compatible server', async () => {
    expect(await loadCatalogueRates('anthropic', 'no-such-model-xyz')).toBeNull();
    // A prefix rule of another model does not price this one (README, "Cost").
    expect(await loadCatalogueRates('anthropic', 'claude-sonnet-4-5-experimental-xyz')).toBeNull();
    expect(await loadCatalogueRates('openai-compatible', 'llama3')).toBeNull();
  });

  it('has no price for an openai-compatible server serving a model named like a catalogue one', async () => {
    // The catalogue would price gpt-4o as OpenAI's; behind openai-compatible any server may answer.
    expect(await loadCatalogueRates('openai-compatible', 'gpt-4o')).toBeNull();
    expect(await resolveModelRates('openai-compatible', 'gpt-4o')).toBeNull();
  });

  it('has no price for a model the catalogue lists without an output price (an embedding model)', async () => {
    expect(await loadCatalogueRates('openai', 'text-embedding-3-small')).toBeNull();
  });

  it('has no price without a model id', async () => {
    expect(await resolveModelRates('anthropic', undefined)).toBeNull();
  });

  it('agrees with calcPrice for a model of flat prices without a cache-write price (gpt-4o)', async () => {
    const rates = await loadCatalogueRates('openai', 'gpt-4o');
    expect(rates).not.toBeNull();
    for (const u of [
      { input: 1_000_000, cacheWrite: 0, cacheRead: 0, output: 0 },
      { input: 0, cacheWrite: 0, cacheRead: 0, output: 1_000_000 },
      { input: 1_000_000, cacheWrite: 1_000_000, cacheRead: 1_000_000, output: 1_000_000 },
      { input: 0, cacheWrite: 0, cacheRead: 300_000, output: 0 },
    ]) {
      const reference = calcPrice(
        {
          input_tokens: u.input + u.cacheWrite + u.cacheRead,
          cache_write_tokens: u.cacheWrite,
          cache_read_tokens: u.cacheRead,
          output_tokens: u.output,
        },
        'gpt-4o',
        { providerId: 'openai' },
      );
      expect(reference!.total_price).toBeGreaterThan(0);
      expect(costOfCall(u, rates!)).toBeCloseTo(reference!.total_price, 12);
    }
  });

  it('prefers agent.pricing, cache prices defaulting to the input price', async () => {
    const rates = await resolveModelRates('openai-compatible', 'llama3', {
      input_per_mtok: 1,
      output_per_mtok: 2,
    });
    expect(costOfCall({ input: 1e6, cacheWrite: 1e6, cacheRead: 1e6, output: 1e6 }, rates!)).toBe(5);
  });

  it('prices a default the catalogue does not list yet from the reviewed table', async () => {
    expect(await loadCatalogueRates('anthropic', 'claude-sonnet-5-5')).toBeNull();
    const rates = await resolveModelRates('anthropic', 'claude-sonnet-5-5');
    expect(rates).toEqual({
      input: { base: 2, tiers: [] },
      output: { base: 10, tiers: [] },
      cacheWrite: { base: 2.5, tiers: [] },
      cacheRead: { base: 0.2, tiers: [] },
    });
  });

  it('lets the catalogue override the reviewed table once it lists the model', async () => {
    const stale: ReviewedPrice = {
      provider: 'anthropic',
      model: 'claude-sonnet-4-5',
      input_per_mtok: 99,
      output_per_mtok: 99,
      source: 'https://example.com/pricing',
      checked: '2026-01-01',
    };
    const rates = await resolveModelRates('anthropic', 'claude-sonnet-4-5', undefined, [stale]);
    expect(rates!.input.base).toBe(3);
    // Only the exact model id: a reviewed price never prices another model.
    expect(await resolveModelRates('anthropic', 'claude-sonnet-5-5-xyz')).toBeNull();
  });

  it('names the source page and the day of every reviewed price', () => {
    for (const entry of REVIEWED_PRICES) {
      expect(entry.source).toMatch(/^https:\/\//);
      expect(entry.checked).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      expect(entry.input_per_mtok).toBeGreaterThan(0);
      expect(entry.output_per_mtok).toBeGreaterThan(0);
    }
  });

  it('splits a reported usage into kinds (input excludes cache reads and writes)', () => {
    expect(
      usageByKind({ inputTokens: 100, outputTokens: 5, cacheReadTokens: 60, cacheWriteTokens: 30 }),
    ).toEqual({
      input: 10,
      cacheWrite: 30,
      cacheRead: 60,
      output: 5,
    });
  });
});

/** claude-sonnet-4-5's prices as the catalogue lists them: every kind doubles above 200k input tokens. */
const SONNET: ModelRates = {
  input: { base: 3, tiers: [{ start: 200_000, price: 6 }] },
  cacheWrite: { base: 3.75, tiers: [{ start: 200_000, price: 7.5 }] },
  cacheRead: { base: 0.3, tiers: [{ start: 200_000, price: 0.6 }] },
  output: { base: 15, tiers: [{ start: 200_000, price: 22.5 }] },
};

const usage = (input: number, cacheWrite: number, cacheRead: number, output: number): UsageByKind => ({
  input,
  cacheWrite,
  cacheRead,
  output,
});

describe('context price tiers', () => {
  it('picks the tier by the whole request input, cache reads and writes included', () => {
    // 1k uncached + 250k cache read is a 251k-token request: every kind at the long-context price.
    expect(costOfCall(usage(1_000, 0, 250_000, 1_000), SONNET)).toBeCloseTo(
      (1_000 * 6 + 250_000 * 0.6 + 1_000 * 22.5) / 1e6,
      12,
    );
    expect(costOfCall(usage(1_000, 0, 250_000, 1_000), SONNET)).toBeCloseTo(0.1785, 12);
    // The same with cache writes carrying the request over the boundary.
    expect(costOfCall(usage(1_000, 250_000, 0, 1_000), SONNET)).toBeCloseTo(
      (1_000 * 6 + 250_000 * 7.5 + 1_000 * 22.5) / 1e6,
      12,
    );
  });

  it('bills exactly 200,000 input tokens at the base price and 200,001 at the tier', () => {
    // 50k + 50k + 100k = 200k: not above the start.
    expect(costOfCall(usage(50_000, 50_000, 100_000, 10_000), SONNET)).toBeCloseTo(
      (50_000 * 3 + 50_000 * 3.75 + 100_000 * 0.3 + 10_000 * 15) / 1e6,
      12,
    );
    expect(costOfCall(usage(50_001, 50_000, 100_000, 10_000), SONNET)).toBeCloseTo(
      (50_001 * 6 + 50_000 * 7.5 + 100_000 * 0.6 + 10_000 * 22.5) / 1e6,
      12,
    );
    // Output tokens do not count towards the boundary.
    expect(costOfCall(usage(200_000, 0, 0, 500_000), SONNET)).toBeCloseTo(
      (200_000 * 3 + 500_000 * 15) / 1e6,
      12,
    );
  });

  it('uses the highest tier the request passes, whatever the order the tiers are listed in', () => {
    const rate = {
      base: 1,
      tiers: [
        { start: 300, price: 3 },
        { start: 100, price: 2 },
      ],
    };
    const rates: ModelRates = { input: rate, cacheWrite: rate, cacheRead: rate, output: flatRate(0) };
    expect(costOfCall(usage(100, 0, 0, 0), rates)).toBeCloseTo((100 * 1) / 1e6, 15);
    expect(costOfCall(usage(101, 0, 0, 0), rates)).toBeCloseTo((101 * 2) / 1e6, 15);
    expect(costOfCall(usage(300, 0, 0, 0), rates)).toBeCloseTo((300 * 2) / 1e6, 15);
    expect(costOfCall(usage(301, 0, 0, 0), rates)).toBeCloseTo((301 * 3) / 1e6, 15);
    expect(costOfCall(usage(0, 0, 0, 0), rates)).toBe(0);
  });

  it('bills every token at a tier that starts at 0', () => {
    const rate = { base: 1, tiers: [{ start: 0, price: 4 }] };
    const rates: ModelRates = { input: rate, cacheWrite: rate, cacheRead: rate, output: flatRate(0) };
    expect(costOfCall(usage(1, 0, 0, 0), rates)).toBeCloseTo(4 / 1e6, 15);
  });

  it('agrees with the catalogue’s own calcPrice across the boundary, cache-heavy or not', async () => {
    const rates = await loadCatalogueRates('anthropic', 'claude-sonnet-4-5');
    expect(rates).toEqual(SONNET);
    const cases = [
      usage(1_000, 0, 250_000, 1_000),
      usage(1_000, 0, 199_000, 1_000),
      usage(1_000, 0, 199_001, 1_000),
      usage(0, 200_001, 0, 0),
      usage(150_000, 20_000, 30_000, 4_000),
      usage(150_000, 20_000, 30_001, 4_000),
      usage(10_000, 0, 0, 2_000),
    ];
    for (const u of cases) {
      const reference = calcPrice(
        {
          input_tokens: u.input + u.cacheWrite + u.cacheRead,
          cache_write_tokens: u.cacheWrite,
          cache_read_tokens: u.cacheRead,
          output_tokens: u.output,
        },
        'claude-sonnet-4-5',
        { providerId: 'anthropic' },
      );
      expect(costOfCall(u, rates!)).toBeCloseTo(reference!.total_price, 12);
    }
  });

  it('counts a missing cache price as the input price, and an override has no tiers', () => {
    const rates = ratesFromOverride({ input_per_mtok: 2, output_per_mtok: 8, cache_read_per_mtok: 0.5 });
    expect(rates).toEqual({
      input: flatRate(2),
      output: flatRate(8),
      cacheWrite: flatRate(2),
      cacheRead: flatRate(0.5),
    });
    expect(costOfCall(usage(1e6, 1e6, 1e6, 1e6), rates)).toBe(12.5);
    expect(costOfCall(usage(300_000, 0, 0, 0), rates)).toBe(0.6);
  });

  it('never counts negative uncached input when cache counts exceed the reported input', () => {
    expect(
      usageByKind({ inputTokens: 10, outputTokens: 0, cacheReadTokens: 8, cacheWriteTokens: 8 }),
    ).toEqual({
      input: 0,
      cacheWrite: 8,
      cacheRead: 8,
      output: 0,
    });
    expect(usageByKind({ inputTokens: 10, outputTokens: 3 })).toEqual({
      input: 10,
      cacheWrite: 0,
      cacheRead: 0,
      output: 3,
    });
  });
});

function flatRate(base: number): TokenRate {
  return { base, tiers: [] };
}
