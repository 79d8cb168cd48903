/**
 * The GitHub Action's install and build steps, run for real as a runner runs them: the `run`
 * scripts of `action.yml`'s steps, with bash in a copy of the repository's tracked files
 * (`GITHUB_ACTION_PATH`), installing from the npm registry. They must leave a runnable entry point
 * and only the runtime dependencies: no test or lint tools, and no Claude Code binary when a
 * provider is given.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

interface Step {
  name?: string;
  run?: string;
  env?: Record<string, string>;
}

/** The repository's tracked files as they are in the working tree, copied under `dest`. */
function copyTrackedFiles(dest: string): void {
  const files = execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' })
    .split('\0')
    .filter((file) => file !== '' && existsSync(path.join(ROOT, file)));
  for (const file of files) {
    mkdirSync(path.dirname(path.join(dest, file)), { recursive: true });
    cpSync(path.join(ROOT, file), path.join(dest, file));
  }
}

describe("action.yml's install and build steps", () => {
  let dir: string;
  let results: Array<{ name: string; status: number | null; stderr: string }>;

  beforeAll(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'reviewbot-action-install-'));
    copyTrackedFiles(dir);
    const action = parse(readFileSync(path.join(ROOT, 'action.yml'), 'utf8')) as {
      runs: { steps: Step[] };
    };
    const steps = action.runs.steps.filter(
      (step) => step.run !== undefined && step.name !== 'Review the pull request',
    );
    results = steps.map((step) => {
      const result = spawnSync('bash', ['-e', '-c', step.run!], {
        cwd: dir,
        encoding: 'utf8',
        timeout: 280_000,
        // `${{ inputs.provider }}` as the runner substitutes it: the default input.
        env: { ...process.env, GITHUB_ACTION_PATH: dir, INPUT_PROVIDER: 'anthropic', NODE_ENV: 'production' },
      });
      return { name: step.name ?? '', status: result.status, stderr: result.stderr };
    });
  }, 300_000);
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('install then build, each succeeding', () => {
    expect(results.map((r) => [r.name, r.status, r.status === 0 ? '' : r.stderr])).toEqual([
      ['Install reviewbot', 0, ''],
      ['Build reviewbot', 0, ''],
    ]);
  });

  it('leave a runnable entry point', () => {
    expect(existsSync(path.join(dir, 'dist', 'src', 'action', 'main.js'))).toBe(true);
    const version = execFileSync(
      process.execPath,
      [path.join(dir, 'dist', 'src', 'cli', 'index.js'), '--version'],
      {
        encoding: 'utf8',
      },
    );
    const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string };
    expect(version.trim()).toBe(pkg.version);
  });

  it('install the runtime dependencies only', () => {
    const installed = (name: string) => existsSync(path.join(dir, 'node_modules', name, 'package.json'));
    for (const runtime of ['pino', 'commander', 'ai', '@ai-sdk/anthropic', '@octokit/rest']) {
      expect(installed(runtime), runtime).toBe(true);
    }
    for (const tool of [
      'vitest',
      'eslint',
      'typescript',
      'prettier',
      '@octokit/openapi',
      '@anthropic-ai/claude-agent-sdk',
    ]) {
      expect(installed(tool), tool).toBe(false);
    }
  });
});
