/**
 * The matching loop of `Grep`, run in a worker thread so that a pathological regular expression
 * (catastrophic backtracking) can be stopped by terminating the worker instead of hanging the
 * process. The worker is plain JavaScript evaluated from a string, so it needs no build step.
 */
import { Worker } from 'node:worker_threads';
import { ToolError } from './tool-error.js';

/** What the worker searches. Paths are workspace-relative; `rootReal` is the workspace's real path. */
export interface GrepJob {
  rootReal: string;
  files: string[];
  pattern: string;
  flags: string;
  /** Stop after this many matching lines. */
  maxMatches: number;
  /** Skip files larger than this, bytes. */
  maxFileBytes: number;
  /** Cut matched lines to this many characters. */
  maxLineChars: number;
}

/** Matching lines as `path:line:text`, and whether `maxMatches` cut the search short. */
export interface GrepOutcome {
  lines: string[];
  truncated: boolean;
}

const WORKER_SOURCE = `(async () => {
  const { parentPort, workerData } = await import('node:worker_threads');
  const { readFileSync, statSync } = await import('node:fs');
  const { join } = await import('node:path');
  const job = workerData;
  const re = new RegExp(job.pattern, job.flags);
  const lines = [];
  let truncated = false;
  outer: for (const file of job.files) {
    let text;
    try {
      const info = statSync(join(job.rootReal, file));
      if (!info.isFile() || info.size > job.maxFileBytes) continue;
      const bytes = readFileSync(join(job.rootReal, file));
      if (bytes.subarray(0, 8000).includes(0)) continue;
      text = bytes.toString('utf8');
    } catch {
      continue;
    }
    const fileLines = text.split(/\\r?\\n/);
    for (let i = 0; i < fileLines.length; i++) {
      const line = fileLines[i];
      if (!re.test(line)) continue;
      if (lines.length >= job.maxMatches) { truncated = true; break outer; }
      const shown = line.length > job.maxLineChars ? line.slice(0, job.maxLineChars) + '… [line truncated]' : line;
      lines.push(file + ':' + (i + 1) + ':' + shown);
    }
  }
  parentPort.postMessage({ lines, truncated });
})();`;

/**
 * Runs `job` in a fresh worker thread. Throws `ToolError` when it takes longer than `timeoutMs`
 * (the worker is terminated) or fails; aborting `signal` terminates it too and rejects with the
 * signal's reason.
 */
export function runGrepWorker(job: GrepJob, timeoutMs: number, signal?: AbortSignal): Promise<GrepOutcome> {
  return new Promise((resolve, reject) => {
    signal?.throwIfAborted();
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: job });
    let settled = false;
    const finish = (action: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      void worker.terminate();
      action();
    };
    const onAbort = () => finish(() => reject(signal?.reason));
    const timer = setTimeout(
      () =>
        finish(() => reject(new ToolError(`Grep timed out after ${timeoutMs} ms; use a simpler pattern`))),
      timeoutMs,
    );
    signal?.addEventListener('abort', onAbort, { once: true });
    worker.once('message', (outcome: GrepOutcome) => finish(() => resolve(outcome)));
    worker.once('error', (error) => finish(() => reject(new ToolError(`Grep failed: ${error.message}`))));
    worker.once('exit', (code) =>
      finish(() => reject(new ToolError(`Grep worker exited with code ${code}`))),
    );
  });
}
