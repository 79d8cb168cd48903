import { describe, expect, it } from 'vitest';
import { fromWire, toWire } from '../../platforms/wire-markers.js';
import { parseFindingMarker, parseReviewMarker } from './markers.js';

const HEAD = 'c'.repeat(40);
const REVIEW = `<!-- reviewbot:review head=${HEAD} at=2026-11-25T08:00:00Z -->`;
const FINDING = '<!-- reviewbot:finding fp=0123456789abcdef side=RIGHT n=2 -->';
const WIRE_REVIEW = `[//]: # (reviewbot:review head=${HEAD} at=2026-11-25T08:00:00Z)`;

/** A marker is read only where the bot writes it: the last thing of a body, at the start of its line. */
describe('a marker that does not start a line', () => {
  it.each([
    ['after text on its line', `Quoted: ${REVIEW}`],
    ['after a space', ` ${REVIEW}`],
    ['after text on the last line of several', `Summary.\n\nsee ${REVIEW}\n`],
    ['in a list item', `- ${REVIEW}`],
    ['in a quote', `> ${REVIEW}`],
  ])('is no review marker (%s)', (_name, body) => {
    expect(parseReviewMarker(body)).toBeUndefined();
  });

  it.each([
    ['after text on its line', `A finding. ${FINDING}`],
    ['after a tab', `\t${FINDING}`],
    ['in a quote', `Body\n> ${FINDING}`],
  ])('is no finding marker (%s)', (_name, body) => {
    expect(parseFindingMarker(body)).toBeUndefined();
  });

  it('is read at the start of the body or of its last line, trailing whitespace allowed', () => {
    expect(parseReviewMarker(REVIEW)?.head).toBe(HEAD);
    expect(parseReviewMarker(`Summary.\n${REVIEW}\n  \n`)?.head).toBe(HEAD);
    expect(parseFindingMarker(FINDING)?.fp).toBe('0123456789abcdef');
    expect(parseFindingMarker(`Body\n${FINDING}  `)?.n).toBe(2);
  });

  it('is not turned into, nor read back from, the wire form of Bitbucket and Azure DevOps', () => {
    // A wire form after text on its line is not the bot's: it stays as it is.
    const quoted = `Quoted: ${WIRE_REVIEW}`;
    expect(fromWire(quoted)).toBe(quoted);
    expect(parseReviewMarker(fromWire(quoted))).toBeUndefined();
    expect(parseReviewMarker(fromWire(`Summary.\n\n${WIRE_REVIEW}`))?.head).toBe(HEAD);
    expect(parseReviewMarker(fromWire(WIRE_REVIEW))?.head).toBe(HEAD);
    // An HTML marker after text on its line is not converted when posting.
    expect(toWire(`Quoted: ${REVIEW}`)).toBe(`Quoted: ${REVIEW}`);
    expect(toWire(REVIEW)).toBe(WIRE_REVIEW);
  });
});
