/**
 * Hidden markers (CONTRACT §13): HTML comments the bot appends to what it posts, invisible when
 * GitHub or GitLab render the Markdown, read back on the next review.
 *
 * - Review marker, in the review body (or the comment that carries it):
 *   `<!-- reviewbot:review head=<40-hex head SHA> at=<ISO time> -->`
 * - Finding marker, at the end of each inline comment:
 *   `<!-- reviewbot:finding fp=<16-hex fingerprint> side=<RIGHT|LEFT> n=<anchored line count> -->`
 *
 * The format is the project's own; the README documents it. Anything else that looks like a
 * marker (a human quoting one, a malformed value) is ignored, never trusted to carry other data.
 */
import type { DiffSide } from '../../platforms/types.js';

/** What a review marker records. */
export interface ReviewMarker {
  /** Head SHA the review was made on. */
  head: string;
  /** When the review was made (ISO 8601); orders reviews posted within the same second. */
  at: string;
}

/** What a finding marker records. */
export interface FindingMarker {
  /** Fingerprint of the anchored code (see `fingerprintLines`). */
  fp: string;
  side: DiffSide;
  /** Number of non-blank anchored lines the fingerprint covers. */
  n: number;
}

const REVIEW = /<!-- reviewbot:review head=([0-9a-f]{7,64}) at=(\d{4}-\d\d-\d\dT[\d:.]+Z) -->/g;
const FINDING = /<!-- reviewbot:finding fp=([0-9a-f]{16}) side=(RIGHT|LEFT) n=(\d{1,5}) -->/;

/** The review marker text for `marker`. */
export function renderReviewMarker(marker: ReviewMarker): string {
  return `<!-- reviewbot:review head=${marker.head} at=${marker.at} -->`;
}

/** The finding marker text for `marker`. */
export function renderFindingMarker(marker: FindingMarker): string {
  return `<!-- reviewbot:finding fp=${marker.fp} side=${marker.side} n=${marker.n} -->`;
}

/** Every review marker in `body`, in order of appearance. */
export function parseReviewMarkers(body: string): ReviewMarker[] {
  const out: ReviewMarker[] = [];
  for (const match of body.matchAll(REVIEW)) {
    const [, head, at] = match;
    if (head && at && !Number.isNaN(Date.parse(at))) out.push({ head, at });
  }
  return out;
}

/** The finding marker of an inline comment's body, if it has one. */
export function parseFindingMarker(body: string): FindingMarker | undefined {
  const match = FINDING.exec(body);
  if (!match) return undefined;
  const [, fp, side, n] = match;
  if (!fp || (side !== 'RIGHT' && side !== 'LEFT') || !n) return undefined;
  return { fp, side, n: Number(n) };
}

/** Anything shaped like one of the bot's markers, forged or not. */
const ANY_MARKER = /<!--\s*reviewbot:[\s\S]*?-->/g;

/**
 * `text` without anything shaped like a bot marker. Applied to what the model writes, so text from
 * the pull request that the model echoes cannot plant a marker in the bot's own posts (e.g. a fake
 * "already reviewed this head" that would silence the next trigger).
 */
export function stripMarkers(text: string): string {
  return text.replace(ANY_MARKER, '');
}

/**
 * A model's review with every marker-shaped text removed from everything that reaches a post: the
 * summary and each comment's body, suggestion and path (a suggestion is rendered before the
 * finding's own marker, so a forged one there would be read back first).
 */
export function withoutMarkers<
  T extends { summary: string; comments: Array<{ body: string; path: string; suggestion?: string }> },
>(output: T): T {
  return {
    ...output,
    summary: stripMarkers(output.summary),
    comments: output.comments.map((c) => ({
      ...c,
      body: stripMarkers(c.body),
      path: stripMarkers(c.path),
      ...(c.suggestion !== undefined ? { suggestion: stripMarkers(c.suggestion) } : {}),
    })),
  };
}
