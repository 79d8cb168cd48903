/**
 * Anthropic's model data, vendored from the official TypeScript SDK so that reviewbot needs neither
 * the SDK (27 MB installed, used for nothing else) nor the network to judge a configured model.
 *
 * Source: `@anthropic-ai/sdk` 1.13.0 (npm, published 2026-11-23; Apache-2.0, Copyright Anthropic),
 * copied 2026-11-28, unchanged:
 * - `ANTHROPIC_DEPRECATED_MODELS`: `internal/data/deprecated-models.mjs`, its `DEPRECATED_MODELS`
 *   (model id to end-of-life date, the table the SDK's Messages client warns from);
 * - `ANTHROPIC_KNOWN_MODELS`: the ids of its `Model` type (`resources/messages/messages.d.mts`).
 *
 * To update: install the newest `@anthropic-ai/sdk` in a scratch directory, copy both, change the
 * version and dates above, and run `src/agent/model-defaults.test.ts` (a default that became
 * deprecated fails there).
 */

/** Model id to end-of-life date, as Anthropic writes it (e.g. `November 30th, 2026`). */
export const ANTHROPIC_DEPRECATED_MODELS: Readonly<Record<string, string>> = {
  'claude-mythos-preview': 'June 30th, 2026',
  'claude-opus-4-5': 'January 22nd, 2027',
  'claude-opus-4-5-20251101': 'January 22nd, 2027',
  'claude-sonnet-4-5': 'November 30th, 2026',
  'claude-sonnet-4-5-20250929': 'November 30th, 2026',
};

/** The model ids the SDK declares (its `Model` type), in its order. */
export const ANTHROPIC_KNOWN_MODELS: readonly string[] = [
  'claude-fable-5-2',
  'claude-mythos-5-2',
  'claude-haiku-5-5',
  'claude-sonnet-5-5',
  'claude-fable-5-1',
  'claude-opus-5-5',
  'claude-mythos-5-1',
  'claude-sonnet-5',
  'claude-fable-5',
  'claude-mythos-5',
  'claude-opus-5',
  'claude-opus-4-8',
  'claude-opus-4-7',
  'claude-mythos-preview',
  'claude-opus-4-6',
  'claude-sonnet-4-6',
  'claude-haiku-4-5',
  'claude-haiku-4-5-20251001',
  'claude-opus-4-5',
  'claude-opus-4-5-20251101',
  'claude-sonnet-4-5',
  'claude-sonnet-4-5-20250929',
];
