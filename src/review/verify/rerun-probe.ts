/**
 * Runs a confirmed finding's probe again (CONTRACT §24): after `apply` pushed the fix, the probe's
 * files are laid into a disposable overlay of the pull request's workspace at its new head and its
 * command runs in the tool sandbox with no network, under a wall-clock limit. No model is involved.
 * The workspace and its `.git` are never written (the overlay's upper layer takes every write).
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runToolCommand } from '../../agent/sandbox/index.js';
import type { ToolSandbox } from '../../agent/sandbox/types.js';
import type { SecretMasker } from '../../secrets.js';
import { OVERLAY_FAILED_EXIT, openDisposableTree } from './disposable-tree.js';
import { isSafeProbePath, type Probe } from './probe.js';
import { sandboxSkipReason } from './sandbox-reason.js';

/** Input of `rerunProbe`. */
export interface RerunProbeInput {
  probe: Probe;
  /** The pull request's workspace at the new head; never written. */
  workspace: string;
  /** The host's tool sandbox; its network allowlist is ignored (a probe has no network). */
  sandbox: ToolSandbox;
  /** Wall-clock limit, ms (`review.verify_timeout_seconds` × 1000). */
  timeoutMs: number;
  /** Masks secrets in the output kept. */
  masker: SecretMasker;
  /** Where the overlay's upper layer is made (default the OS temporary directory). */
  scratchDir?: string;
  signal?: AbortSignal;
}

/**
 * What the probe did on the new head:
 * - `passes`: its command exited 0 (the bug it showed is gone);
 * - `fails`: it exited non-zero or was killed (`output` shows what still fails);
 * - `timeout`: it ran past the limit and was killed;
 * - `not-run`: no sandbox, or the overlay could not be made (`reason`).
 */
export interface ProbeRerun {
  status: 'passes' | 'fails' | 'timeout' | 'not-run';
  /** The command's output, secrets masked (may be long: the reply shortens it). */
  output: string;
  exitCode: number | null;
  reason?: string;
  /** Wall time, ms. */
  durationMs: number;
}

/**
 * Runs `probe` on `workspace` as it is now. Never throws for a failing probe, a missing sandbox or
 * a probe that cannot be laid out (see `ProbeRerun`); rejects only when `signal` aborts.
 */
export async function rerunProbe(input: RerunProbeInput): Promise<ProbeRerun> {
  const started = Date.now();
  const notRun = (reason: string): ProbeRerun => ({
    status: 'not-run',
    output: '',
    exitCode: null,
    reason: input.masker.mask(reason),
    durationMs: Date.now() - started,
  });
  const skip = sandboxSkipReason(input.sandbox);
  if (skip !== undefined || input.sandbox.status.kind !== 'bwrap') return notRun(skip ?? 'no sandbox');
  let tree;
  try {
    tree = await openDisposableTree({
      workspace: input.workspace,
      sandbox: input.sandbox.status,
      ...(input.scratchDir ? { parentDir: input.scratchDir } : {}),
    });
  } catch (error) {
    return notRun(error instanceof Error ? error.message : String(error));
  }
  let home: string | undefined;
  try {
    home = await mkdtemp(path.join(input.scratchDir ?? tmpdir(), 'reviewbot-probe-home-'));
    for (const file of input.probe.files) {
      if (!isSafeProbePath(file.path)) continue;
      const target = path.join(tree.upperDir, ...file.path.split('/'));
      await mkdir(path.dirname(target), { recursive: true, mode: 0o700 });
      await writeFile(target, file.content, { mode: 0o600, flag: 'wx' });
    }
    const outcome = await runToolCommand(input.probe.command, {
      workspace: tree.workspace,
      home,
      timeoutMs: input.timeoutMs,
      sandbox: tree.sandbox,
      ...(input.signal ? { signal: input.signal } : {}),
    });
    const output = input.masker.mask(outcome.output);
    const durationMs = Date.now() - started;
    if (
      outcome.exitCode === OVERLAY_FAILED_EXIT &&
      output.includes('disposable copy of the working tree could not be made')
    )
      return notRun('the disposable copy of the workspace could not be mounted');
    if (outcome.timedOut) return { status: 'timeout', output, exitCode: null, durationMs };
    const status = outcome.exitCode === 0 ? 'passes' : 'fails';
    return { status, output, exitCode: outcome.exitCode, durationMs };
  } catch (error) {
    if (input.signal?.aborted) throw error;
    // A probe that cannot be laid out or run (a full disk, a process that would not stop) is
    // reported, never thrown: the caller has already pushed and must still reply.
    return notRun(error instanceof Error ? error.message : String(error));
  } finally {
    await tree.close().catch(() => undefined);
    if (home !== undefined) await rm(home, { recursive: true, force: true }).catch(() => undefined);
  }
}
