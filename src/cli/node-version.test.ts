import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { MIN_NODE_VERSION, nodeVersionProblem } from './node-version.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

describe('nodeVersionProblem', () => {
  it.each(['22.19.0', '22.19.1', '22.23.3', '24.0.0', '26.1.0', '100.0.0'])('%s: runs', (version) => {
    expect(nodeVersionProblem(version)).toBeUndefined();
  });

  it.each(['22.18.9', '22.12.0', '21.99.0', '20.11.1', '18.20.8', '0.10.48'])(
    '%s: one line naming both versions and how to get Node 22',
    (version) => {
      const problem = nodeVersionProblem(version);
      expect(problem).toBe(
        `Node.js ${MIN_NODE_VERSION} or newer is required, this is ${version}: install Node 22 ` +
          '(e.g. `nvm install 22`) or run reviewbot with `npx -y node@22`',
      );
    },
  );

  it("matches package.json's engines.node and .nvmrc", () => {
    const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
      engines: { node: string };
    };
    expect(`>=${MIN_NODE_VERSION.replace(/\.0$/, '')}`).toBe(pkg.engines.node);
    expect(readFileSync(path.join(ROOT, '.nvmrc'), 'utf8').trim()).toBe(MIN_NODE_VERSION.split('.')[0]);
  });
});
