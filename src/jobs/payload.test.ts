import { describe, expect, it } from 'vitest';
import { parseJobPayload } from './payload.js';
import { makeComment, makePayload } from './records.test-helper.js';

describe('parseJobPayload', () => {
  it('keeps the side of an inline mention (a comment on a removed line stays on the old side)', () => {
    const comment = makeComment({
      platform: 'bitbucket-server',
      repoFullName: 'ACME/widgets',
      commentType: 'review_comment',
      filePath: 'src/a.ts',
      line: 3,
      side: 'LEFT',
    });
    const parsed = parseJobPayload(JSON.stringify(makePayload('worker', 'why?', comment)));
    expect(parsed.comment).toEqual(comment);
  });

  it('rejects a side that is neither LEFT nor RIGHT', () => {
    const payload = makePayload('worker', 'x', makeComment({ line: 3 }));
    const text = JSON.stringify({ ...payload, comment: { ...payload.comment, side: 'OLD' } });
    expect(() => parseJobPayload(text)).toThrow(/comment\.side/);
  });
});
