/**
 * LLM providers of the API runner (CONTRACT §3): identifiers, API-key variables, base URLs and
 * default models, and the factory that turns a provider choice into an AI SDK language model.
 */
import type { LanguageModel } from 'ai';
import { ConfigError } from '../errors.js';

/** Provider identifiers accepted in `agent.provider` / `AGENT_PROVIDER` (CONTRACT §3). */
export const PROVIDER_IDS = [
  'anthropic',
  'openai',
  'google',
  'deepseek',
  'groq',
  'together',
  'fireworks',
  'openrouter',
  'openai-compatible',
] as const;

/** One of `PROVIDER_IDS`. */
export type ProviderId = (typeof PROVIDER_IDS)[number];

/** How a provider is reached: its key variables (first set wins), official URL and default model. */
export interface ProviderInfo {
  keyVars: readonly string[];
  /**
   * True when the key may be absent: a local server (Ollama, vLLM, llama.cpp) asks for none, so
   * requests then carry no `Authorization` header. Only `openai-compatible`.
   */
  keyOptional?: boolean;
  /** Official API base, in the AI SDK's convention (with the version path). Empty: none. */
  officialBaseUrl: string;
  /** Model used when `agent.model` is unset. Empty: the model must be configured. */
  defaultModel: string;
}

/**
 * Provider table. Base URLs: each provider's API reference. Default models (checked against the
 * deprecation lists and model catalogues the dependencies ship by `model-defaults.test.ts`; the
 * README's provider table names each and why): the newest model of the class reviews need (strong
 * at code, tool use, long context, mid-priced) that is current, i.e. not deprecated and listed by
 * the provider's SDK or by the `@pydantic/genai-prices` catalogue.
 */
export const PROVIDERS: Record<ProviderId, ProviderInfo> = {
  anthropic: {
    keyVars: ['ANTHROPIC_API_KEY'],
    officialBaseUrl: 'https://api.anthropic.com/v1',
    defaultModel: 'claude-sonnet-5-5',
  },
  openai: {
    keyVars: ['OPENAI_API_KEY'],
    officialBaseUrl: 'https://api.openai.com/v1',
    defaultModel: 'gpt-6-sol',
  },
  google: {
    keyVars: ['GOOGLE_GENERATIVE_AI_API_KEY', 'GEMINI_API_KEY'],
    officialBaseUrl: 'https://generativelanguage.googleapis.com/v1beta',
    defaultModel: 'gemini-3.8-flash',
  },
  deepseek: {
    keyVars: ['DEEPSEEK_API_KEY'],
    officialBaseUrl: 'https://api.deepseek.com/v1',
    defaultModel: 'deepseek-v4-pro',
  },
  groq: {
    keyVars: ['GROQ_API_KEY'],
    officialBaseUrl: 'https://api.groq.com/openai/v1',
    defaultModel: 'openai/gpt-oss-120b',
  },
  together: {
    keyVars: ['TOGETHER_API_KEY'],
    officialBaseUrl: 'https://api.together.xyz/v1',
    defaultModel: 'meta-llama/Llama-4-Maverick-17B-128E-Instruct-FP8',
  },
  fireworks: {
    keyVars: ['FIREWORKS_API_KEY'],
    officialBaseUrl: 'https://api.fireworks.ai/inference/v1',
    defaultModel: 'accounts/fireworks/models/glm-5p2',
  },
  openrouter: {
    keyVars: ['OPENROUTER_API_KEY'],
    officialBaseUrl: 'https://openrouter.ai/api/v1',
    defaultModel: 'anthropic/claude-sonnet-5',
  },
  'openai-compatible': {
    keyVars: ['AGENT_API_KEY'],
    keyOptional: true,
    officialBaseUrl: '',
    defaultModel: '',
  },
};

/** True when `value` is one of `PROVIDER_IDS`. */
export function isProviderId(value: string): value is ProviderId {
  return (PROVIDER_IDS as readonly string[]).includes(value);
}

/** Which provider and model to use, as configured (`agent.provider`, `agent.model`, `agent.base_url`). */
export interface ProviderChoice {
  provider: ProviderId;
  model?: string;
  /** `agent.base_url` / `AGENT_BASE_URL`: used exactly as given (with the version path). */
  baseUrl?: string;
}

/** A ready language model and the model id it calls. */
export interface CreatedLanguageModel {
  model: LanguageModel;
  modelId: string;
}

/**
 * Returns the API base URL for `choice`, in the AI SDK's convention (version path included):
 * `choice.baseUrl` as given; else for `anthropic` `ANTHROPIC_BASE_URL` (Anthropic SDK convention,
 * without `/v1`, so `/v1` is appended unless already there) and for `openai` `OPENAI_BASE_URL`
 * (OpenAI SDK convention, with `/v1`, as is); else the official URL. `undefined` when none applies
 * (only `openai-compatible`).
 */
export function resolveBaseUrl(choice: ProviderChoice, env: NodeJS.ProcessEnv): string | undefined {
  const given = choice.baseUrl?.trim();
  if (given) return stripTrailingSlash(given);
  if (choice.provider === 'anthropic' && env.ANTHROPIC_BASE_URL?.trim()) {
    const base = stripTrailingSlash(env.ANTHROPIC_BASE_URL.trim());
    return base.endsWith('/v1') ? base : `${base}/v1`;
  }
  if (choice.provider === 'openai' && env.OPENAI_BASE_URL?.trim()) {
    return stripTrailingSlash(env.OPENAI_BASE_URL.trim());
  }
  return PROVIDERS[choice.provider].officialBaseUrl || undefined;
}

/** The API key for `provider` from `env` (the first of its key variables that is set), if any. */
export function resolveApiKey(provider: ProviderId, env: NodeJS.ProcessEnv): string | undefined {
  for (const name of PROVIDERS[provider].keyVars) {
    const value = env[name]?.trim();
    if (value) return value;
  }
  return undefined;
}

/** A checked provider choice: everything `createLanguageModel` needs, no SDK loaded yet. */
export interface ResolvedModelChoice {
  provider: ProviderId;
  /** Absent only where the provider's key is optional (`openai-compatible` on a local server). */
  apiKey: string | undefined;
  /** API base in the AI SDK's convention (see `resolveBaseUrl`). */
  baseURL: string;
  modelId: string;
}

/**
 * Checks `choice` against `env` (CONTRACT §3) without loading any provider SDK.
 * @throws ConfigError listing every problem: an unknown provider, a missing key (naming its
 * variable; `openai-compatible` needs none), or for `openai-compatible` a missing `agent.base_url`
 * or `agent.model`.
 */
export function resolveModelChoice(choice: ProviderChoice, env: NodeJS.ProcessEnv): ResolvedModelChoice {
  if (!isProviderId(choice.provider)) {
    throw new ConfigError([
      `agent.provider (AGENT_PROVIDER): unknown provider "${String(choice.provider)}"; expected one of ${PROVIDER_IDS.join(', ')}`,
    ]);
  }
  const info = PROVIDERS[choice.provider];
  const issues: string[] = [];
  const apiKey = resolveApiKey(choice.provider, env);
  if (!apiKey && !info.keyOptional) {
    issues.push(`${info.keyVars.join(' or ')} is not set (API key of agent.provider "${choice.provider}")`);
  }
  const baseURL = resolveBaseUrl(choice, env);
  if (!baseURL)
    issues.push(`agent.base_url (AGENT_BASE_URL) is required for agent.provider "${choice.provider}"`);
  const modelId = choice.model?.trim() || info.defaultModel;
  if (!modelId) issues.push(`agent.model (AGENT_MODEL) is required for agent.provider "${choice.provider}"`);
  if (issues.length > 0 || !baseURL) throw new ConfigError(issues);
  return { provider: choice.provider, apiKey, baseURL, modelId };
}

/**
 * Creates the AI SDK language model for `choice` (checked by `resolveModelChoice`), sending every
 * request through `fetchImpl` (default: global fetch). Only the chosen provider's package is
 * loaded (so a server holds one SDK in memory, and a single-provider image needs only its own).
 * OpenAI is used through Chat Completions (`.chat`), not the Responses API; the OpenAI-compatible
 * vendors through `@ai-sdk/openai-compatible` with their official base URLs.
 * @throws ConfigError as `resolveModelChoice` does, or naming the provider's package when it is
 * not installed (a single-provider image run with another provider); as a rejection.
 */
export async function createLanguageModel(
  choice: ProviderChoice | ResolvedModelChoice,
  env: NodeJS.ProcessEnv,
  fetchImpl?: typeof fetch,
): Promise<CreatedLanguageModel> {
  const resolved = 'modelId' in choice ? choice : resolveModelChoice(choice, env);
  return loadLanguageModel(resolved, fetchImpl).catch((error: unknown) => {
    const code = (error as NodeJS.ErrnoException | undefined)?.code;
    if (code !== 'ERR_MODULE_NOT_FOUND') throw error;
    const pkg = providerPackage(resolved.provider);
    throw new ConfigError([
      `agent.provider (AGENT_PROVIDER) "${resolved.provider}": its package ${pkg} is not installed ` +
        `(an image built for another provider?); use the full image or build with PROVIDER=${resolved.provider}`,
    ]);
  });
}

/** The AI SDK package serving `provider`. */
export function providerPackage(provider: ProviderId): string {
  if (provider === 'anthropic' || provider === 'openai' || provider === 'google')
    return `@ai-sdk/${provider}`;
  return '@ai-sdk/openai-compatible';
}

async function loadLanguageModel(
  resolved: ResolvedModelChoice,
  fetchImpl: typeof fetch | undefined,
): Promise<CreatedLanguageModel> {
  const { apiKey, baseURL, modelId } = resolved;
  const common = {
    ...(apiKey !== undefined ? { apiKey } : {}),
    baseURL,
    ...(fetchImpl ? { fetch: fetchImpl } : {}),
  };
  switch (resolved.provider) {
    case 'anthropic': {
      const { createAnthropic } = await import('@ai-sdk/anthropic');
      return { model: createAnthropic(common)(modelId), modelId };
    }
    case 'openai': {
      const { createOpenAI } = await import('@ai-sdk/openai');
      return { model: createOpenAI(common).chat(modelId), modelId };
    }
    case 'google': {
      const { createGoogle } = await import('@ai-sdk/google');
      return { model: createGoogle(common)(modelId), modelId };
    }
    default: {
      const { createOpenAICompatible } = await import('@ai-sdk/openai-compatible');
      const provider = createOpenAICompatible({ ...common, name: resolved.provider, includeUsage: true });
      return { model: provider.chatModel(modelId), modelId };
    }
  }
}

function stripTrailingSlash(url: string): string {
  return url.replace(/\/+$/, '');
}
