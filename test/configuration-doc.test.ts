/**
 * docs/configuration.md names every variable reviewbot reads: each environment override of a YAML
 * key (`ENV_BINDINGS`), each platform's credentials and webhook secrets, each provider's key, and
 * the variables of logging and of the default runner. A new variable without a line there fails.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { PROVIDERS } from '../src/agent/providers.js';
import { PLATFORM_VARIABLES } from '../src/cli/platform-variables.js';
import { ENV_BINDINGS } from '../src/config/env.js';

const DOC = readFileSync(
  path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'docs', 'configuration.md'),
  'utf8',
);

/** The upper-case variable names a phrase such as `GITEA_TOKEN and GITEA_URL` mentions. */
function variablesIn(phrase: string): string[] {
  return phrase.match(/\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b/g) ?? [];
}

describe('docs/configuration.md', () => {
  const named = [
    ...ENV_BINDINGS.map((binding) => binding.env),
    ...Object.values(PLATFORM_VARIABLES).flatMap((vars) => [
      ...variablesIn(vars.credentials),
      ...variablesIn(vars.webhookSecret),
    ]),
    ...Object.values(PROVIDERS).flatMap((info) => info.keyVars),
    'LOG_LEVEL',
    'LOG_FORMAT',
    'CLAUDE_CODE_OAUTH_TOKEN',
    'REVIEWBOT_CONFIG',
    'BITBUCKET_API_URL',
    'CODEHOST_API_URL',
    'KUBECONFIG',
  ];

  it.each([...new Set(named)])('names %s', (variable) => {
    expect(DOC).toMatch(new RegExp(`\\b${variable}\\b`));
  });
});
