import { describe, expect, it } from 'vitest';
import { silentLogger } from '../logger.js';
import type { GateReport, Platform, ProgressTarget } from '../platforms/types.js';
import { SecretMasker } from '../secrets.js';
import { overrideGateReport, setGate, showVerdictGate } from './gate.js';

const HEAD = { repoFullName: 'acme/widgets', number: 7, headSha: 'a'.repeat(40), htmlUrl: 'https://x/pr/7' };

function platform(fail = false) {
  const calls: Array<{ target: ProgressTarget; report: GateReport }> = [];
  const p = {
    progressLimits: { description: 40, summary: 0 },
    setGateStatus(target: ProgressTarget, report: GateReport) {
      calls.push({ target, report });
      return fail ? Promise.reject(new Error('boom ghp_secretToken')) : Promise.resolve();
    },
  } as unknown as Platform;
  return { p, calls };
}

describe('the verdict gate (§21)', () => {
  const masker = new SecretMasker(['ghp_secretToken']);
  const logger = silentLogger();

  it('is red while blocking, green otherwise; texts fit the platform', async () => {
    const { p, calls } = platform();
    const ctx = { platform: p, setting: 'on' as const, masker, logger };
    await showVerdictGate(
      ctx,
      HEAD,
      { status: 'blocking', counts: { P0: 1, P1: 2, P2: 3, P3: 1 }, blockOn: 'P1' },
      { url: 'https://x/review' },
    );
    await showVerdictGate(ctx, HEAD, {
      status: 'non-blocking',
      counts: { P0: 0, P1: 0, P2: 1, P3: 0 },
      blockOn: 'P1',
    });
    expect(calls.map((c) => c.report)).toEqual([
      {
        state: 'failure',
        description: 'blocking — P0 ×1, P1 ×2 · 4 other findi…',
        url: 'https://x/review',
      },
      { state: 'success', description: 'non-blocking — P2 ×1' },
    ]);
    expect(calls[0]!.target).toEqual({
      repoFullName: 'acme/widgets',
      prNumber: 7,
      headSha: HEAD.headSha,
      prUrl: HEAD.htmlUrl,
    });
  });

  it('shows nothing when off or without a verdict; a failure is logged, not thrown', async () => {
    const { p, calls } = platform(true);
    await showVerdictGate({ platform: p, setting: 'off', masker, logger }, HEAD, {
      status: 'clean',
      counts: { P0: 0, P1: 0, P2: 0, P3: 0 },
      blockOn: 'P1',
    });
    await showVerdictGate({ platform: p, setting: 'on', masker, logger }, HEAD, undefined);
    expect(calls).toEqual([]);
    await expect(
      showVerdictGate({ platform: p, setting: 'on', masker, logger }, HEAD, {
        status: 'clean',
        counts: { P0: 0, P1: 0, P2: 0, P3: 0 },
        blockOn: 'P1',
      }),
    ).resolves.toBeUndefined();
    expect(calls).toHaveLength(1);
  });

  it('an override names who and why, masked and on one line', async () => {
    const { p, calls } = platform();
    await setGate(
      { platform: p, setting: 'on', masker, logger },
      HEAD,
      overrideGateReport('alice', 'ok\nghp_secretToken'),
    );
    expect(calls[0]!.report).toEqual({ state: 'success', description: 'overridden by @alice: ok ***' });
  });
});
