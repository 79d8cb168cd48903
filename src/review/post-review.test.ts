import { describe, expect, it } from 'vitest';
import { PlatformError } from '../errors.js';
import { silentLogger } from '../logger.js';
import type { Platform, PullRequestInfo, ReviewSubmission } from '../platforms/types.js';
import { buildReviewBody } from './body.js';
import type { ReviewOutcome } from './execute-review.js';
import { ADDRESSED_HEADING, addressedSection, type EarlierFinding } from './memory/index.js';
import { renderReviewMarker } from './memory/markers.js';
import { postReview } from './post-review.js';

const HEAD = 'd'.repeat(40);
const PR = { repoFullName: 'acme/calc', number: 3, headSha: HEAD } as PullRequestInfo;
const TARGET = { repoFullName: 'acme/calc', prNumber: 3 };

function earlier(id: string, path: string, line: number, text: string): EarlierFinding {
  return {
    thread: { id, path, line, resolved: false, outdated: false, authorUsername: 'bot', body: text },
    marker: { fp: '0123456789abcdef', side: 'RIGHT', n: 1, severity: 'P2' },
  };
}

const DIVISION = earlier('t-division', 'src/calc.ts', 13, 'Division by zero when `b` is 0.');
const LOOP = earlier('t-loop', 'src/calc.ts', 8, 'The loop reads one past the end.');

/** An outcome as `executeReview` leaves it: the addressed section in the body, the marker last. */
function outcome(addressed: EarlierFinding[], inline = false): ReviewOutcome {
  const extras = {
    before: [],
    after: [addressedSection(addressed)],
    markers: [renderReviewMarker({ head: HEAD, at: '2026-11-25T08:00:00.000Z' })],
  };
  const findings = inline
    ? [
        {
          path: 'src/calc.ts',
          line: 2,
          side: 'RIGHT' as const,
          body: 'Nit.',
          severity: 'P3' as const,
          confidence: null,
        },
      ]
    : [];
  return {
    result: {
      summary: 'The division is guarded now.',
      findings,
      rejected: [],
      body: buildReviewBody('The division is guarded now.', [], extras),
      sessionId: '',
      model: 'm',
      usage: { inputTokens: 0, outputTokens: 0 },
      durationMs: 0,
      warnings: [],
    },
    pullRequest: PR,
    commitSha: HEAD,
    messages: [],
    inlineBodies: findings.map((f) => f.body),
    bodyExtras: extras,
    addressed,
  };
}

/** A platform that records what is posted and refuses to resolve the threads of `refuse`. */
function platform(refuse: Set<string>, options: { refuseInline?: boolean; resolve?: boolean } = {}) {
  const posted: string[] = [];
  const reviews: ReviewSubmission[] = [];
  const resolved: string[] = [];
  const stub = {
    postReply: (_target: unknown, body: string) => {
      posted.push(body);
      return Promise.resolve({ id: 'c1', url: 'https://example.com/c1' });
    },
    submitReview: (_repo: string, _n: number, review: ReviewSubmission) => {
      if (options.refuseInline) return Promise.reject(new PlatformError('inline refused', { status: 422 }));
      reviews.push(review);
      return Promise.resolve({ id: 'r1', url: 'https://example.com/r1' });
    },
    ...(options.resolve === false
      ? {}
      : {
          resolveThread: (_repo: string, _n: number, id: string) => {
            if (refuse.has(id)) return Promise.reject(new PlatformError('403 Forbidden', { status: 403 }));
            resolved.push(id);
            return Promise.resolve();
          },
        }),
  } as unknown as Platform;
  return { stub, posted, reviews, resolved };
}

describe('postReview and thread resolution', () => {
  it('resolves the addressed threads and posts the body as it was', async () => {
    const p = platform(new Set());
    const review = outcome([DIVISION, LOOP]);
    const body = review.result.body;
    const out = await postReview(p.stub, review, TARGET, silentLogger());
    expect(out.kind).toBe('comment');
    expect(p.resolved).toEqual(['t-division', 't-loop']);
    expect(p.posted).toEqual([body]);
    expect(body).not.toContain('could not be resolved');
  });

  it('a thread the platform refuses to resolve does not abort the review: the body says it stays open', async () => {
    const p = platform(new Set(['t-division']));
    const review = outcome([DIVISION, LOOP]);
    const out = await postReview(p.stub, review, TARGET, silentLogger());
    expect(out.posted.url).toBe('https://example.com/c1');
    expect(p.resolved).toEqual(['t-loop']);
    expect(p.posted).toHaveLength(1);
    const body = p.posted[0]!;
    expect(body).toContain(
      `### ${ADDRESSED_HEADING}\n\n` +
        '- `src/calc.ts:13`: Division by zero when `b` is 0. (could not be resolved: the thread stays open)\n' +
        '- `src/calc.ts:8`: The loop reads one past the end.\n\n' +
        "One thread could not be resolved: the bot's account may lack the permission to resolve threads on this repository.",
    );
    // The review marker is still the body's last line, and the result says what was posted.
    expect(body.trimEnd().split('\n').at(-1)).toMatch(/^<!-- reviewbot:review head=d{40} /);
    expect(review.result.body).toBe(body);
  });

  it('counts several unresolved threads, and keeps the note when the inline review falls back to a comment', async () => {
    const p = platform(new Set(['t-division', 't-loop']), { refuseInline: true });
    const out = await postReview(p.stub, outcome([DIVISION, LOOP], true), TARGET, silentLogger());
    expect(out.kind).toBe('comment');
    expect(p.posted[0]).toContain('2 threads could not be resolved');
    expect(p.posted[0]!.match(/could not be resolved: the thread stays open/g)).toHaveLength(2);
    expect(p.posted[0]).toContain('Nit.');
  });

  it('an inline review carries the note in its body too', async () => {
    const p = platform(new Set(['t-loop']));
    await postReview(p.stub, outcome([LOOP], true), TARGET, silentLogger());
    expect(p.reviews[0]!.body).toContain('One thread could not be resolved');
  });

  it('a platform without thread resolution posts the body unchanged', async () => {
    const p = platform(new Set(), { resolve: false });
    const review = outcome([DIVISION]);
    const body = review.result.body;
    await postReview(p.stub, review, TARGET, silentLogger());
    expect(p.posted).toEqual([body]);
  });
});
