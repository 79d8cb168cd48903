/**
 * Issue 27, defect 3: globs a repository supplies (`.reviewbot.yaml` `review.ignore` and
 * `path_instructions`, `.gitattributes` of the base commit) are matched off the main thread, so a
 * catastrophic one (`@(a|aa)` × 30 + `b` against a path `a` × 40) neither blocks the event loop
 * nor stops the review: it is not applied, and the other globs still are.
 */
import { describe, expect, it } from 'vitest';
import type { PullRequestFile } from '../platforms/types.js';
import { toFileDiffs } from '../diff/diff.js';
import { matchPathInstructions, ignoredPaths } from './repo-rules.js';
import { triageFiles } from './triage.js';

const HOSTILE = `${'@(a|aa)'.repeat(30)}b`;
const VICTIM = 'a'.repeat(40);

function file(path: string): PullRequestFile {
  return { path, status: 'added', additions: 1, deletions: 0, patch: '@@ -0,0 +1 @@\n+const x = 1;' };
}

/** Runs `work` while a 10 ms interval ticks; returns its result and the longest gap between ticks. */
async function withTicker<T>(work: () => Promise<T>): Promise<{ result: T; maxGapMs: number }> {
  let last = performance.now();
  let maxGapMs = 0;
  const ticker = setInterval(() => {
    const now = performance.now();
    maxGapMs = Math.max(maxGapMs, now - last);
    last = now;
  }, 10);
  try {
    const result = await work();
    maxGapMs = Math.max(maxGapMs, performance.now() - last);
    return { result, maxGapMs };
  } finally {
    clearInterval(ticker);
  }
}

describe('hostile repository globs', () => {
  it('triage: a hostile review.ignore / .gitattributes glob is skipped, the others apply', async () => {
    const warnings: unknown[] = [];
    const logger = { warn: (obj: unknown) => warnings.push(obj) } as never;
    const { result, maxGapMs } = await withTicker(() =>
      triageFiles({
        files: toFileDiffs([file(VICTIM), file('docs/a.md'), file('gen/x.ts'), file('src/a.ts')]),
        ignore: ['docs/**', HOSTILE],
        gitattributes: `gen/** linguist-generated\n${HOSTILE} linguist-generated\n`,
        logger,
        globTimeoutMs: 500,
      }),
    );
    expect(maxGapMs).toBeLessThan(400);
    expect(result.kept.map((f) => f.path)).toEqual([VICTIM, 'src/a.ts']);
    expect(result.skipped).toEqual([
      { path: 'docs/a.md', reason: 'review.ignore' },
      { path: 'gen/x.ts', reason: 'generated' },
    ]);
    expect(warnings).toEqual([
      { key: 'review.ignore', pattern: HOSTILE.slice(0, 200), reason: 'timed out after 500 ms' },
      { key: '.gitattributes', pattern: HOSTILE.slice(0, 200), reason: 'timed out after 500 ms' },
    ]);
  }, 20_000);

  it('review.ignore and path_instructions: the event loop keeps running', async () => {
    const { result, maxGapMs } = await withTicker(async () => ({
      ignored: await ignoredPaths({ ignore: ['*.md', HOSTILE] }, [VICTIM, 'README.md'], undefined, 500),
      instructions: await matchPathInstructions(
        {
          pathInstructions: [
            { path: '*.md', instructions: 'Docs.' },
            { path: HOSTILE, instructions: 'Never applied.' },
          ],
        },
        [VICTIM, 'README.md'],
        undefined,
        500,
      ),
    }));
    expect(maxGapMs).toBeLessThan(400);
    expect([...result.ignored]).toEqual(['README.md']);
    expect(result.instructions).toEqual([
      { entry: { path: '*.md', instructions: 'Docs.' }, paths: ['README.md'] },
    ]);
  }, 20_000);
});
