/**
 * A review as SARIF 2.1.0 (OASIS "Static Analysis Results Interchange Format Version 2.1.0"), the
 * format `github/codeql-action/upload-sarif` and other code-scanning tools read (CONTRACT §17).
 *
 * One `result` per finding, its `level` from its severity (CONTRACT §21: P0 and P1 `error`, P2
 * `warning`, P3 `note`) and its severity and confidence in its properties; findings off the diff
 * ("notes not in the diff") have the property `inDiff: false`. The run's properties carry the verdict. Locations are in the working tree's
 * files (`physicalLocation.region.startLine`/`endLine`, 1-based); a finding on a removed line (side
 * LEFT) points at the line of the new file where the removal happened and says so in its message.
 * A finding whose line is not an integer >= 1 gets a file-level location (no `region`), one with an
 * empty path no `locations`: a rejected finding's position comes from the model unchecked, and one
 * invalid region makes `upload-sarif` reject the whole file.
 * A suggestion becomes a `fix` replacing the finding's lines.
 */
import { parsePatch } from '../diff/diff.js';
import type { ExecuteReviewResult, Finding, Severity } from '../review/types.js';
import type { PullRequestFile } from '../platforms/types.js';

/** `tool.driver.informationUri` of every log. */
export const TOOL_INFORMATION_URI = 'https://github.com/reviewbot/reviewbot';

/** A result's `level` (§3.27.10) for each severity (CONTRACT §21). */
export const SARIF_LEVEL: Record<Severity, SarifResult['level']> = {
  P0: 'error',
  P1: 'error',
  P2: 'warning',
  P3: 'note',
};

/** The one rule every review finding reports under. */
export const FINDING_RULE_ID = 'reviewbot/review-finding';

/** The subset of the SARIF 2.1.0 object model this module writes (property names as in the spec). */
export interface SarifLog {
  $schema: string;
  version: '2.1.0';
  runs: SarifRun[];
}

/** `run` object (§3.14). */
export interface SarifRun {
  tool: {
    driver: {
      name: string;
      version: string;
      semanticVersion: string;
      informationUri: string;
      rules: Array<Record<string, unknown>>;
    };
  };
  originalUriBaseIds?: Record<string, { uri: string }>;
  invocations: Array<Record<string, unknown>>;
  results: SarifResult[];
  properties: Record<string, unknown>;
}

/** `result` object (§3.27). */
export interface SarifResult {
  ruleId: string;
  ruleIndex: number;
  level: 'error' | 'warning' | 'note';
  message: { text: string };
  /** Absent when the finding names no file (empty path). */
  locations?: Array<{ physicalLocation: SarifPhysicalLocation }>;
  fixes?: Array<Record<string, unknown>>;
  properties: Record<string, unknown>;
}

/** `physicalLocation` object (§3.29). */
export interface SarifPhysicalLocation {
  artifactLocation: { uri: string; uriBaseId: string };
  /** Absent (a file-level location) when the finding's lines are not integers >= 1. */
  region?: { startLine: number; endLine: number };
}

/** What `toSarif` needs besides the result. */
export interface SarifOptions {
  toolVersion: string;
  /** Absolute path of the repository root (`SRCROOT`); artifact URIs are relative to it. */
  root?: string;
  /** The reviewed files, to place findings on removed lines (LEFT) in the new file. */
  files: PullRequestFile[];
  /** Base ref, merge base and HEAD of the comparison, recorded in the run's properties. */
  baseRef?: string;
  mergeBase?: string;
  headSha?: string;
}

/** URI of a repository-relative path: each segment percent-encoded, `/` kept. */
function relativeUri(file: string): string {
  return file.split('/').map(encodeURIComponent).join('/');
}

function rootUri(root: string): string {
  const withSlash = root.endsWith('/') ? root : `${root}/`;
  return `file://${withSlash.split('/').map(encodeURIComponent).join('/')}`;
}

/**
 * The new-file line where the removed old-file line `oldLine` of `file` was: the next line the
 * hunk keeps or adds after it, else the last one before it, else 1.
 */
export function newLineOfRemoved(file: PullRequestFile | undefined, oldLine: number): number {
  if (!file?.patch) return 1;
  for (const hunk of parsePatch(file.patch)) {
    const index = hunk.lines.findIndex((l) => l.kind === 'del' && l.oldLine === oldLine);
    if (index < 0) continue;
    const after = hunk.lines.slice(index).find((l) => l.newLine !== undefined)?.newLine;
    const before = hunk.lines
      .slice(0, index)
      .reverse()
      .find((l) => l.newLine !== undefined)?.newLine;
    return after ?? before ?? Math.max(1, hunk.newStart);
  }
  return 1;
}

/** Whether `n` can be a SARIF line number (an integer >= 1, §3.30.5); model output may not be. */
function isLine(n: number | undefined): n is number {
  return n !== undefined && Number.isInteger(n) && n >= 1;
}

/**
 * The `region` of a finding in the new file, or `undefined` (a file-level location) when its line or
 * start line is not an integer >= 1 (a rejected finding's line comes from the model unchecked).
 * Lines out of order are put in order; a LEFT finding points at one new-file line.
 */
function regionOf(
  f: Finding,
  file: PullRequestFile | undefined,
): { startLine: number; endLine: number } | undefined {
  if (!isLine(f.line) || (f.startLine !== undefined && !isLine(f.startLine))) return undefined;
  const first = Math.min(f.startLine ?? f.line, f.line);
  const last = Math.max(f.startLine ?? f.line, f.line);
  if (f.side !== 'LEFT') return { startLine: first, endLine: last };
  const line = newLineOfRemoved(file, first);
  return { startLine: line, endLine: line };
}

function toResult(f: Finding, inDiff: boolean, files: Map<string, PullRequestFile>): SarifResult {
  const file = files.get(f.path);
  const removed = f.side === 'LEFT';
  const region = regionOf(f, file);
  const [low, high] = [Math.min(f.startLine ?? f.line, f.line), Math.max(f.startLine ?? f.line, f.line)];
  const range = low !== high ? `${low}-${high}` : `${f.line}`;
  const where = removed ? `On removed line(s) ${range} of the base version: ` : '';
  const suggestion = f.suggestion !== undefined ? `\n\nSuggested change:\n${f.suggestion}` : '';
  const artifactLocation = { uri: relativeUri(f.path), uriBaseId: 'SRCROOT' };
  const result: SarifResult = {
    ruleId: FINDING_RULE_ID,
    ruleIndex: 0,
    level: SARIF_LEVEL[f.severity],
    message: { text: `${where}${f.body}${suggestion}` },
    // An empty path has no artifact (`uri: ''` names nothing): the result keeps only its message.
    ...(f.path !== ''
      ? { locations: [{ physicalLocation: { artifactLocation, ...(region ? { region } : {}) } }] }
      : {}),
    properties: {
      side: f.side,
      line: f.line,
      ...(f.startLine !== undefined ? { startLine: f.startLine } : {}),
      inDiff,
      severity: f.severity,
      confidence: f.confidence,
    },
  };
  if (f.suggestion !== undefined && region && f.path !== '' && !removed && file?.status !== 'removed') {
    result.fixes = [
      {
        description: { text: 'Suggested change' },
        artifactChanges: [
          {
            artifactLocation,
            replacements: [{ deletedRegion: region, insertedContent: { text: f.suggestion } }],
          },
        ],
      },
    ];
  }
  return result;
}

/** Builds the SARIF log of one review: one run, one result per finding (kept and not in diff). */
export function toSarif(result: ExecuteReviewResult, options: SarifOptions): SarifLog {
  const files = new Map(options.files.map((f) => [f.path, f]));
  const results = [
    ...result.findings.map((f) => toResult(f, true, files)),
    ...result.rejected.map((f) => toResult(f, false, files)),
  ];
  return {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: 'reviewbot',
            version: options.toolVersion,
            semanticVersion: options.toolVersion,
            informationUri: TOOL_INFORMATION_URI,
            rules: [
              {
                id: FINDING_RULE_ID,
                name: 'ReviewFinding',
                shortDescription: { text: 'A point raised by the AI code review' },
                fullDescription: {
                  text: 'A comment of the reviewbot reviewer on a changed line: a bug, a risk or an improvement to consider.',
                },
                helpUri: TOOL_INFORMATION_URI,
                defaultConfiguration: { level: 'warning' },
              },
            ],
          },
        },
        ...(options.root ? { originalUriBaseIds: { SRCROOT: { uri: rootUri(options.root) } } } : {}),
        invocations: [
          {
            executionSuccessful: true,
            ...(result.warnings.length > 0
              ? {
                  toolExecutionNotifications: result.warnings.map((text) => ({
                    level: 'warning',
                    message: { text },
                  })),
                }
              : {}),
          },
        ],
        results,
        properties: {
          summary: result.summary,
          model: result.model,
          usage: result.usage,
          durationMs: result.durationMs,
          ...(options.baseRef ? { baseRef: options.baseRef } : {}),
          ...(options.mergeBase ? { mergeBase: options.mergeBase } : {}),
          ...(options.headSha ? { headSha: options.headSha } : {}),
          ...(result.receipt ? { receipt: result.receipt } : {}),
          ...(result.verdict ? { verdict: result.verdict } : {}),
        },
      },
    ],
  };
}
