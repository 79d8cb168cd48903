/**
 * The model ids a fake LLM serves. The real APIs answer an id they do not serve with 404 —
 * Anthropic `not_found_error` ("model: <id>"), OpenAI `model_not_found` ("The model `<id>` does not
 * exist or you do not have access to it."), Gemini `NOT_FOUND` — so the fakes do too: a model id
 * the product builds wrongly (empty, another provider's, a typo in a default) fails the test.
 */
import { PROVIDERS } from '../../../src/agent/providers.js';

/**
 * Served unless a test passes `models`: every provider's default model (what the product sends
 * without `agent.model`) and the ids the tests configure.
 */
export const DEFAULT_FAKE_MODELS: readonly string[] = [
  ...new Set([
    ...Object.values(PROVIDERS)
      .map((p) => p.defaultModel)
      .filter((m) => m !== ''),
    'test-model',
    'claude-test',
    'claude-sonnet-4-5',
    'claude-sonnet-4-6',
    'claude-sonnet-5-5',
    'claude-opus-4-1',
    'claude-haiku-4-5',
    'gpt-x',
    'qwen3',
    'qwen3-coder',
    'm-1',
    'model-x',
    'qwen-coder',
    'm',
    'gemini-test',
  ]),
];

/** True when the fake serves `model` (`models`: the test's list, default `DEFAULT_FAKE_MODELS`). */
export function servesModel(model: string, models: readonly string[] = DEFAULT_FAKE_MODELS): boolean {
  return models.includes(model);
}
