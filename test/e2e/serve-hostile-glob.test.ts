/**
 * Issue 27, defect 3: a prompt-injected model's Glob pattern must not block `reviewbot serve`. The
 * API runner executes tools in the server process; in picomatch, `@(a|aa)` × 32 + `b` against a
 * file named `a` × 44 backtracks for seconds (the issue's × 30 against `a` × 40 takes about one
 * here, too close to call). `/health` must keep answering quickly during that call.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServeFixture, postComment, waitFor, WORKER, type ServeFixture } from './serve-fixture.js';

const HOSTILE = `${'@(a|aa)'.repeat(32)}b`;
const VICTIM = 'a'.repeat(44);

/** Milliseconds `/health` takes to answer (a request that takes over 10 s counts as 10 s). */
async function healthLatency(url: string): Promise<number> {
  const started = performance.now();
  try {
    const res = await fetch(`${url}/health`, { signal: AbortSignal.timeout(10_000) });
    await res.arrayBuffer();
  } catch {
    // timed out: the latency is the time waited
  }
  return performance.now() - started;
}

describe('reviewbot serve: a hostile Glob pattern', () => {
  let fx: ServeFixture;
  beforeAll(async () => {
    fx = await createServeFixture();
  });
  afterAll(async () => {
    await fx?.closeAll();
  });

  it('keeps /health fast while the tool call runs, and the model gets the result', async () => {
    fx.llm.setScript([
      { toolCalls: [{ name: 'Write', input: { file_path: VICTIM, content: 'victim\n' } }] },
      { toolCalls: [{ name: 'Glob', input: { pattern: HOSTILE } }] },
      { text: 'Done looking.' },
    ]);
    const res = await postComment(fx, 7, `@${WORKER} find the files`);
    expect(res.json).toMatchObject({ status: 'accepted' });
    // The Glob call starts once the model has the Write result (its second request).
    await waitFor(() => fx.llm.requests.length >= 2, 30_000, 'the Write result');
    const latencies: number[] = [];
    while (fx.llm.requests.length < 3) {
      latencies.push(await healthLatency(fx.server.url));
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(Math.max(...latencies), `latencies ${latencies.map(Math.round).join(' ')}`).toBeLessThan(500);
    expect(latencies.length).toBeGreaterThan(5);
    const globResult = fx.llm.requests[2]!.toolResults[0]!;
    expect(globResult.content).toMatch(/No files found\.|Glob: pattern too complex/);
    await waitFor(
      () => fx.github.issueComments.find((c) => c.body?.includes('Done looking.')),
      30_000,
      'reply',
    );
  }, 90_000);
});
