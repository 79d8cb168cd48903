/**
 * Hidden markers (CONTRACT §13): HTML comments the bot appends to what it posts, invisible when
 * GitHub or GitLab render the Markdown, read back on the next review.
 *
 * - Review marker, in the review body (or the comment that carries it):
 *   `<!-- reviewbot:review head=<40-hex head SHA> at=<ISO time> -->`
 * - Finding marker, at the end of each inline comment:
 *   `<!-- reviewbot:finding fp=<16-hex fingerprint> side=<RIGHT|LEFT> n=<anchored line count> sev=<P0-P3> -->`
 *   (`sev`, the finding's severity (§21), is read as P2 when absent: markers written before it existed),
 *   then ` probe=<base64url>` when verification confirmed the finding (§22): its probe, which
 *   applying the finding runs again (§24; see `encodeProbe`)
 *
 * The format is the project's own; the README documents it. Markers cannot be forged (issue 27):
 * every text the bot posts that it did not write itself (model output, file paths, titles, error
 * texts) goes through `neutraliseMarkers` where posts are assembled, and a marker is read only where
 * the product writes it — the last thing of a body, on a line of its own. Anything else that looks
 * like a marker (a human quoting one, a malformed value, one in the middle of a body) is ignored.
 */
import type { DiffSide } from '../../platforms/types.js';
import { DEFAULT_SEVERITY, type Severity } from '../severity/severity.js';

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
  /** The finding's severity (§21); P2 for a marker without one. */
  severity: Severity;
  /** The probe that confirmed the finding (§22), as `encodeProbe` wrote it; absent when not confirmed. */
  probe?: string;
}

/** Review marker as the last thing of a body, on its own line (trailing whitespace allowed). */
const REVIEW_AT_END =
  /(?:^|\n)<!-- reviewbot:review head=([0-9a-f]{7,64}) at=(\d{4}-\d\d-\d\dT[\d:.]+Z) -->\s*$/;
/** Finding marker as the last thing of an inline comment's body, on its own line. */
const FINDING_AT_END =
  /(?:^|\n)<!-- reviewbot:finding fp=([0-9a-f]{16}) side=(RIGHT|LEFT) n=(\d{1,5})(?: sev=(P[0-3]))?(?: probe=([A-Za-z0-9_-]{1,6000}))? -->\s*$/;

/** The review marker text for `marker`. */
export function renderReviewMarker(marker: ReviewMarker): string {
  return `<!-- reviewbot:review head=${marker.head} at=${marker.at} -->`;
}

/** The finding marker text for `marker`. */
export function renderFindingMarker(marker: FindingMarker): string {
  const probe =
    marker.probe !== undefined && /^[A-Za-z0-9_-]{1,6000}$/.test(marker.probe)
      ? ` probe=${marker.probe}`
      : '';
  return `<!-- reviewbot:finding fp=${marker.fp} side=${marker.side} n=${marker.n} sev=${marker.severity}${probe} -->`;
}

/**
 * The review marker `body` ends with, if any: the bot writes it last, on a line of its own
 * (`buildReviewBody`). A marker anywhere else in the body is not read.
 */
export function parseReviewMarker(body: string): ReviewMarker | undefined {
  const match = REVIEW_AT_END.exec(body);
  if (!match) return undefined;
  const [, head, at] = match;
  if (!head || !at || Number.isNaN(Date.parse(at))) return undefined;
  return { head, at };
}

/** The finding marker an inline comment's body ends with, if any (on a line of its own). */
export function parseFindingMarker(body: string): FindingMarker | undefined {
  const match = FINDING_AT_END.exec(body);
  if (!match) return undefined;
  const [, fp, side, n, sev, probe] = match;
  if (!fp || (side !== 'RIGHT' && side !== 'LEFT') || !n) return undefined;
  return {
    fp,
    side,
    n: Number(n),
    severity: (sev as Severity | undefined) ?? DEFAULT_SEVERITY,
    ...(probe ? { probe } : {}),
  };
}

export { neutraliseMarkers, withoutOwnMarker } from '../../diff/markdown.js';
import { neutraliseMarkers } from '../../diff/markdown.js';

/**
 * A model's review with marker-shaped text neutralised in its summary and each comment's body and
 * suggestion (`buildReviewBody` and `renderInlineBody` neutralise again when the post is assembled;
 * this keeps the result's JSON clean too). Paths stay as they are, so a finding on a file whose
 * name looks like a marker still matches that file; wherever a path is posted it is neutralised.
 */
export function withoutMarkers<
  T extends { summary: string; comments: Array<{ body: string; suggestion?: string }> },
>(output: T): T {
  return {
    ...output,
    summary: neutraliseMarkers(output.summary),
    comments: output.comments.map((c) => ({
      ...c,
      body: neutraliseMarkers(c.body),
      ...(c.suggestion !== undefined ? { suggestion: neutraliseMarkers(c.suggestion) } : {}),
    })),
  };
}
