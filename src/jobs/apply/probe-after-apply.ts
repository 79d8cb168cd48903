/**
 * After `apply` pushed a fix (CONTRACT §24): a finding that verification confirmed (§22) carries its
 * probe in its marker; the probe runs again on the new head, in a disposable copy of the workspace
 * inside the tool sandbox with no network, and the reply says whether it now passes or what still
 * fails. No model is involved.
 */
import { defaultSandboxStatus } from '../../agent/sandbox/index.js';
import type { ToolSandbox } from '../../agent/sandbox/types.js';
import { codeSpan } from '../../diff/inline-code.js';
import { fencedBlock } from '../../diff/markdown.js';
import type { EarlierFinding } from '../../review/memory/state.js';
import { shorten } from '../../review/verify/evidence.js';
import { decodeProbe } from '../../review/verify/probe.js';
import { rerunProbe, type ProbeRerun } from '../../review/verify/rerun-probe.js';
import type { JobContext } from '../job-context.js';
import { findingPlace } from './apply-text.js';

/** Most output characters a reply shows of a probe that still fails (head and tail kept). */
export const MAX_PROBE_OUTPUT_CHARS = 1_500;

/** The probe's outcome for one applied finding. */
export interface ProbeNote {
  finding: EarlierFinding;
  command: string;
  rerun: ProbeRerun;
}

/**
 * Runs the probe of each applied finding that has one, one after another, on checkout `dir` (the
 * new head, under the workspace lock). Findings without a probe (not verified, or written before
 * probes were kept) are left out. Never throws for a failing probe.
 */
export async function rerunProbes(
  dir: string,
  findings: readonly EarlierFinding[],
  ctx: Pick<JobContext, 'config' | 'masker' | 'sandbox' | 'signal' | 'logger'>,
): Promise<ProbeNote[]> {
  const notes: ProbeNote[] = [];
  let sandbox: ToolSandbox | undefined;
  for (const finding of findings) {
    const probe = finding.marker.probe === undefined ? undefined : decodeProbe(finding.marker.probe);
    if (probe === undefined) continue;
    sandbox ??= ctx.sandbox ?? { status: await defaultSandboxStatus(), networkHosts: [] };
    const rerun = await rerunProbe({
      probe,
      workspace: dir,
      sandbox,
      timeoutMs: ctx.config.review.verify_timeout_seconds * 1000,
      masker: ctx.masker,
      ...(ctx.signal ? { signal: ctx.signal } : {}),
    });
    ctx.logger.info(
      { path: finding.thread.path, status: rerun.status, durationMs: rerun.durationMs },
      'probe run again after apply',
    );
    notes.push({ finding, command: ctx.masker.mask(probe.command), rerun });
  }
  return notes;
}

/** One sentence (and, when it still fails, a collapsed block) on a probe run again. */
export function probeSentence(note: ProbeNote, timeoutSeconds: number): string {
  const { rerun } = note;
  const command = codeSpan(note.command);
  switch (rerun.status) {
    case 'passes':
      return `The probe that confirmed this finding now passes: ${command} exits 0 on the new head.`;
    case 'timeout':
      return `The probe that confirmed this finding did not finish within ${timeoutSeconds} s on the new head: ${command}.`;
    case 'not-run':
      return `The probe that confirmed this finding could not be run again: ${rerun.reason ?? 'no sandbox'}.`;
    case 'fails':
      return [
        `The probe that confirmed this finding still fails on the new head (exit ${rerun.exitCode ?? 'killed'}):`,
        '',
        '<details>',
        '<summary>What still fails</summary>',
        '',
        fencedBlock(note.command, 'sh'),
        '',
        fencedBlock(
          shorten(rerun.output.replace(/\s+$/, ''), MAX_PROBE_OUTPUT_CHARS) || '(no output)',
          'text',
        ),
        '',
        '</details>',
      ].join('\n');
  }
}

/** The reply's paragraph on the probes of `apply all`: one line per finding, where each stands. */
export function probesParagraph(notes: readonly ProbeNote[], timeoutSeconds: number): string {
  if (notes.length === 0) return '';
  const word: Record<ProbeRerun['status'], string> = {
    passes: 'now passes',
    fails: 'still fails',
    timeout: `did not finish within ${timeoutSeconds} s`,
    'not-run': 'could not be run again',
  };
  const items = notes.map(
    (n) => `- ${findingPlace(n.finding)}: the probe ${codeSpan(n.command)} ${word[n.rerun.status]}`,
  );
  return `Probes of the verified findings, run again on the new head:\n${items.join('\n')}`;
}
