/** The repository's Dockerfile parsed into instructions and stages, for the image tests. */
import { readFileSync } from 'node:fs';
import path from 'node:path';

/** The repository root. */
export const ROOT = path.resolve(import.meta.dirname, '../..');

/** The Dockerfile's text. */
export const dockerfile = readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8');

/** Instructions with line continuations joined and comments dropped. */
export const instructions = dockerfile
  .replace(/\\\n/g, ' ')
  .split('\n')
  .map((line) => line.trim())
  .filter((line) => line !== '' && !line.startsWith('#'));

/** The stages' instructions (the text after each `FROM `): build, deps, final. */
export const stages = instructions
  .join('\n')
  .split(/^FROM /m)
  .slice(1);

/** The shell command of the deps stage's step that removes other providers' AI SDK packages. */
export function pruneCommand(): string {
  const line = (stages[1] ?? '').split('\n').find((l) => l.includes('node_modules/@ai-sdk/'));
  if (!line) throw new Error('the Dockerfile has no prune step in its deps stage');
  return line.replace(/^RUN /, '');
}

/** The `npm ci` arguments the deps stage runs for a single-provider image (after `npm ci`). */
export function singleProviderInstallArgs(): string[] {
  const single = /\belse\b\s*npm ci ([^;&]+)/.exec(stages[1] ?? '');
  if (!single?.[1]) throw new Error('the Dockerfile has no single-provider npm ci in its deps stage');
  return single[1].trim().split(/\s+/);
}
