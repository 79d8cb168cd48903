/**
 * The probe of a confirmed finding (CONTRACT §22, §24): the command that showed the bug and the
 * files the verification run created for it (a unit test, a script), kept small enough to travel in
 * the finding's hidden marker, so that applying the finding later can run the same probe on the new
 * head — in CLI, standalone and cluster mode alike, with no store of its own.
 */
import { gunzipSync, gzipSync } from 'node:zlib';
import { constants } from 'node:fs';
import { lstat, open, readdir } from 'node:fs/promises';
import path from 'node:path';

/** One file the probe needs, relative to the repository root (POSIX separators). */
export interface ProbeFile {
  path: string;
  content: string;
}

/** A probe: one shell command, run at the repository root, and the files it needs. */
export interface Probe {
  command: string;
  files: ProbeFile[];
}

/** Largest file kept, bytes. */
export const MAX_PROBE_FILE_BYTES = 16 * 1024;
/** Most files kept. */
export const MAX_PROBE_FILES = 8;
/** Largest encoded probe (base64url of the gzipped JSON), characters: it rides in an inline comment. */
export const MAX_ENCODED_PROBE_CHARS = 6_000;
/** Most upper-layer entries a capture looks at (a run may create many files: the walk stays bounded). */
export const MAX_PROBE_ENTRIES_VISITED = 10_000;
/** Longest command kept, characters. */
export const MAX_PROBE_COMMAND_CHARS = 2_000;

/** Directories whose files are build or cache output, never part of a probe. */
const OUTPUT_DIRS = new Set([
  '.git',
  'node_modules',
  '__pycache__',
  '.pytest_cache',
  '.mypy_cache',
  '.cache',
  '.venv',
  'target',
  'dist',
  'build',
  'coverage',
  '.gradle',
  '.tox',
]);

/** Whether `rel` (POSIX) is a path a probe may write: relative, inside the root, no `.git`, no control characters. */
export function isSafeProbePath(rel: string): boolean {
  if (rel === '' || rel.length > 512 || rel.startsWith('/') || rel.includes('\\')) return false;
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(rel)) return false;
  const segments = rel.split('/');
  return segments.every((s) => s !== '' && s !== '.' && s !== '..' && s.toLowerCase() !== '.git');
}

async function exists(file: string): Promise<boolean> {
  return lstat(file).then(
    () => true,
    () => false,
  );
}

/** The bytes of regular file `file`, never through a link. */
async function readNoFollow(file: string): Promise<Buffer> {
  const handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  try {
    if (!(await handle.stat()).isFile()) throw new Error('not a regular file');
    return await handle.readFile();
  } finally {
    await handle.close();
  }
}

/**
 * The files a verification run created: regular files of the overlay's upper layer `upperDir` that
 * do not exist in `workspace` (files it changed — the suspect change reverted, say — are not part of
 * the probe: replayed on a new head they would undo the fix). Build and cache directories, files over
 * `MAX_PROBE_FILE_BYTES`, non-UTF-8 files, links and special files (the overlay's whiteouts) are
 * left out; at most `MAX_PROBE_FILES`, by path, looking at no more than `MAX_PROBE_ENTRIES_VISITED`
 * entries (nothing is read beyond what is kept). Never throws for an unreadable entry (it is left out).
 * Call it once nothing runs in the tree any more (`DisposableTree.stop`).
 */
export async function captureProbeFiles(upperDir: string, workspace: string): Promise<ProbeFile[]> {
  const found: ProbeFile[] = [];
  let visited = 0;
  const done = () => found.length >= MAX_PROBE_FILES || visited >= MAX_PROBE_ENTRIES_VISITED;
  const walk = async (rel: string): Promise<void> => {
    if (done()) return;
    const entries = await readdir(path.join(upperDir, rel), { withFileTypes: true }).catch(() => []);
    for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      if (done()) return;
      visited += 1;
      const childRel = rel === '' ? entry.name : `${rel}/${entry.name}`;
      if (!isSafeProbePath(childRel)) continue;
      if (entry.isDirectory()) {
        if (!OUTPUT_DIRS.has(entry.name)) await walk(childRel);
        continue;
      }
      if (!entry.isFile() || (await exists(path.join(workspace, childRel)))) continue;
      const full = path.join(upperDir, childRel);
      const stat = await lstat(full).catch(() => undefined);
      if (!stat?.isFile() || stat.size > MAX_PROBE_FILE_BYTES) continue;
      const bytes = await readNoFollow(full).catch(() => undefined);
      if (bytes === undefined) continue;
      const content = bytes.toString('utf8');
      if (!Buffer.from(content, 'utf8').equals(bytes)) continue;
      found.push({ path: childRel, content });
    }
  };
  await walk('');
  return found;
}

/**
 * The probe as one base64url word (gzipped JSON) for a finding marker, or `undefined` when it does
 * not fit in `MAX_ENCODED_PROBE_CHARS` even without its files, or has no command.
 */
export function encodeProbe(probe: Probe): string | undefined {
  const command = probe.command.trim();
  if (command === '' || command.length > MAX_PROBE_COMMAND_CHARS) return undefined;
  const encode = (files: ProbeFile[]) =>
    gzipSync(Buffer.from(JSON.stringify({ c: command, f: files.map((f) => [f.path, f.content]) }), 'utf8'), {
      level: 9,
    }).toString('base64url');
  // Drop files from the end until it fits; a probe missing a file it needs fails visibly on re-run.
  for (let n = probe.files.length; n >= 0; n--) {
    const encoded = encode(probe.files.slice(0, n));
    if (encoded.length <= MAX_ENCODED_PROBE_CHARS) return encoded;
  }
  return undefined;
}

/**
 * Reads a probe written by `encodeProbe`; `undefined` for anything malformed (not base64url, not
 * gzip, too large unpacked, wrong shape, an unsafe path).
 */
export function decodeProbe(encoded: string): Probe | undefined {
  if (!/^[A-Za-z0-9_-]{1,6000}$/.test(encoded)) return undefined;
  try {
    const json = gunzipSync(Buffer.from(encoded, 'base64url'), {
      maxOutputLength: MAX_PROBE_FILES * MAX_PROBE_FILE_BYTES + MAX_PROBE_COMMAND_CHARS + 4096,
    }).toString('utf8');
    const value: unknown = JSON.parse(json);
    if (typeof value !== 'object' || value === null) return undefined;
    const { c, f } = value as { c?: unknown; f?: unknown };
    if (typeof c !== 'string' || c.trim() === '' || !Array.isArray(f) || f.length > MAX_PROBE_FILES)
      return undefined;
    const files: ProbeFile[] = [];
    for (const item of f) {
      if (!Array.isArray(item) || item.length !== 2) return undefined;
      const [p, content] = item as unknown[];
      if (typeof p !== 'string' || typeof content !== 'string' || !isSafeProbePath(p)) return undefined;
      files.push({ path: p, content });
    }
    return { command: c, files };
  } catch {
    return undefined;
  }
}
