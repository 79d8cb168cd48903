/**
 * The rot test: a provider's default model must not be in any deprecation list or model catalogue
 * the project ships: `@anthropic-ai/sdk`'s, vendored in `anthropic-models.ts`, and the
 * `@pydantic/genai-prices` dependency. Refreshing the vendored list or upgrading the catalogue so
 * that it deprecates (or stops listing) a default fails here, naming the model and its date.
 * Also: docs/configuration.md's provider table names exactly the defaults of the code.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { findProvider, type ModelInfo } from '@pydantic/genai-prices';
import { describe, expect, it } from 'vitest';
import { ANTHROPIC_KNOWN_MODELS } from './anthropic-models.js';
import { anthropicModelId, loadAnthropicDeprecations } from './model-deprecation.js';
import { loadCatalogueRates, resolveModelRates } from './pricing.js';
import { PROVIDER_IDS, PROVIDERS, type ProviderId } from './providers.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** True when `entry` lists `model` itself (its id, an `equals` alias or a dated `regex` variant) — not a prefix rule. */
function listsExactly(entry: ModelInfo, model: string): boolean {
  if (entry.id === model) return true;
  const visit = (logic: unknown): boolean => {
    if (typeof logic !== 'object' || logic === null) return false;
    const l = logic as Record<string, unknown>;
    if (typeof l.equals === 'string') return l.equals === model;
    if (typeof l.regex === 'string') return new RegExp(l.regex).test(model);
    for (const key of ['or', 'and'] as const) {
      if (Array.isArray(l[key])) return (l[key] as unknown[]).some(visit);
    }
    return false;
  };
  return visit(entry.match);
}

/** The catalogue's own entry for `model` of `provider`, if it lists it exactly. */
function catalogueEntry(provider: ProviderId, model: string): ModelInfo | undefined {
  return findProvider({ providerId: provider })?.models.find((m) => listsExactly(m, model));
}

const withDefaults = PROVIDER_IDS.filter((id) => PROVIDERS[id].defaultModel !== '');

describe('default models are current', () => {
  it('every provider but openai-compatible has a default', () => {
    expect(withDefaults).toEqual(PROVIDER_IDS.filter((id) => id !== 'openai-compatible'));
  });

  // Only defaults that are Anthropic models (directly or through a router) are in that table.
  const anthropicDefaults = withDefaults.filter(
    (provider) => anthropicModelId(provider, PROVIDERS[provider].defaultModel) !== undefined,
  );

  it('the Anthropic-model defaults are those of anthropic and openrouter', () => {
    expect(anthropicDefaults).toEqual(['anthropic', 'openrouter']);
  });

  it.each(anthropicDefaults)(
    '%s: its default is not in @anthropic-ai/sdk DEPRECATED_MODELS',
    async (provider) => {
      const deprecated = await loadAnthropicDeprecations();
      expect(Object.keys(deprecated).length, 'the SDK ships its deprecation table').toBeGreaterThan(0);
      const model = PROVIDERS[provider].defaultModel;
      const id = anthropicModelId(provider, model)!;
      const date = deprecated[id];
      expect(
        date,
        `default model ${model} of ${provider} is deprecated by @anthropic-ai/sdk and reaches end-of-life on ${date}: pick a current one`,
      ).toBeUndefined();
    },
  );

  it('anthropic: the default is a model @anthropic-ai/sdk knows (its Model type, vendored)', () => {
    expect(ANTHROPIC_KNOWN_MODELS.length).toBeGreaterThan(0);
    expect(ANTHROPIC_KNOWN_MODELS).toContain(PROVIDERS.anthropic.defaultModel);
  });

  it.each(withDefaults.filter((p) => p !== 'anthropic'))(
    '%s: the @pydantic/genai-prices catalogue lists its default, not deprecated',
    (provider) => {
      const model = PROVIDERS[provider].defaultModel;
      const entry = catalogueEntry(provider, model);
      expect(
        entry,
        `default model ${model} of ${provider} is not listed by @pydantic/genai-prices`,
      ).toBeDefined();
      expect(
        entry?.deprecated === true,
        `default model ${model} of ${provider} is marked deprecated by @pydantic/genai-prices: pick a current one`,
      ).toBe(false);
    },
  );

  it('anthropic: when the catalogue lists the default, it is not deprecated there', () => {
    const entry = catalogueEntry('anthropic', PROVIDERS.anthropic.defaultModel);
    expect(entry?.deprecated === true).toBe(false);
  });
});

describe('default models have a price', () => {
  it.each(withDefaults)(
    '%s: its default is priced (catalogue, else the reviewed table), so the cost cap can act',
    async (provider) => {
      const model = PROVIDERS[provider].defaultModel;
      const rates = await resolveModelRates(provider, model);
      expect(
        rates,
        `default model ${model} of ${provider} has no price: add it to src/agent/reviewed-prices.ts (price, source, date) or pick a priced model`,
      ).not.toBeNull();
      expect(rates!.input.base).toBeGreaterThan(0);
      expect(rates!.output.base).toBeGreaterThan(0);
    },
  );
});

/** The provider table's rows (docs/configuration.md): provider → its cells (trimmed). */
function readmeRows(): Map<string, string[]> {
  const readme = readFileSync(path.join(ROOT, 'docs', 'configuration.md'), 'utf8');
  const table = /<!-- provider-defaults:start -->\n([\s\S]*?)<!-- provider-defaults:end -->/.exec(
    readme,
  )?.[1];
  expect(table, 'docs/configuration.md has the provider-defaults table').toBeDefined();
  const rows = new Map<string, string[]>();
  for (const line of table!.split('\n')) {
    const cells = line.split('|').map((c) => c.trim());
    const provider = /^`([a-z-]+)`$/.exec(cells[1] ?? '')?.[1];
    if (provider) rows.set(provider, cells);
  }
  return rows;
}

/** `$<input> / $<output>` per million tokens of `model` at each hour of one day (catalogue prices). */
function pricesOverADay(provider: string, model: string): string[] {
  const prices = createRequire(import.meta.url)('@pydantic/genai-prices') as {
    calcPrice: (
      usage: { input_tokens: number; output_tokens: number },
      model: string,
      options: { providerId: string; timestamp: Date },
    ) => { input_price: number; output_price: number } | null;
  };
  const out = new Set<string>();
  for (let hour = 0; hour < 24; hour++) {
    const result = prices.calcPrice({ input_tokens: 1_000_000, output_tokens: 1_000_000 }, model, {
      providerId: provider,
      timestamp: new Date(Date.UTC(2026, 10, 26, hour, 30)),
    });
    if (result) out.add(`$${+result.input_price.toFixed(6)} / $${+result.output_price.toFixed(6)}`);
  }
  return [...out];
}

describe('docs/configuration.md provider table', () => {
  it('gives each default its price and where the price comes from', async () => {
    const rows = readmeRows();
    for (const provider of withDefaults) {
      const model = PROVIDERS[provider].defaultModel;
      const rates = await resolveModelRates(provider, model);
      const source = (await loadCatalogueRates(provider, model)) ? 'catalogue' : 'reviewed';
      // Some catalogue prices depend on the time of day (e.g. DeepSeek's off-peak discount): the
      // table may show the price of any hour, so the test passes whenever CI runs.
      const shown = new Set([`$${rates!.input.base} / $${rates!.output.base} (${source})`]);
      if (source === 'catalogue')
        for (const price of pricesOverADay(provider, model)) shown.add(`${price} (catalogue)`);
      expect([...shown], provider).toContain(rows.get(provider)?.[4]);
    }
  });

  it('names exactly the defaults of the code', () => {
    const rows = new Map<string, string>();
    for (const [provider, cells] of readmeRows())
      rows.set(provider, /^`([^`]+)`$/.exec(cells[3] ?? '')?.[1] ?? '');
    expect(Object.fromEntries(rows)).toEqual(
      Object.fromEntries(PROVIDER_IDS.map((id) => [id, PROVIDERS[id].defaultModel])),
    );
  });
});
