/**
 * Glob matching for patterns nobody on our side wrote: the model's `Glob`/`Grep` arguments and the
 * globs of a repository's `.reviewbot.yaml` and `.gitattributes`. picomatch compiles a glob to a
 * backtracking RegExp, and modest-looking patterns (`@(a|aa)` × 30 + `b`, or just `*a*a*a*ab`)
 * take seconds to minutes against one path; no complexity limit short of forbidding ordinary globs
 * makes that linear. So compiling and matching happen in a fresh worker thread that is terminated
 * when its matching budget or a hard deadline passes: the event loop (webhooks, `/health`) never waits on a pattern. The worker is plain
 * JavaScript evaluated from a string (no build step), like `Grep`'s.
 */
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';

/** Longest glob pattern accepted, characters; longer ones are refused before any worker starts. */
export const MAX_GLOB_PATTERN_CHARS = 1_000;

/** One glob to match: picomatch syntax, dotfiles included; `basename`: a pattern without `/` matches the base name. */
export interface GlobSpec {
  pattern: string;
  basename?: boolean;
}

/**
 * What `matchGlobSpecs` found: for each spec (same order) the indices of the paths it matches, in
 * ascending order, or `undefined` when it was not evaluated (see `failures`).
 */
export interface GlobMatchOutcome {
  matches: Array<number[] | undefined>;
  /** Why each unevaluated spec was not evaluated (spec index → reason), e.g. "pattern too long". */
  failures: Map<number, string>;
  /** True when a time limit stopped the matching (the spec it was on and those after it failed). */
  timedOut: boolean;
}

/**
 * How long the worker may take beyond the matching budget to start (load picomatch) before it is
 * stopped anyway, ms: the default hard deadline is `timeoutMs` plus this.
 */
export const GLOB_WORKER_START_ALLOWANCE_MS = 2_000;

/** Time limits of `matchGlobSpecs` besides its matching budget. */
export interface GlobLimits {
  /**
   * Hard wall-clock deadline from the call, worker start included, ms: the worker is terminated
   * then whatever it is doing. Default `timeoutMs + GLOB_WORKER_START_ALLOWANCE_MS`.
   */
  deadlineMs?: number;
}

/** Messages of the worker: matching started (epoch ms), one spec's result, budget spent, done. */
type WorkerMessage =
  | { kind: 'start'; at: number }
  | { kind: 'result'; index: number; matches?: number[]; error?: string }
  | { kind: 'budget'; index: number }
  | { kind: 'done' };

/** How long after the budget the main thread waits for the worker's own check before it terminates it, ms. */
const BUDGET_GRACE_MS = 100;

// The budget is checked before each spec and each path: a path list as such cannot outlast it.
// One backtracking `isMatch` call cannot be interrupted from inside: the main thread terminates it.
const WORKER_SOURCE = `(async () => {
  const { parentPort, workerData } = await import('node:worker_threads');
  const picomatch = (await import(workerData.picomatchUrl)).default;
  const { specs, paths, budgetMs } = workerData;
  const started = performance.now();
  parentPort.postMessage({ kind: 'start', at: performance.timeOrigin + started });
  const spent = () => performance.now() - started > budgetMs;
  for (const [index, spec] of specs.entries()) {
    if (spent()) return parentPort.postMessage({ kind: 'budget', index });
    let isMatch;
    try {
      isMatch = picomatch(spec.pattern, { dot: true, basename: spec.basename === true });
    } catch (error) {
      parentPort.postMessage({ kind: 'result', index, error: 'invalid pattern: ' + String(error && error.message) });
      continue;
    }
    const matches = [];
    for (let i = 0; i < paths.length; i++) {
      if (spent()) return parentPort.postMessage({ kind: 'budget', index });
      if (isMatch(paths[i])) matches.push(i);
    }
    parentPort.postMessage({ kind: 'result', index, matches });
  }
  parentPort.postMessage({ kind: 'done' });
})();`;

let picomatchUrl: string | undefined;
function resolvePicomatch(): string {
  picomatchUrl ??= pathToFileURL(createRequire(import.meta.url).resolve('picomatch')).href;
  return picomatchUrl;
}

/**
 * Matches every spec against every path in a fresh worker thread, never on the calling thread.
 * Specs longer than `MAX_GLOB_PATTERN_CHARS` are not run (failure "pattern too long").
 *
 * Two time limits, so that a slow worker start on a loaded machine neither eats the matching time
 * nor lets a call run long: `timeoutMs` is the budget of the matching itself, counted from the
 * moment the worker has loaded picomatch and starts matching (the worker checks it before each
 * spec and path; a single backtracking match that outlasts it is stopped by terminating the
 * worker); `limits.deadlineMs` is a hard deadline from this call. When either passes, the spec the
 * worker was on and all after it fail with "timed out after N ms" (N = the limit that was hit) and
 * `timedOut` is set. Aborting `signal` terminates the worker and rejects with its reason.
 * Starts no worker when there is nothing to match.
 */
export function matchGlobSpecs(
  specs: readonly GlobSpec[],
  paths: readonly string[],
  timeoutMs: number,
  signal?: AbortSignal,
  limits: GlobLimits = {},
): Promise<GlobMatchOutcome> {
  const deadlineMs = limits.deadlineMs ?? timeoutMs + GLOB_WORKER_START_ALLOWANCE_MS;
  const outcome: GlobMatchOutcome = {
    matches: specs.map(() => undefined),
    failures: new Map(),
    timedOut: false,
  };
  const runnable: GlobSpec[] = [];
  const runIndex: number[] = [];
  specs.forEach((spec, index) => {
    if (spec.pattern.length > MAX_GLOB_PATTERN_CHARS) {
      outcome.failures.set(index, `pattern too long (over ${MAX_GLOB_PATTERN_CHARS} characters)`);
    } else if (paths.length === 0) {
      outcome.matches[index] = [];
    } else {
      runnable.push({ pattern: spec.pattern, basename: spec.basename === true });
      runIndex.push(index);
    }
  });
  if (runnable.length === 0) return Promise.resolve(outcome);
  return new Promise((resolve, reject) => {
    signal?.throwIfAborted();
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { picomatchUrl: resolvePicomatch(), specs: runnable, paths, budgetMs: timeoutMs },
    });
    let settled = false;
    let next = 0; // the runnable spec the worker is on
    let budgetTimer: NodeJS.Timeout | undefined;
    const failRest = (reason: string) => {
      for (let i = next; i < runnable.length; i++) outcome.failures.set(runIndex[i]!, reason);
    };
    const finish = (action: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadlineTimer);
      clearTimeout(budgetTimer);
      signal?.removeEventListener('abort', onAbort);
      void worker.terminate();
      action();
    };
    const stop = (limitMs: number) =>
      finish(() => {
        outcome.timedOut = true;
        failRest(`timed out after ${limitMs} ms`);
        resolve(outcome);
      });
    const onAbort = () => finish(() => reject(signal?.reason));
    const deadlineTimer = setTimeout(() => stop(deadlineMs), deadlineMs);
    signal?.addEventListener('abort', onAbort, { once: true });
    worker.on('message', (message: WorkerMessage) => {
      if (message.kind === 'done') return finish(() => resolve(outcome));
      if (message.kind === 'start') {
        // Counted from when the worker started matching (its clock), not from when this message arrived.
        const left = message.at + timeoutMs + BUDGET_GRACE_MS - (performance.timeOrigin + performance.now());
        budgetTimer = setTimeout(() => stop(timeoutMs), Math.max(0, left));
        return;
      }
      next = message.index;
      if (message.kind === 'budget') return stop(timeoutMs);
      const index = runIndex[message.index]!;
      if (message.error !== undefined) outcome.failures.set(index, message.error);
      else outcome.matches[index] = message.matches ?? [];
      next = message.index + 1;
    });
    const crash = (reason: string) =>
      finish(() => {
        failRest(reason);
        resolve(outcome);
      });
    worker.once('error', (error) => crash(`glob matching failed: ${error.message}`));
    worker.once('exit', (code) => crash(`glob matching stopped (exit code ${code})`));
  });
}

/**
 * The paths (a subset of `paths`, in their order) that `pattern` matches, matched off the main
 * thread (`timeoutMs` the matching budget, `deadlineMs` the hard deadline: see `matchGlobSpecs`). Throws `GlobPatternError` with a message fit for the model ("pattern too long", "timed out
 * after N ms", "invalid pattern: …") when the pattern cannot be evaluated.
 */
export async function filterByGlob(
  pattern: string,
  paths: readonly string[],
  options: { basename?: boolean; timeoutMs: number; deadlineMs?: number; signal?: AbortSignal | undefined },
): Promise<string[]> {
  const spec: GlobSpec = options.basename ? { pattern, basename: true } : { pattern };
  const limits = options.deadlineMs !== undefined ? { deadlineMs: options.deadlineMs } : {};
  const outcome = await matchGlobSpecs([spec], paths, options.timeoutMs, options.signal, limits);
  const matched = outcome.matches[0];
  if (matched === undefined) throw new GlobPatternError(outcome.failures.get(0) ?? 'not evaluated');
  return matched.map((i) => paths[i]!);
}

/**
 * `literal` (a file path) as a glob matching exactly that path: every picomatch special character
 * (`\\ * ? [ ] { } ( ) ! + @ | ^ $`) escaped with a backslash, so `pages/[id].tsx` stays one file
 * and `*a*a*ab` (a hostile file name) cannot become a backtracking pattern.
 */
export function escapeGlob(literal: string): string {
  return literal.replace(/[\\*?[\]{}()!+@|^$]/g, '\\$&');
}

/** A glob pattern that could not be evaluated; the message says why (safe to show the model). */
export class GlobPatternError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GlobPatternError';
  }
}
