/**
 * Repeated findings (CONTRACT §13): a kept finding whose path and anchored code text match an
 * earlier finding of the bot (open, resolved or outdated) is dropped, whatever its wording and
 * wherever its line numbers moved. Also builds the finding marker each posted finding carries.
 */
import type { FileDiff } from '../../diff/diff.js';
import type { Finding } from '../types.js';
import { fingerprintLines, normalizeLines } from './fingerprint.js';
import { renderFindingMarker, type FindingMarker } from './markers.js';
import type { EarlierFinding } from './state.js';

/**
 * The text of the lines a finding anchors, read from the pull request's parsed diff: new-file lines
 * for RIGHT, old-file lines for LEFT, `startLine..line`. Empty when the lines are not on the diff.
 */
export function anchoredLines(finding: Finding, files: Map<string, FileDiff>): string[] {
  const file = files.get(finding.path);
  if (!file) return [];
  const first =
    finding.startLine !== undefined && finding.startLine < finding.line ? finding.startLine : finding.line;
  const out: string[] = [];
  for (const hunk of file.hunks) {
    for (const line of hunk.lines) {
      const n = finding.side === 'RIGHT' ? line.newLine : line.oldLine;
      if (n !== undefined && n >= first && n <= finding.line) out.push(line.text);
    }
  }
  return out;
}

/** The marker of a finding, or undefined when its anchored lines hold no text. */
export function findingMarkerOf(finding: Finding, files: Map<string, FileDiff>): FindingMarker | undefined {
  const lines = anchoredLines(finding, files);
  const fp = fingerprintLines(finding.path, lines);
  return fp
    ? { fp, side: finding.side, n: normalizeLines(lines).length, severity: finding.severity }
    : undefined;
}

/** Kept findings split into new ones (with their markers, same order) and repeats. */
export interface RepeatSplit {
  fresh: Finding[];
  /** Hidden marker text per fresh finding ('' when the finding has no fingerprint). */
  markers: string[];
  repeats: Finding[];
}

/** Splits `kept` against the earlier findings; also drops a repeat within this same review. */
export function splitRepeats(
  kept: Finding[],
  files: Map<string, FileDiff>,
  earlier: EarlierFinding[],
): RepeatSplit {
  const known = new Set(earlier.map((e) => `${e.thread.path}\0${e.marker.fp}`));
  const out: RepeatSplit = { fresh: [], markers: [], repeats: [] };
  for (const finding of kept) {
    const marker = findingMarkerOf(finding, files);
    const key = marker ? `${finding.path}\0${marker.fp}` : undefined;
    if (key && known.has(key)) {
      out.repeats.push(finding);
      continue;
    }
    if (key) known.add(key);
    out.fresh.push(finding);
    out.markers.push(marker ? renderFindingMarker(marker) : '');
  }
  return out;
}

/** The review-body line counting repeats, or ''. */
export function repeatsNotice(repeats: Finding[]): string {
  if (repeats.length === 0) return '';
  const n = repeats.length;
  return `_${n} finding${n === 1 ? '' : 's'} raised in an earlier review ${n === 1 ? 'was' : 'were'} not repeated._`;
}
