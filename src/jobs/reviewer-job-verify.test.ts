/**
 * A REVIEWER job with `review.verify: on` against the fake GitHub and the fake Anthropic API: the
 * job passes the configuration and the host's sandbox to the review, and what GitHub receives is
 * the verified review — evidence in the confirmed finding's inline comment, no trace of the refuted
 * one, the verification line in the receipt; without a sandbox, the findings are posted as not
 * verified and the receipt says why.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RecordedLlmRequest, ScriptedReply } from '../../test/support/fake-llm/index.js';
import { SCENARIO_PATHS } from '../../test/support/git-fixtures.js';
import { probeSandbox } from '../agent/sandbox/index.js';
import { parseFindingMarker } from '../review/memory/markers.js';
import { startJobFixture, type JobFixture } from './job-fixture.test-helper.js';
import { makePayload } from './records.test-helper.js';
import { runJob } from './run-job.js';

const detected = await probeSandbox('auto');
const VERIFICATION_SYSTEM = 'You verify one finding';

let fx: JobFixture;
// A fixture per test: the second review would otherwise see the first one's findings as repeats.
beforeEach(async () => {
  fx = await startJobFixture();
  Object.assign(fx.ctx.config.review, { verify: 'on', verify_min_severity: 'P2' });
});
afterEach(async () => {
  await fx?.close();
});

/** The review: a P2 the probe confirms and a P0 it refutes; each verification: a probe, then the verdict. */
function script(path: string, lines: readonly number[]) {
  return (request: RecordedLlmRequest): ScriptedReply => {
    if (!request.system.includes(VERIFICATION_SYSTEM))
      return {
        toolCalls: [
          {
            name: 'submit_review',
            input: {
              summary: 'Two suspicions.',
              comments: [
                {
                  path,
                  line: lines[0],
                  side: 'RIGHT',
                  body: 'CONFIRM: this constant is wrong.',
                  severity: 'P2',
                },
                {
                  path,
                  line: lines[1],
                  side: 'RIGHT',
                  body: 'REFUTE: this crashes on start.',
                  severity: 'P0',
                },
              ],
            },
          },
        ],
      };
    const tag = /(CONFIRM|REFUTE): /.exec(request.messages[0]?.text ?? '')?.[1] ?? 'CONFIRM';
    const result = request.toolResults[0];
    if (result === undefined)
      return { toolCalls: [{ name: 'Bash', input: { command: `echo probe-${tag.toLowerCase()}` } }] };
    return {
      toolCalls: [
        {
          name: 'submit_verification',
          input: {
            verdict: tag === 'REFUTE' ? 'refuted' : 'confirmed',
            command: `echo probe-${tag.toLowerCase()}`,
            output: result.content,
            explanation: 'as the probe shows',
          },
        },
      ],
    };
  };
}

function mention(id: string) {
  return makePayload(
    'reviewer',
    'verify please',
    fx.comment({ commentId: id, body: '@rb-review verify please' }),
  );
}

describe('REVIEWER job with review.verify on', () => {
  it.runIf(detected.kind === 'bwrap')(
    'posts the confirmed finding with its evidence and nothing of the refuted one',
    async () => {
      fx.ctx.sandbox = { status: detected, networkHosts: [] };
      const modified = fx.scenario.files[SCENARIO_PATHS.modified]!;
      fx.llm.setScript(script(modified.path, modified.added));
      const reviews = fx.github.reviews.length;
      expect(await runJob(mention('9101'), fx.ctx)).toEqual({ status: 'succeeded' });

      const review = fx.github.reviews[reviews]!;
      const inline = fx.github.reviewComments.filter((c) => c.pull_request_review_id === review.id);
      expect(inline).toHaveLength(1);
      const body = inline[0]!.body;
      expect(body).toMatch(
        /^\*\*P2\*\* CONFIRM: this constant is wrong\.\n\n<details>\n<summary>Verified by running code/,
      );
      expect(body).toContain('```sh\necho probe-confirm\n```');
      expect(body).toContain('```text\nprobe-confirm\n```');
      // The model called it confirmed, but its probe exits 0 on the head as it is: a probe that does
      // not fail proves nothing after a fix, so the marker keeps none for apply to run again.
      expect(body).toMatch(/<!-- reviewbot:finding [^>]* sev=P2 -->$/);
      expect(parseFindingMarker(body)?.probe).toBeUndefined();
      expect(review.body).not.toContain('REFUTE');
      expect(review.body).toContain('**Verdict:** non-blocking');
      expect(review.body).toContain(
        '- Verification: 1 confirmed · 1 refuted (not posted) · 0 inconclusive · 0 skipped',
      );
      expect(fx.llm.requests.filter((r) => r.system.includes(VERIFICATION_SYSTEM))).toHaveLength(4);
      expect(fx.github.violations).toEqual([]);
    },
  );

  it('without a sandbox (agent.sandbox: off), posts both findings as not verified and says why', async () => {
    fx.ctx.config.agent.sandbox = 'off';
    const modified = fx.scenario.files[SCENARIO_PATHS.modified]!;
    fx.llm.setScript(script(modified.path, modified.added));
    const requests = fx.llm.requests.length;
    const reviews = fx.github.reviews.length;
    expect(await runJob(mention('9102'), fx.ctx)).toEqual({ status: 'succeeded' });

    expect(fx.llm.requests.slice(requests).some((r) => r.system.includes(VERIFICATION_SYSTEM))).toBe(false);
    const review = fx.github.reviews[reviews]!;
    const inline = fx.github.reviewComments.filter((c) => c.pull_request_review_id === review.id);
    expect(inline.map((c) => c.body).sort()).toEqual([
      expect.stringMatching(
        /^\*\*P0\*\* REFUTE: [^\n]*\n\n_Not verified by running code\._\n\n<!-- reviewbot:finding /,
      ),
      expect.stringMatching(
        /^\*\*P2\*\* CONFIRM: [^\n]*\n\n_Not verified by running code\._\n\n<!-- reviewbot:finding /,
      ),
    ]);
    expect(review.body).toContain('**Verdict:** blocking');
    expect(review.body).toContain(
      '- Verification: 0 confirmed · 0 refuted (not posted) · 0 inconclusive · 2 skipped',
    );
    expect(review.body).toContain('- Not verified: the tool sandbox is off (agent.sandbox: off)');
    expect(fx.github.violations).toEqual([]);
  });
});
