/**
 * The Node.js version check of the `reviewbot` bin. This module imports nothing and uses nothing
 * newer than ES2015, so an old Node.js can load it and say what is wrong in one line instead of
 * failing somewhere inside a dependency.
 */

/** The oldest Node.js reviewbot runs on: package.json's `engines.node` (a test keeps them equal). */
export const MIN_NODE_VERSION = '22.19.0';

/**
 * The one line to print when `version` (e.g. `20.11.1`, `process.versions.node`) is older than
 * `MIN_NODE_VERSION`, naming both and how to get Node 22; undefined when it is new enough.
 */
export function nodeVersionProblem(version: string): string | undefined {
  const have = version.split('.').map((part) => parseInt(part, 10) || 0);
  const need = MIN_NODE_VERSION.split('.').map((part) => parseInt(part, 10));
  for (let i = 0; i < need.length; i++) {
    const a = have[i] ?? 0;
    const b = need[i] ?? 0;
    if (a > b) return undefined;
    if (a < b) {
      return (
        `Node.js ${MIN_NODE_VERSION} or newer is required, this is ${version}: ` +
        'install Node 22 (e.g. `nvm install 22`) or run reviewbot with `npx -y node@22`'
      );
    }
  }
  return undefined;
}
