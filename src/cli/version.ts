/**
 * The version `reviewbot --version` prints and SARIF logs name: package.json's `version`, read at
 * run time from the nearest `package.json` named `reviewbot` above this module (the source tree,
 * `dist/src/cli` of a build, an npm install or the container image's `/app`), so it never drifts.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Reads the version of the `reviewbot` package that holds the module at `moduleUrl`.
 * @throws Error naming the directory searched when no such package.json is found.
 */
export function readPackageVersion(moduleUrl: string): string {
  const start = path.dirname(fileURLToPath(moduleUrl));
  for (let dir = start; ; dir = path.dirname(dir)) {
    const file = path.join(dir, 'package.json');
    if (existsSync(file)) {
      const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: unknown; version?: unknown };
      if (pkg.name === 'reviewbot' && typeof pkg.version === 'string') return pkg.version;
    }
    if (path.dirname(dir) === dir) {
      throw new Error(`reviewbot's package.json (with its version) not found above ${start}`);
    }
  }
}

/** package.json's `version`, e.g. `0.1.0`. */
export const REVIEWBOT_VERSION = readPackageVersion(import.meta.url);
