import { describe, expect, it } from 'vitest';
import { costOfCall, loadCatalogueRates, resolveModelRates, usageByKind } from './pricing.js';
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
