/**
 * Is the configured model deprecated? (CONTRACT §3 `agent.model`: "a deprecated model logs one warning
 * with its end-of-life date and still runs".) The answer comes from two deprecation lists:
 *
 * - `@anthropic-ai/sdk`'s `DEPRECATED_MODELS` (model id → end-of-life date, the table its Messages API
 *   client warns from), vendored with its version and date in `anthropic-models.ts`, for
 *   `anthropic`, OpenRouter's `anthropic/...` ids and the Claude Code runner;
 * - `@pydantic/genai-prices`' per-model `deprecated` flag (no date), for every provider it lists,
 *   read through that package (a dependency for prices anyway) at run time.
 *
 * A warning, never a refusal: the provider decides when a model stops answering.
 */
import { createRequire } from 'node:module';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { ANTHROPIC_DEPRECATED_MODELS } from './anthropic-models.js';
import { PROVIDERS, type ProviderId } from './providers.js';

const execFileAsync = promisify(execFile);

/** A deprecated model and what its source says about it. */
export interface ModelDeprecation {
  /** The model id as configured, e.g. `claude-sonnet-4-5`. */
  model: string;
  /** End-of-life date as the source writes it (e.g. `November 30th, 2026`); null when not published. */
  endOfLife: string | null;
  /** The list that marks it deprecated. */
  source: '@anthropic-ai/sdk' | '@pydantic/genai-prices';
}

/**
 * `@anthropic-ai/sdk`'s `DEPRECATED_MODELS` (model id → end-of-life date), as vendored in
 * `anthropic-models.ts`. Async for its callers' sake (it used to be read from the package).
 */
export async function loadAnthropicDeprecations(): Promise<Record<string, string>> {
  return { ...ANTHROPIC_DEPRECATED_MODELS };
}

/**
 * The Anthropic model id behind `model` for `provider`: the id itself for `anthropic` and the Claude
 * Code runner (`undefined` provider); for `openrouter`, `anthropic/claude-sonnet-4.5` →
 * `claude-sonnet-4-5` (OpenRouter writes versions with dots, Anthropic with hyphens). Else undefined.
 */
export function anthropicModelId(provider: ProviderId | undefined, model: string): string | undefined {
  if (provider === undefined || provider === 'anthropic') return model;
  if (provider === 'openrouter' && model.startsWith('anthropic/')) {
    return model.slice('anthropic/'.length).replace(/:.*$/, '').replace(/\./g, '-');
  }
  return undefined;
}

/**
 * Looks `model` up in `@pydantic/genai-prices` for `provider`: true when the catalogue's entry that
 * matches it is marked deprecated. Runs in a short-lived child process, so a long-running server
 * keeps neither the ~20 MB catalogue nor a worker's heap for a start-up check (its memory goes back
 * to the system when the child exits).
 * @throws Error when the lookup fails (package missing, child killed) — callers treat it as "unknown".
 */
export async function isDeprecatedInPriceCatalogue(provider: ProviderId, model: string): Promise<boolean> {
  const pkg = createRequire(import.meta.url).resolve('@pydantic/genai-prices');
  const source = `
    const [pkg, provider, model] = process.argv.slice(1);
    const result = require(pkg).calcPrice({ input_tokens: 1, output_tokens: 1 }, model, { providerId: provider });
    process.stdout.write(String(result !== null && result.model.deprecated === true));
  `;
  const { stdout } = await execFileAsync(process.execPath, ['-e', source, pkg, provider, model], {
    env: {},
    timeout: 10_000,
  });
  return stdout.trim() === 'true';
}

/**
 * Finds `model` in the deprecation lists (see the module comment). A list that cannot be read
 * (package missing in a slim image) is skipped: this never throws and never blocks a review.
 * @param provider `agent.provider`; undefined = the Claude Code runner (Anthropic models).
 */
export async function findModelDeprecation(
  provider: ProviderId | undefined,
  model: string,
): Promise<ModelDeprecation | undefined> {
  const anthropicId = anthropicModelId(provider, model);
  if (anthropicId !== undefined) {
    const table = await loadAnthropicDeprecations().catch(() => ({}) as Record<string, string>);
    const date = table[anthropicId];
    if (date !== undefined) return { model, endOfLife: date, source: '@anthropic-ai/sdk' };
  }
  if (provider !== undefined && provider !== 'openai-compatible') {
    const deprecated = await isDeprecatedInPriceCatalogue(provider, model).catch(() => false);
    if (deprecated) return { model, endOfLife: null, source: '@pydantic/genai-prices' };
  }
  return undefined;
}

/** The one-line warning for `d`: names the model, its end-of-life date and what to do. */
export function deprecationWarning(d: ModelDeprecation): string {
  const when = d.endOfLife
    ? `reaches end-of-life on ${d.endOfLife}`
    : 'is marked deprecated (no end-of-life date published)';
  return (
    `model ${d.model} is deprecated and ${when} (per ${d.source}); reviews still run until the ` +
    `provider switches it off: set agent.model (AGENT_MODEL) to a current model (docs/configuration.md, "LLM providers")`
  );
}

/** The model a run will use as configured: `agent.provider` (undefined = Claude Code runner) and `agent.model`. */
export interface ConfiguredModel {
  provider?: ProviderId | undefined;
  model?: string | undefined;
}

/**
 * Warnings about the configured model (at most one): `agent.model`, or the provider's default when
 * it is unset. The Claude Code runner without `agent.model` uses Claude Code's own default, which
 * is not ours to judge: no warning. Never throws.
 * @returns `[]`, or one line for `deprecationWarning`.
 */
export async function configuredModelWarnings(configured: ConfiguredModel): Promise<string[]> {
  const fallback = configured.provider ? PROVIDERS[configured.provider].defaultModel : '';
  const model = configured.model?.trim() || fallback;
  if (!model) return [];
  const deprecation = await findModelDeprecation(configured.provider, model);
  return deprecation ? [deprecationWarning(deprecation)] : [];
}
