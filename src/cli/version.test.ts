import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../../test/support/run-cli.js';
import { readPackageVersion, REVIEWBOT_VERSION } from './version.js';

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  version: string;
};
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('REVIEWBOT_VERSION', () => {
  it("is package.json's version, also in the built CLI (reviewbot --version)", async () => {
    expect(REVIEWBOT_VERSION).toBe(pkg.version);
    const result = await runCli(['--version'], {});
    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toBe(pkg.version);
  });

  it("skips another package's package.json, and says where it looked when there is none", () => {
    const root = mkdtempSync(path.join(os.tmpdir(), 'reviewbot-version-'));
    dirs.push(root);
    writeFileSync(path.join(root, 'package.json'), JSON.stringify({ name: 'reviewbot', version: '9.8.7' }));
    mkdirSync(path.join(root, 'dist/src/cli'), { recursive: true });
    writeFileSync(path.join(root, 'dist/package.json'), JSON.stringify({ type: 'module' }));
    const moduleUrl = pathToFileURL(path.join(root, 'dist/src/cli/version.js')).href;
    expect(readPackageVersion(moduleUrl)).toBe('9.8.7');
    rmSync(path.join(root, 'package.json'));
    if (!existsAbove(root)) expect(() => readPackageVersion(moduleUrl)).toThrow(/not found above/);
  });
});

/** True when some directory above `dir` holds a reviewbot package.json (then the miss cannot be tested). */
function existsAbove(dir: string): boolean {
  try {
    readPackageVersion(pathToFileURL(path.join(path.dirname(dir), 'x.js')).href);
    return true;
  } catch {
    return false;
  }
}
