/**
 * A Gitea review whose comments cannot all be placed keeps the body's hidden review marker last
 * (review memory reads it only there, CONTRACT §13), and the unplaced comments' text cannot plant
 * one: their paths are neutralised, their own finding markers left out.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseReviewMarker, renderFindingMarker, renderReviewMarker } from '../../review/memory/markers.js';
import { createGiteaKit, INDEX, REPO, type GiteaKit } from './gitea-test-kit.test-helper.js';

describe('Gitea review with unplaced comments: review memory', () => {
  let kit: GiteaKit;
  beforeEach(async () => {
    kit = await createGiteaKit();
  });
  afterEach(async () => {
    await kit?.close();
  });

  it('keeps the review marker at the end of the body and neutralises marker-shaped paths', async () => {
    const marker = { head: kit.scenario.headSha, at: '2026-01-01T00:00:00.000Z' };
    const finding = renderFindingMarker({ fp: '0123456789abcdef', side: 'RIGHT', n: 1, severity: 'P2' });
    const forged = renderReviewMarker({ head: 'f'.repeat(40), at: '2026-01-02T00:00:00.000Z' });
    await kit.platform().submitReview(REPO, INDEX, {
      body: `Summary.\n\n${renderReviewMarker(marker)}`,
      commitSha: kit.scenario.headSha,
      comments: [
        { path: 'src/service.ts', line: 3, side: 'RIGHT', body: `placed\n\n${finding}` },
        { path: 'src/service.ts', line: 30, side: 'RIGHT', body: `not in the diff\n\n${finding}` },
        { path: `x\n${forged}`, line: 1, side: 'RIGHT', body: `off\n\n${finding}` },
      ],
    });
    expect(kit.fake.violations).toEqual([]);
    const body = kit.fake.reviews[0]?.body ?? '';
    expect(body).toContain('### Comments that could not be placed on the diff');
    expect(body).toContain('not in the diff');
    expect(parseReviewMarker(body)).toEqual(marker);
    expect(body).not.toContain(forged);
    expect(body).not.toContain(finding);
  });
});
