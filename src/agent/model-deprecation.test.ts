import { describe, expect, it } from 'vitest';
import {
  anthropicModelId,
  configuredModelWarnings,
  deprecationWarning,
  findModelDeprecation,
  loadAnthropicDeprecations,
} from './model-deprecation.js';
import { PROVIDER_IDS } from './providers.js';

describe('findModelDeprecation', () => {
  it('finds an Anthropic model in the SDK table with its end-of-life date', async () => {
    const table = await loadAnthropicDeprecations();
    expect(table['claude-sonnet-4-5']).toBe('November 30th, 2026');
    await expect(findModelDeprecation('anthropic', 'claude-sonnet-4-5')).resolves.toEqual({
      model: 'claude-sonnet-4-5',
      endOfLife: 'November 30th, 2026',
      source: '@anthropic-ai/sdk',
    });
  });

  it('checks the Claude Code runner (no provider) and OpenRouter ids against the same table', async () => {
    expect((await findModelDeprecation(undefined, 'claude-sonnet-4-5'))?.endOfLife).toBe(
      'November 30th, 2026',
    );
    expect(anthropicModelId('openrouter', 'anthropic/claude-sonnet-4.5')).toBe('claude-sonnet-4-5');
    expect(anthropicModelId('openai', 'gpt-6-sol')).toBeUndefined();
    const viaOpenRouter = await findModelDeprecation('openrouter', 'anthropic/claude-sonnet-4.5');
    expect(viaOpenRouter).toMatchObject({
      model: 'anthropic/claude-sonnet-4.5',
      endOfLife: 'November 30th, 2026',
    });
  });

  it('finds a model the price catalogue marks deprecated (no date published)', async () => {
    await expect(findModelDeprecation('google', 'gemini-2.5-flash-preview')).resolves.toEqual({
      model: 'gemini-2.5-flash-preview',
      endOfLife: null,
      source: '@pydantic/genai-prices',
    });
  });

  it('finds nothing for current and unknown models', async () => {
    await expect(findModelDeprecation('anthropic', 'claude-sonnet-5-5')).resolves.toBeUndefined();
    await expect(findModelDeprecation('openai', 'my-fine-tune')).resolves.toBeUndefined();
    await expect(findModelDeprecation('openai-compatible', 'llama3')).resolves.toBeUndefined();
  });
});

describe('configuredModelWarnings', () => {
  it('warns once for a deprecated agent.model, naming it and its date', async () => {
    const warnings = await configuredModelWarnings({ provider: 'anthropic', model: 'claude-sonnet-4-5' });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('claude-sonnet-4-5');
    expect(warnings[0]).toContain('November 30th, 2026');
  });

  it.each(PROVIDER_IDS)('says nothing for the default of %s', async (provider) => {
    await expect(configuredModelWarnings({ provider })).resolves.toEqual([]);
  });

  it('says nothing for the Claude Code runner without agent.model (its own default)', async () => {
    await expect(configuredModelWarnings({})).resolves.toEqual([]);
  });

  it('writes a dateless warning for a catalogue deprecation', () => {
    const text = deprecationWarning({ model: 'm', endOfLife: null, source: '@pydantic/genai-prices' });
    expect(text).toMatch(/model m is deprecated and is marked deprecated \(no end-of-life date published\)/);
  });
});
