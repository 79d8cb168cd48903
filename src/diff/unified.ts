/**
 * A multi-file unified diff (`git diff` output, as Gitea's `.diff` and Bitbucket Cloud's diff endpoint
 * return it) split into each file's hunks, with git's quoted paths decoded. Platform-neutral: every
 * platform that receives one whole diff text uses it.
 */

/**
 * Undoes git's C-style path quoting (`"a/p\303\244th"`, core.quotePath): `\ooo` octal bytes and
 * `\t \n \" \\` escapes, decoded as UTF-8. An unquoted path is returned as is.
 */
export function unquoteGitPath(text: string): string {
  if (!text.startsWith('"') || !text.endsWith('"') || text.length < 2) return text;
  const bytes: number[] = [];
  const body = text.slice(1, -1);
  const simple: Record<string, number> = { t: 9, n: 10, r: 13, '"': 34, '\\': 92, a: 7, b: 8, f: 12, v: 11 };
  for (let i = 0; i < body.length; i++) {
    const ch = body[i] as string;
    if (ch !== '\\') {
      bytes.push(...Buffer.from(ch, 'utf8'));
      continue;
    }
    const next = body[i + 1] ?? '';
    const octal = /^[0-7]{3}/.exec(body.slice(i + 1));
    if (octal) {
      bytes.push(parseInt(octal[0], 8));
      i += 3;
    } else {
      bytes.push(simple[next] ?? next.charCodeAt(0));
      i += 1;
    }
  }
  return Buffer.from(bytes).toString('utf8');
}

/**
 * The prefixes a side's paths may carry: git's `a/`/`b/`, and Bitbucket Data Center's raw diff
 * `src://`/`dst://` (its `diff --git src://x dst://x`).
 */
const SIDE_PREFIXES = { old: ['a/', 'src://'], new: ['b/', 'dst://'], none: [] } as const;

/** A path of a `---`/`+++`/`rename to` line without its side's prefix; null for /dev/null. */
function headerPath(raw: string, side: keyof typeof SIDE_PREFIXES): string | null {
  const text = unquoteGitPath(raw.replace(/\t.*$/, ''));
  if (text === '/dev/null') return null;
  const prefix = SIDE_PREFIXES[side].find((p) => text.startsWith(p));
  return prefix ? text.slice(prefix.length) : text;
}

/** Path of a `diff --git a/X b/Y` line when X = Y (the only form left without other headers). */
function gitLinePath(line: string): string | undefined {
  const rest = line.slice('diff --git '.length);
  if (rest.startsWith('"')) {
    const end = rest.indexOf('" ');
    return end > 0 ? (headerPath(rest.slice(0, end + 1), 'old') ?? undefined) : undefined;
  }
  for (const [index, oldPrefix] of SIDE_PREFIXES.old.entries()) {
    const newPrefix = SIDE_PREFIXES.new[index]!;
    const half = (rest.length - oldPrefix.length - newPrefix.length - 1) / 2;
    if (!Number.isInteger(half) || half <= 0 || !rest.startsWith(oldPrefix)) continue;
    const path = rest.slice(oldPrefix.length, oldPrefix.length + half);
    if (rest.slice(oldPrefix.length + half) === ` ${newPrefix}${path}`) return path;
  }
  return undefined;
}

/**
 * Splits a multi-file unified diff into each file's hunks (from its first `@@` line on, without a
 * final newline), keyed by the file's new path (old path for a deleted file). Files without hunks
 * (binary, pure renames, mode changes) are absent.
 */
export function splitUnifiedDiff(diff: string): Map<string, string> {
  const out = new Map<string, string>();
  let lines: string[] = [];
  let gitLine = '';
  const flush = () => {
    if (gitLine === '') return;
    let oldPath: string | null | undefined;
    let newPath: string | null | undefined;
    let renameTo: string | undefined;
    const first = lines.findIndex((l) => l.startsWith('@@'));
    const header = first < 0 ? lines : lines.slice(0, first);
    for (const line of header) {
      if (line.startsWith('--- ')) oldPath = headerPath(line.slice(4), 'old');
      else if (line.startsWith('+++ ')) newPath = headerPath(line.slice(4), 'new');
      else if (line.startsWith('rename to ')) renameTo = headerPath(line.slice(10), 'none') ?? undefined;
    }
    const path = newPath ?? oldPath ?? renameTo ?? gitLinePath(gitLine);
    if (first >= 0 && path) {
      const hunks = lines.slice(first);
      while (hunks.length > 0 && hunks.at(-1) === '') hunks.pop();
      out.set(path, hunks.join('\n'));
    }
  };
  for (const line of diff.split('\n')) {
    if (line.startsWith('diff --git ')) {
      flush();
      gitLine = line;
      lines = [];
    } else lines.push(line);
  }
  flush();
  return out;
}
