/**
 * Glob matching for patterns nobody on our side wrote: the model's `Glob`/`Grep` arguments and the
 * globs of a repository's `.reviewbot.yaml` and `.gitattributes`. picomatch compiles a glob to a
 * backtracking RegExp, and modest-looking patterns (`@(a|aa)` × 30 + `b`, or just `*a*a*a*ab`)
 * take seconds to minutes against one path; no complexity limit short of forbidding ordinary globs
 * makes that linear. So compiling and matching happen in a fresh worker thread that is terminated
 * after a timeout: the event loop (webhooks, `/health`) never waits on a pattern. The worker is plain
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
  /** True when the timeout stopped the worker (the spec it was on and those after it failed). */
  timedOut: boolean;
}

interface WorkerMessage {
  index: number;
  matches?: number[];
  error?: string;
}

const WORKER_SOURCE = `(async () => {
  const { parentPort, workerData } = await import('node:worker_threads');
  const picomatch = (await import(workerData.picomatchUrl)).default;
  const { specs, paths } = workerData;
  for (const [index, spec] of specs.entries()) {
    let isMatch;
    try {
      isMatch = picomatch(spec.pattern, { dot: true, basename: spec.basename === true });
    } catch (error) {
      parentPort.postMessage({ index, error: 'invalid pattern: ' + String(error && error.message) });
      continue;
    }
    const matches = [];
    for (let i = 0; i < paths.length; i++) if (isMatch(paths[i])) matches.push(i);
    parentPort.postMessage({ index, matches });
  }
  parentPort.postMessage({ index: -1 });
})();`;

let picomatchUrl: string | undefined;
function resolvePicomatch(): string {
  picomatchUrl ??= pathToFileURL(createRequire(import.meta.url).resolve('picomatch')).href;
  return picomatchUrl;
}

/**
 * Matches every spec against every path in a fresh worker thread, never on the calling thread.
 * Specs longer than `MAX_GLOB_PATTERN_CHARS` are not run (failure "pattern too long"); when
 * `timeoutMs` passes, the worker is terminated and the spec it was on, and all after it, fail with
 * "timed out after N ms". Aborting `signal` terminates the worker and rejects with its reason.
 * Starts no worker when there is nothing to match.
 */
export function matchGlobSpecs(
  specs: readonly GlobSpec[],
  paths: readonly string[],
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<GlobMatchOutcome> {
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
      workerData: { picomatchUrl: resolvePicomatch(), specs: runnable, paths },
    });
    let settled = false;
    let next = 0; // the runnable spec the worker is on
    const failRest = (reason: string) => {
      for (let i = next; i < runnable.length; i++) outcome.failures.set(runIndex[i]!, reason);
    };
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
        finish(() => {
          outcome.timedOut = true;
          failRest(`timed out after ${timeoutMs} ms`);
          resolve(outcome);
        }),
      timeoutMs,
    );
    signal?.addEventListener('abort', onAbort, { once: true });
    worker.on('message', (message: WorkerMessage) => {
      if (message.index < 0) return finish(() => resolve(outcome));
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
 * thread. Throws `GlobPatternError` with a message fit for the model ("pattern too long", "timed out
 * after N ms", "invalid pattern: …") when the pattern cannot be evaluated.
 */
export async function filterByGlob(
  pattern: string,
  paths: readonly string[],
  options: { basename?: boolean; timeoutMs: number; signal?: AbortSignal | undefined },
): Promise<string[]> {
  const spec: GlobSpec = options.basename ? { pattern, basename: true } : { pattern };
  const outcome = await matchGlobSpecs([spec], paths, options.timeoutMs, options.signal);
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
