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
  const fs = await import('node:fs');
  const { isAbsolute, join, relative, sep } = await import('node:path');
  const job = workerData;
  const re = new RegExp(job.pattern, job.flags);
  const { O_RDONLY, O_NONBLOCK } = fs.constants;
  const O_PATH = 0o10000000;
  const pinning = process.platform === 'linux';
  // Inside the workspace and outside .git, by the real path of what was opened.
  const confined = (real) => {
    const rel = relative(job.rootReal, real);
    if (rel === '..' || rel.startsWith('..' + sep) || isAbsolute(rel)) return false;
    return !rel.split(sep).some((segment) => segment.toLowerCase() === '.git');
  };
  // The file's bytes, or undefined to skip it. The file is pinned (O_PATH) and checked before it
  // is opened, so a path swapped for a link out of the workspace after the walk is not read.
  const readConfined = (file) => {
    const absolute = join(job.rootReal, file);
    if (!pinning) {
      if (!confined(fs.realpathSync(absolute))) return undefined;
      const info = fs.statSync(absolute);
      if (!info.isFile() || info.size > job.maxFileBytes) return undefined;
      return fs.readFileSync(absolute);
    }
    const pin = fs.openSync(absolute, O_PATH);
    try {
      if (!confined(fs.readlinkSync('/proc/self/fd/' + pin))) return undefined;
      const fd = fs.openSync('/proc/self/fd/' + pin, O_RDONLY | O_NONBLOCK);
      try {
        const info = fs.fstatSync(fd);
        if (!info.isFile() || info.size > job.maxFileBytes) return undefined;
        return fs.readFileSync(fd);
      } finally {
        fs.closeSync(fd);
      }
    } finally {
      fs.closeSync(pin);
    }
  };
  const lines = [];
  let truncated = false;
  outer: for (const file of job.files) {
    let text;
    try {
      const bytes = readConfined(file);
      if (bytes === undefined || bytes.subarray(0, 8000).includes(0)) continue;
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
