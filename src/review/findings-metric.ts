/**
 * Counting what the bot sees become of its findings (CONTRACT §23, `reviewbot_findings_total`): a
 * review reports `posted` findings, the threads it resolves as `addressed`, and the dismissals it
 * stores as `dismissed`, each by severity, into a `FindingsMetric` (the server's `Metrics`).
 */
import { findingSeverity, type EvalSeverity } from '../eval/severity.js';
import type { FindingsMetric, ObservedFindingOutcome } from '../metrics.js';
import type { FindingMarker } from './memory/markers.js';

/**
 * The severity of an earlier finding from its marker: the marker's severity where it carries one
 * (`severity`, or `sev` as written on the wire), else P2.
 */
export function markerSeverity(marker: FindingMarker): EvalSeverity {
  const fields = marker as FindingMarker & { severity?: unknown; sev?: unknown };
  return findingSeverity({ severity: fields.severity ?? fields.sev });
}

/**
 * Reports `items` (findings or their severities) as reaching `outcome` on `platform`, one call per
 * severity. Nothing when `metric` is undefined (the CLI) or there is nothing to count.
 */
export function countFindings(
  metric: FindingsMetric | undefined,
  platform: string,
  outcome: ObservedFindingOutcome,
  severities: readonly EvalSeverity[],
): void {
  if (!metric) return;
  const counts = new Map<EvalSeverity, number>();
  for (const severity of severities) counts.set(severity, (counts.get(severity) ?? 0) + 1);
  for (const [severity, count] of counts) metric.findings(platform, severity, outcome, count);
}
