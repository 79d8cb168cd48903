/**
 * Issue 27, defect 3: a glob pattern from a (prompt-injected) model must not block the event loop.
 * `@(a|aa)` × 30 + `b` against a file named `a` × 40 backtracks for seconds in picomatch's RegExp;
 * the tools match it in a worker thread with a timeout, so timers keep firing and the call ends
 * with a clear tool error. A pattern that would backtrack for minutes answers within 5 s, even
 * while other threads keep the CPUs busy (the worker then starts slowly).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SecretMasker } from '../../secrets.js';
import { callTool } from './call-tool.js';
import { globFiles } from './glob.js';
import { grepFiles } from './grep.js';
import { buildTools, REVIEWER_TOOLS } from './index.js';

const HOSTILE = `${'@(a|aa)'.repeat(30)}b`;
const VICTIM = 'a'.repeat(40);
/** Minutes of backtracking in picomatch: far past any time limit. */
const PATHOLOGICAL = `${'@(a|aa)'.repeat(40)}b`;
const SLOW_VICTIM = 'a'.repeat(52);

let base: string;
let root: string;
let tools: ReturnType<typeof buildTools>;

beforeAll(() => {
  base = realpathSync(mkdtempSync(path.join(tmpdir(), 'glob-hostile-test-')));
  root = path.join(base, 'ws');
  execFileSync('git', ['init', '-q', root]);
  mkdirSync(path.join(root, 'src', 'deep', 'er'), { recursive: true });
  mkdirSync(path.join(root, 'lib'));
  writeFileSync(path.join(root, VICTIM), 'victim\n');
  mkdirSync(path.join(root, 'slow'));
  writeFileSync(path.join(root, 'slow', SLOW_VICTIM), 'victim\n');
  writeFileSync(path.join(root, 'src', 'a.ts'), 'export const a = 1;\n');
  writeFileSync(path.join(root, 'src', 'deep', 'er', 'b.ts'), 'export const b = 2;\n');
  writeFileSync(path.join(root, 'src', 'deep', 'a.js'), 'module.exports = 1;\n');
  writeFileSync(path.join(root, 'src', 'deep', 'er', 'b.js'), 'module.exports = 2;\n');
  writeFileSync(path.join(root, 'src', 'c.js'), 'module.exports = 3;\n');
  writeFileSync(path.join(root, 'lib', 'x.ts'), 'export const x = 3;\n');
  tools = buildTools(REVIEWER_TOOLS, {
    rootReal: root,
    homeDir: base,
    masker: new SecretMasker([]),
    onSubmit: () => undefined,
  });
});

afterAll(() => rmSync(base, { recursive: true, force: true }));

/** Runs `work` while a 10 ms interval ticks; returns its outcome and the longest gap between ticks. */
async function withTicker<T>(work: () => Promise<T>): Promise<{ outcome: T | Error; maxGapMs: number }> {
  let last = performance.now();
  let maxGapMs = 0;
  const ticker = setInterval(() => {
    const now = performance.now();
    maxGapMs = Math.max(maxGapMs, now - last);
    last = now;
  }, 10);
  try {
    const outcome = await work().catch((error: unknown) => error as Error);
    const now = performance.now();
    maxGapMs = Math.max(maxGapMs, now - last);
    return { outcome, maxGapMs };
  } finally {
    clearInterval(ticker);
  }
}

describe('hostile glob patterns', () => {
  it('Glob: the event loop keeps running and the call ends with a timeout error', async () => {
    const { outcome, maxGapMs } = await withTicker(() =>
      globFiles(root, '.', HOSTILE, undefined, undefined, 1_000),
    );
    expect(maxGapMs).toBeLessThan(500);
    expect(outcome).toBeInstanceOf(Error);
    expect((outcome as Error).message).toBe(
      'Glob: pattern too complex (matching timed out after 1000 ms); use a simpler pattern',
    );
  }, 20_000);

  it('Glob: a pathological pattern answers "too complex" within 5 s, even with the CPUs busy', async () => {
    // Two threads spinning (as many as the CI machine has cores) slow the matching worker's start.
    const burners = [0, 1].map(
      () => new Worker('const end = Date.now() + 8000; while (Date.now() < end);', { eval: true }),
    );
    try {
      const started = performance.now();
      const result = await callTool(tools, 'Glob', { pattern: PATHOLOGICAL, path: 'slow' });
      const elapsedMs = performance.now() - started;
      expect(result.isError).toBe(true);
      expect(result.output).toMatch(/^Glob: pattern too complex \(matching timed out after \d+ ms\)/);
      expect(elapsedMs).toBeLessThan(5_000);
    } finally {
      await Promise.all(burners.map((b) => b.terminate()));
    }
  }, 30_000);

  it("Grep's glob parameter is matched the same way", async () => {
    const { outcome, maxGapMs } = await withTicker(() =>
      grepFiles(root, '.', { pattern: 'victim', glob: HOSTILE }, undefined, 1_000),
    );
    expect(maxGapMs).toBeLessThan(500);
    expect((outcome as Error).message).toBe(
      'Grep: pattern too complex (matching timed out after 1000 ms); use a simpler pattern',
    );
  }, 20_000);

  it('refuses an overlong pattern as a tool error', async () => {
    const result = await callTool(tools, 'Glob', { pattern: `${'*'.repeat(1_001)}` });
    expect(result).toEqual({ isError: true, output: 'Glob: pattern too long (over 1000 characters)' });
  });
});

describe('legitimate glob patterns keep working', () => {
  it.each([
    ['**/*.ts', 'lib/x.ts\nsrc/a.ts\nsrc/deep/er/b.ts'],
    ['src/**/{a,b}.js', 'src/deep/a.js\nsrc/deep/er/b.js'],
    ['+(src|lib)/*.@(ts|js)', 'lib/x.ts\nsrc/a.ts\nsrc/c.js'],
    ['src/**/!(a).@(js|ts)', 'src/c.js\nsrc/deep/er/b.js\nsrc/deep/er/b.ts'],
    [`${'@(a|aa)'.repeat(4)}*`, VICTIM],
  ])('Glob %s', async (pattern, expected) => {
    expect(await callTool(tools, 'Glob', { pattern })).toEqual({ isError: false, output: expected });
  });

  it('Glob under a path and Grep with a base-name glob', async () => {
    expect(await callTool(tools, 'Glob', { pattern: '**/*.js', path: 'src/deep' })).toEqual({
      isError: false,
      output: 'src/deep/a.js\nsrc/deep/er/b.js',
    });
    expect(await callTool(tools, 'Grep', { pattern: 'module', glob: 'b.js' })).toEqual({
      isError: false,
      output: 'src/deep/er/b.js:1:module.exports = 2;',
    });
  });
});
