/**
 * The first lines of many files of a pull request's BASE commit, cheaply (CONTRACT §15: whether a
 * file the pull request modifies is generated is decided by its base version, which the pull
 * request cannot forge). One `git grep` over the base commit's blobs returns only the lines that
 * contain a hint (a generator banner's text), never whole files; one more `git ls-tree` and
 * `git grep -c` give the size and line count of the `.js`/`.css` files (Linguist's minified rule).
 * The base commit is fetched into the workspace by SHA when it is missing (depth 1: only the blobs
 * the head does not share come over the wire).
 */
import { runGit } from './git.js';
import { commonOf, ensureCommit, type ReadBaseFileOptions } from './read-base-file.js';

/** Input of `readBaseHeads`. */
export interface ReadBaseHeadsOptions extends Omit<ReadBaseFileOptions, 'path'> {
  /** Paths in the base commit. */
  paths: readonly string[];
  /** Fixed strings (matched case-insensitively) a kept line must contain. */
  hints: readonly string[];
  /** Lines after this one (1-based) are not kept. */
  maxLine: number;
  /** Paths whose size and line count are wanted too. */
  measure?: (path: string) => boolean;
}

/** What the base commit holds of one file: hint lines by 1-based number, and for measured files its size. */
export interface BaseHeadFacts {
  hintLines: Map<number, string>;
  /** Bytes and lines of a measured file. */
  size?: { bytes: number; lines: number };
}

/** Paths per git call (argv stays far below the system's limit). */
const CHUNK = 500;

function chunks<T>(items: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += CHUNK) out.push(items.slice(i, i + CHUNK));
  return out;
}

/**
 * Reads the hint lines (and sizes) of `paths` at the base commit. Resolves `undefined` when the
 * base commit cannot be had (then nothing is known of the base versions); a path the base lacks, or
 * a binary file, has no entry. Rejects with GitError when git fails otherwise.
 */
export async function readBaseHeads(
  options: ReadBaseHeadsOptions,
): Promise<Map<string, BaseHeadFacts> | undefined> {
  const out = new Map<string, BaseHeadFacts>();
  if (options.paths.length === 0) return out;
  if (!(await ensureCommit(options))) return undefined;
  const common = commonOf(options);
  const prefix = `${options.sha}:`;
  const factsOf = (path: string): BaseHeadFacts => {
    let facts = out.get(path);
    if (!facts) out.set(path, (facts = { hintLines: new Map() }));
    return facts;
  };
  // `git grep` exits 1 when nothing matched: that is an answer, not a failure.
  const grep = (args: string[]) =>
    runGit(['--literal-pathspecs', 'grep', '-z', '-I', '--no-color', ...args], common).catch(
      (error: Error) => {
        if (/exit code 1\b/.test(error.message)) return { stdout: '', stderr: '' };
        throw error;
      },
    );
  const hints = options.hints.flatMap((hint) => ['-e', hint]);
  for (const paths of chunks(options.paths)) {
    const { stdout } = await grep(['-n', '-i', '-F', ...hints, options.sha, '--', ...paths]);
    for (const record of stdout.split('\n')) {
      if (!record.startsWith(prefix)) continue;
      const [path, line, ...text] = record.slice(prefix.length).split('\0');
      const number = Number(line);
      if (path === undefined || !(number >= 1 && number <= options.maxLine)) continue;
      factsOf(path).hintLines.set(number, text.join('\0').replace(/\r$/, ''));
    }
  }
  const measured = options.paths.filter((p) => options.measure?.(p));
  for (const paths of chunks(measured)) {
    const [tree, counts] = await Promise.all([
      runGit(['--literal-pathspecs', 'ls-tree', '-r', '-l', '-z', options.sha, '--', ...paths], common),
      grep(['-c', '-e', '', options.sha, '--', ...paths]),
    ]);
    const bytes = new Map<string, number>();
    for (const entry of tree.stdout.split('\0')) {
      const match = /^\d+ blob [0-9a-f]+ +(\d+)\t([^]*)$/.exec(entry);
      if (match) bytes.set(match[2]!, Number(match[1]));
    }
    for (const record of counts.stdout.split('\n')) {
      if (!record.startsWith(prefix)) continue;
      const [path, count] = record.slice(prefix.length).split('\0');
      const size = path === undefined ? undefined : bytes.get(path);
      if (path !== undefined && size !== undefined)
        factsOf(path).size = { bytes: size, lines: Number(count) };
    }
  }
  return out;
}
