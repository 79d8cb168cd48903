/**
 * An eval dataset (CONTRACT §23): `{"name", "cases": [{"ref", "platform"?, "golden": [{"path"?,
 * "line"?, "comment", "severity"?}]}]}`, the shape of public code review benchmarks' golden
 * comments. Read once, checked whole: every problem is named with its place (`cases[2].golden[0].
 * comment: …`) and the command exits 2.
 */
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { UsageError } from '../errors.js';
import { PLATFORM_NAMES, type PlatformName } from '../platforms/types.js';
import type { EvalSeverity } from './severity.js';

/** One known issue of a case: what a good reviewer should say, and where. */
export interface GoldenComment {
  path?: string;
  line?: number;
  comment: string;
  /** The dataset's severity, as `P0`…`P3`; absent when it states none. */
  severity?: EvalSeverity;
}

/** One pull request of the dataset. */
export interface EvalCase {
  /** A reviewbot ref (`owner/repo#N`, a pull request URL, …). */
  ref: string;
  platform?: PlatformName;
  golden: GoldenComment[];
}

/** A whole dataset. */
export interface EvalDataset {
  name: string;
  cases: EvalCase[];
}

/**
 * Severity words benchmarks use, mapped to ours: `critical` P0, `high` P1, `medium` P2, `low` P3
 * (any case); `P0`…`P3` as they are.
 */
const SEVERITY_WORDS: Record<string, EvalSeverity> = {
  p0: 'P0',
  p1: 'P1',
  p2: 'P2',
  p3: 'P3',
  critical: 'P0',
  high: 'P1',
  medium: 'P2',
  low: 'P3',
};

const severity = z.string().transform((value, ctx) => {
  const mapped = SEVERITY_WORDS[value.trim().toLowerCase()];
  if (mapped) return mapped;
  ctx.addIssue({ code: 'custom', message: 'must be P0, P1, P2, P3 (or critical, high, medium, low)' });
  return z.NEVER;
});

const nonEmpty = z.string().trim().min(1, 'must be a non-empty string');

const datasetSchema = z.object({
  name: nonEmpty,
  cases: z
    .array(
      z.object({
        ref: nonEmpty,
        platform: z.enum(PLATFORM_NAMES).optional(),
        golden: z.array(
          z.object({
            path: nonEmpty.optional(),
            line: z.int().min(1).optional(),
            comment: nonEmpty,
            severity: severity.optional(),
          }),
        ),
      }),
    )
    .min(1, 'must list at least one case'),
});

function place(path: readonly PropertyKey[]): string {
  return path.reduce<string>(
    (out, key) => (typeof key === 'number' ? `${out}[${key}]` : out ? `${out}.${String(key)}` : String(key)),
    '',
  );
}

/**
 * Checks a parsed dataset.
 * @throws UsageError (exit 2) naming every problem with its place in the file.
 */
export function parseDataset(value: unknown, source = 'dataset'): EvalDataset {
  const result = datasetSchema.safeParse(value);
  if (result.success) {
    return {
      name: result.data.name,
      cases: result.data.cases.map((c) => ({
        ref: c.ref,
        ...(c.platform ? { platform: c.platform } : {}),
        golden: c.golden.map((g) => ({
          ...(g.path !== undefined ? { path: g.path } : {}),
          ...(g.line !== undefined ? { line: g.line } : {}),
          comment: g.comment,
          ...(g.severity !== undefined ? { severity: g.severity } : {}),
        })),
      })),
    };
  }
  const problems = result.error.issues.map(
    (issue) => `${place(issue.path) || '(top level)'}: ${issue.message}`,
  );
  throw new UsageError(`malformed dataset ${source}:\n  - ${problems.join('\n  - ')}`);
}

/**
 * Reads and checks the dataset file `file`.
 * @throws UsageError (exit 2) when it cannot be read, is not JSON, or is malformed.
 */
export async function loadDataset(file: string): Promise<EvalDataset> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new UsageError(`cannot read dataset ${file}: ${code}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`dataset ${file} is not JSON: ${(error as Error).message}`);
  }
  return parseDataset(value, file);
}
